//! Slugs: the only way an id or a session name ever becomes part of a file name.

/// Lowercase letters, digits and single `-` between them; everything else becomes `-`.
/// Used for decision ids made from titles and for plan file names.
#[must_use]
pub fn slug(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    out.chars()
        .take(60)
        .collect::<String>()
        .trim_end_matches('-')
        .to_owned()
}

/// DESIGN's rule for notify file names: every character outside `[A-Za-z0-9_-]` becomes `-`.
/// Never empty, never `.` or `..`, at most 100 characters.
#[must_use]
pub fn file_component(s: &str) -> String {
    let out: String = s
        .chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if out.is_empty() { "-".to_owned() } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slug("Auth Strategy"), "auth-strategy");
        assert_eq!(slug("  Hello, World!  "), "hello-world");
        assert_eq!(slug("Привет мир"), "привет-мир");
        assert_eq!(slug("🚀"), "");
        assert_eq!(slug("../../x"), "x");
        assert_eq!(file_component("agent:swe2:main"), "agent-swe2-main");
        assert_eq!(file_component("../../x"), "------x");
        assert_eq!(file_component(""), "-");
    }
}
