//! serde's error messages as the user reads them.
//!
//! serde_json and serde_yaml end their messages with ` at line L column C` (serde_yaml sometimes adds
//! `, while parsing ... at line L column C` and more lines). Every caller reports the position its own way
//! (`config.json:2:16: ...`, a diagnostic's line), so the message is wanted without it. A leaf module:
//! it imports nothing of the crate, so the pure core may use it.

/// The first line of `message`, cut at its first ` at line L column C`.
#[must_use]
pub fn without_position(message: &str) -> &str {
    let first_line = message.lines().next().unwrap_or(message);
    first_line
        .match_indices(" at line ")
        .find(|(at, marker)| is_line_column(&first_line[at + marker.len()..]))
        .map_or(first_line, |(at, _)| &first_line[..at])
}

/// Whether `rest` starts with `L column C` (digits, ` column `, digits).
fn is_line_column(rest: &str) -> bool {
    after_digits(rest)
        .and_then(|rest| rest.strip_prefix(" column "))
        .and_then(after_digits)
        .is_some()
}

/// `text` after its leading digits; `None` when it does not start with one.
fn after_digits(text: &str) -> Option<&str> {
    let rest = text.trim_start_matches(|c: char| c.is_ascii_digit());
    (rest.len() < text.len()).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_cut() {
        let cases = [
            // serde_json: always a suffix.
            (
                "key must be a string at line 2 column 16",
                "key must be a string",
            ),
            (
                "unknown field `x`, expected `y` at line 1 column 9",
                "unknown field `x`, expected `y`",
            ),
            // serde_yaml: a second position and more lines after the first.
            (
                "did not find expected key at line 3 column 1, while parsing a block mapping at line 2 column 3\nmore",
                "did not find expected key",
            ),
            // No position, or words that only look like one.
            ("EOF while parsing a value", "EOF while parsing a value"),
            (
                "invalid type: string \"seen at line one\", expected a number at line 4 column 2",
                "invalid type: string \"seen at line one\", expected a number",
            ),
            ("at line 3 column 4", "at line 3 column 4"),
            ("", ""),
        ];
        for (message, expected) in cases {
            assert_eq!(without_position(message), expected, "{message:?}");
        }
    }
}
