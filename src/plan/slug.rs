//! Slugs: the only way an id or a session name ever becomes part of a file name.

/// Lowercase letters, digits and single `-` between them; everything else becomes `-`. Never starts with `-` or
/// `.` (a file name shell tools would take for an option, or hide). Used for decision ids made from titles and for
/// plan file names.
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

/// DESIGN's rule for notify file names: every character outside `[A-Za-z0-9_-]` becomes `-`, then the leading
/// `-` go, so that no name starts with `-` (which shell tools read as an option) or `.`. Never empty (`_` when
/// nothing is left), at most 100 characters.
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
    let out = out.trim_start_matches('-');
    if out.is_empty() {
        "_".to_owned()
    } else {
        out.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn slugs() {
        assert_eq!(slug("Auth Strategy"), "auth-strategy");
        assert_eq!(slug("  Hello, World!  "), "hello-world");
        assert_eq!(slug("Привет мир"), "привет-мир");
        assert_eq!(slug("🚀"), "");
        assert_eq!(slug("../../x"), "x");
        assert_eq!(file_component("agent:swe2:main"), "agent-swe2-main");
        assert_eq!(file_component("../../x"), "x");
        assert_eq!(file_component(".hidden"), "hidden");
        assert_eq!(file_component("-rf"), "rf");
        assert_eq!(file_component("a:-b"), "a--b");
        assert_eq!(file_component(""), "_");
        // Issue 17: an all-punctuation session made `---------abc123.md`.
        assert_eq!(file_component("::::::::"), "_");
    }

    proptest! {
        #[test]
        fn never_an_option_or_a_hidden_name(s in any::<String>()) {
            let f = file_component(&s);
            prop_assert!(!f.is_empty() && f.len() <= 100, "{:?}", f);
            prop_assert!(!f.starts_with(['-', '.']), "{:?}", f);
            prop_assert!(f.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'), "{:?}", f);
            let s = slug(&s);
            prop_assert!(!s.starts_with(['-', '.']) && !s.ends_with('-'), "{:?}", s);
        }
    }
}
