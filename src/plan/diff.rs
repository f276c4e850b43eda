//! A line diff of an edited proposal against the agent's: what the decision view and the dashboard show as a
//! `diff` block. Pure; `similar`'s longest common subsequence of lines, or its Myers diff past a size where the
//! LCS table gets slow (both a shortest diff).

/// One line of a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line<'a> {
    Same(&'a str),
    Removed(&'a str),
    Added(&'a str),
}

impl Line<'_> {
    /// The line as a unified diff writes it: `  same`, `- removed`, `+ added`.
    #[must_use]
    pub fn unified(&self) -> String {
        match self {
            Line::Same(s) => format!("  {s}"),
            Line::Removed(s) => format!("- {s}"),
            Line::Added(s) => format!("+ {s}"),
        }
    }
}

/// Most cells of `similar`'s LCS table (a map, slower than a flat table: about 40 ms in a release build at this
/// size) before its Myers diff takes over: as short a diff, its ties maybe placed otherwise, in linear memory.
const LCS_CELLS: usize = 100_000;

/// The lines of `new` against `old`, in order (common lines, removals before additions at each change).
#[must_use]
pub fn lines<'a>(old: &'a str, new: &'a str) -> Vec<Line<'a>> {
    let a: Vec<&str> = old.split('\n').collect();
    let b: Vec<&str> = new.split('\n').collect();
    // Common head and tail need no table (and `similar`'s LCS must be given none: it indexes its table from 0).
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let mut out: Vec<Line> = a[..head].iter().map(|s| Line::Same(s)).collect();
    middle(am, bm, &mut out);
    out.extend(a[a.len() - tail..].iter().map(|s| Line::Same(s)));
    out
}

/// The diff of `a` against `b` (no common first or last line), appended to `out`, removals before additions in
/// each run of changes.
fn middle<'a>(a: &[&'a str], b: &[&'a str], out: &mut Vec<Line<'a>>) {
    use similar::ChangeTag;
    use similar::algorithms::{Capture, lcs, myers};
    let mut ops = Capture::new();
    let Ok(()) = if (a.len() + 1).saturating_mul(b.len() + 1) <= LCS_CELLS {
        lcs::diff(&mut ops, a, 0..a.len(), b, 0..b.len())
    } else {
        myers::diff(&mut ops, a, 0..a.len(), b, 0..b.len())
    };
    let mut added = Vec::new();
    for change in ops.into_ops().iter().flat_map(|op| op.iter_changes(a, b)) {
        match change.tag() {
            ChangeTag::Equal => {
                out.append(&mut added);
                out.push(Line::Same(change.value()));
            }
            ChangeTag::Delete => out.push(Line::Removed(change.value())),
            ChangeTag::Insert => added.push(Line::Added(change.value())),
        }
    }
    out.append(&mut added);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unified(old: &str, new: &str) -> Vec<String> {
        lines(old, new).iter().map(Line::unified).collect()
    }

    #[test]
    fn shows_what_changed_between_common_lines() {
        assert_eq!(
            unified(
                "rm -rf build\nmake\nmake test",
                "rm -rf build/\nmake\nmake test"
            ),
            ["- rm -rf build", "+ rm -rf build/", "  make", "  make test"]
        );
        assert_eq!(unified("a\nb\nc", "a\nc"), ["  a", "- b", "  c"]);
        assert_eq!(unified("a", "a\nb"), ["  a", "+ b"]);
        assert_eq!(unified("x", "x"), ["  x"]);
        assert_eq!(unified("a\nb", "b\na"), ["- a", "  b", "+ a"]);
    }

    #[test]
    fn a_huge_change_is_still_a_true_diff() {
        let old: String = (0..3000).map(|i| format!("o{i}\n")).collect();
        let new: String = (0..3000).map(|i| format!("n{i}\n")).collect();
        let d = lines(&old, &new);
        let removed = d.iter().filter(|l| matches!(l, Line::Removed(_))).count();
        let added = d.iter().filter(|l| matches!(l, Line::Added(_))).count();
        assert_eq!((removed, added), (3000, 3000));
    }
}
