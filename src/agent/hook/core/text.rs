//! Small text helpers every prompt's plan uses: one-line titles, cuts, code spans and fences that hold whatever
//! an agent sent.

/// Whitespace runs (line breaks included) as one space, trimmed.
#[must_use]
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters, the last one `…` when cut.
#[must_use]
pub fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `text` as inline code, whatever backticks it holds.
#[must_use]
pub fn code_span(text: &str) -> String {
    let fence = "`".repeat(longest_run(text, '`') + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// `text` as a fenced code block with `language`, fenced with more backticks than it holds in a row.
#[must_use]
pub fn code_block(text: &str, language: &str) -> String {
    let fence = "`".repeat(longest_run(text, '`').max(2) + 1);
    format!(
        "{fence}{language}\n{}\n{fence}",
        text.trim_end_matches('\n')
    )
}

/// The longest run of `c` in `text`.
#[must_use]
pub fn longest_run(text: &str, c: char) -> usize {
    let (mut longest, mut run) = (0, 0);
    for ch in text.chars() {
        run = if ch == c { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// The folder name of the agent's working directory (the project), one line.
#[must_use]
pub fn project(cwd: Option<&str>) -> Option<String> {
    let cwd = cwd?.trim_end_matches('/');
    let name = cwd.rsplit('/').next()?;
    (!name.is_empty()).then(|| one_line(name))
}

/// At most `max` characters of `text`, cut at a line break, with a line saying how much was left out (`what`
/// names where the rest is).
#[must_use]
pub fn cut_lines(text: &str, max: usize, what: &str) -> String {
    let total = text.chars().count();
    if total <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max).collect();
    let kept = kept.rsplit_once('\n').map_or(kept.as_str(), |(k, _)| k);
    format!(
        "{kept}\n… ({} more characters{what})",
        total - kept.chars().count()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_blocks_hold_any_backticks() {
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x"), "`` `x ``");
        assert_eq!(code_block("x\n", "bash"), "```bash\nx\n```");
        assert_eq!(code_block("````", "diff"), "`````diff\n````\n`````");
    }

    #[test]
    fn cuts_say_what_was_left_out() {
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abc", 4), "abc");
        assert_eq!(
            cut_lines("ab\ncd\nef", 6, ""),
            "ab\ncd\n… (3 more characters)"
        );
        assert_eq!(project(Some("/home/dev/shop/")), Some("shop".to_owned()));
        assert_eq!(project(Some("/")), None);
    }
}
