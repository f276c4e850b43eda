//! "Did you mean ...?" for misspelt config keys.

/// The known key closest to a misspelt one: same letters ignoring case, `_` and `-`, or at most two edits.
pub(super) fn did_you_mean<'k>(unknown: &str, known: &[&'k str]) -> Option<&'k str> {
    let normal = |key: &str| {
        key.chars()
            .filter(|c| *c != '_' && *c != '-')
            .collect::<String>()
            .to_lowercase()
    };
    let wanted = normal(unknown);
    known
        .iter()
        .map(|key| (*key, strsim::levenshtein(&wanted, &normal(key))))
        .filter(|(key, distance)| *distance <= 2 && *distance < key.len() / 2)
        .min_by_key(|(_, distance)| *distance)
        .map(|(key, _)| key)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECTIONS: [&str; 4] = ["telegram", "queue", "notifications", "logs"];
    const TELEGRAM_KEYS: [&str; 3] = ["token", "allowedUsers", "apiUrl"];
    const QUEUE_KEYS: [&str; 2] = ["dir", "watchInterval"];

    #[test]
    fn suggestions() {
        assert_eq!(
            did_you_mean("alowedUsers", &TELEGRAM_KEYS),
            Some("allowedUsers")
        );
        assert_eq!(
            did_you_mean("allowed_users", &TELEGRAM_KEYS),
            Some("allowedUsers")
        );
        assert_eq!(
            did_you_mean("watch_interval", &QUEUE_KEYS),
            Some("watchInterval")
        );
        assert_eq!(did_you_mean("telgram", &SECTIONS), Some("telegram"));
        assert_eq!(did_you_mean("color", &SECTIONS), None);
        assert_eq!(did_you_mean("x", &QUEUE_KEYS), None);
    }
}
