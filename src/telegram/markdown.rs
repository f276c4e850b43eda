//! MarkdownV2 building blocks that always escape their input.
//!
//! teloxide's `utils::markdown::{bold, italic, code_inline}` wrap their argument without escaping it
//! (teloxide#1342), so every view builds its text with these instead.

/// Characters Telegram reserves outside entities in MarkdownV2 (`\` escapes, and is escaped, everywhere).
pub const RESERVED: &str = "_*[]()~`>#+-=|{}.!";

/// Escapes every MarkdownV2 reserved character (and `\`) so `s` renders literally.
#[must_use]
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 4);
    for c in s.chars() {
        if c == '\\' || RESERVED.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Escapes text for use inside `` `code` `` or a ```` ``` ```` pre block: only `` ` `` and `\`.
#[must_use]
pub fn escape_code(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        if c == '`' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Escapes a link target for the `(...)` part of `[text](url)`: only `)` and `\`.
#[must_use]
pub fn escape_url(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        if c == ')' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `*s*` with `s` escaped.
#[must_use]
pub fn bold(s: &str) -> String {
    format!("*{}*", escape(s))
}

/// `_s_` with `s` escaped; empty for empty `s` (`__` would open an underline).
///
/// Do not put it right after another `_` marker: `__` always reads as underline.
#[must_use]
pub fn italic(s: &str) -> String {
    if s.is_empty() {
        return String::new();
    }
    format!("_{}_", escape(s))
}

/// `` `s` `` with `s` escaped for code.
#[must_use]
pub fn code(s: &str) -> String {
    format!("`{}`", escape_code(s))
}

/// Cuts raw (unescaped) text to at most `max` UTF-16 units (Telegram's unit), ending with `…` when it
/// was cut.
///
/// The result, ellipsis included, is never longer than `max`. Cut before escaping: escaping only
/// lengthens, so measure the final message separately.
#[must_use]
pub fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max || s.encode_utf16().count() <= max {
        return s.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        used += c.len_utf16();
        if used > max - 1 {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_table() {
        let cases = [
            ("", ""),
            ("plain text", "plain text"),
            ("a.b", "a\\.b"),
            (
                "_*[]()~`>#+-=|{}.!",
                "\\_\\*\\[\\]\\(\\)\\~\\`\\>\\#\\+\\-\\=\\|\\{\\}\\.\\!",
            ),
            ("back\\slash", "back\\\\slash"),
            ("ünïcødé 🎉", "ünïcødé 🎉"),
            ("1. item - done!", "1\\. item \\- done\\!"),
        ];
        for (input, want) in cases {
            assert_eq!(escape(input), want, "escape({input:?})");
        }
    }

    #[test]
    fn escape_code_table() {
        let cases = [
            ("", ""),
            ("a.b_c*d", "a.b_c*d"),
            ("`tick`", "\\`tick\\`"),
            ("c:\\dir", "c:\\\\dir"),
        ];
        for (input, want) in cases {
            assert_eq!(escape_code(input), want, "escape_code({input:?})");
        }
    }

    #[test]
    fn escape_url_table() {
        let cases = [
            ("https://ex.com/a_b.c", "https://ex.com/a_b.c"),
            ("https://ex.com/(x)", "https://ex.com/(x\\)"),
            ("https://ex.com/a\\b", "https://ex.com/a\\\\b"),
        ];
        for (input, want) in cases {
            assert_eq!(escape_url(input), want, "escape_url({input:?})");
        }
    }

    #[test]
    fn wrappers_escape_their_input() {
        let cases = [
            (bold("a*b"), "*a\\*b*"),
            (italic("snake_case"), "_snake\\_case_"),
            (code("x`y"), "`x\\`y`"),
            (bold("v1.2"), "*v1\\.2*"),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }

    #[test]
    fn truncate_counts_utf16_units() {
        let cases = [
            ("hello", 5, "hello"),
            ("hello!", 5, "hell…"),
            ("🎉🎉🎉", 4, "🎉…"),
            ("🎉🎉🎉", 3, "🎉…"),
            ("abc", 1, "…"),
            ("abc", 0, ""),
            ("abc", usize::MAX, "abc"),
        ];
        for (input, max, want) in cases {
            assert_eq!(truncate(input, max), want, "truncate({input:?}, {max})");
        }
    }
}
