//! The file as lines that keep their own endings, so edits can rewrite one line and leave the rest byte for byte.

/// Splits `text` into lines, each with its own ending (`\n`, `\r\n`, or none for a last line without one).
#[must_use]
pub fn split(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// A line without its ending.
#[must_use]
pub fn content(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

/// The ending of a line: `"\r\n"`, `"\n"` or `""`.
#[must_use]
pub fn ending(line: &str) -> &str {
    &line[content(line).len()..]
}

/// The line ending the file mostly uses, from its first line; `\n` when it has none.
#[must_use]
pub fn file_ending(lines: &[&str]) -> &'static str {
    match lines.iter().map(|l| ending(l)).find(|e| !e.is_empty()) {
        Some("\r\n") => "\r\n",
        _ => "\n",
    }
}

/// True for a line that holds only white space.
#[must_use]
pub fn is_blank(line: &str) -> bool {
    content(line).trim().is_empty()
}

/// True for a Markdown thematic break made of three or more `-`, `*` or `_` (spaces allowed between them).
#[must_use]
pub fn is_rule(line: &str) -> bool {
    let c = content(line).trim();
    let chars: Vec<char> = c.chars().filter(|c| !c.is_whitespace()).collect();
    chars.len() >= 3 && ['-', '*', '_'].iter().any(|m| chars.iter().all(|c| c == m))
}

/// Byte offset of the start of each line, for turning offsets into line numbers.
#[derive(Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    #[must_use]
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// 0-based line index holding byte `offset`.
    #[must_use]
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_endings() {
        assert_eq!(split("a\r\nb\nc"), vec!["a\r\n", "b\n", "c"]);
        assert_eq!(content("a\r\n"), "a");
        assert_eq!(ending("a\r\n"), "\r\n");
        assert_eq!(ending("a"), "");
        assert_eq!(file_ending(&split("x\r\ny\n")), "\r\n");
    }

    #[test]
    fn rules() {
        assert!(is_rule("---\n"));
        assert!(is_rule("* * *"));
        assert!(!is_rule("--"));
        assert!(!is_rule("-a-"));
    }

    #[test]
    fn line_index() {
        let idx = LineIndex::new("ab\ncd\n");
        assert_eq!(idx.line_of(0), 0);
        assert_eq!(idx.line_of(3), 1);
        assert_eq!(idx.line_of(4), 1);
    }
}
