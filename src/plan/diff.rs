//! A line diff of an edited proposal against the agent's: what the decision view and the dashboard show as a
//! `diff` block. Pure; longest common subsequence of lines, with a bound on the work (past it, the old lines are
//! all shown removed and the new ones added: still a true, if coarse, diff).

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

/// Most cells of the LCS table before falling back to "all removed, all added".
const MAX_CELLS: usize = 4_000_000;

/// The lines of `new` against `old`, in order (common lines, removals before additions at each change).
#[must_use]
pub fn lines<'a>(old: &'a str, new: &'a str) -> Vec<Line<'a>> {
    let a: Vec<&str> = old.split('\n').collect();
    let b: Vec<&str> = new.split('\n').collect();
    // Common head and tail need no table.
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let mut out: Vec<Line> = a[..head].iter().map(|s| Line::Same(s)).collect();
    if (am.len() + 1).saturating_mul(bm.len() + 1) > MAX_CELLS {
        out.extend(am.iter().map(|s| Line::Removed(s)));
        out.extend(bm.iter().map(|s| Line::Added(s)));
    } else {
        middle(am, bm, &mut out);
    }
    out.extend(a[a.len() - tail..].iter().map(|s| Line::Same(s)));
    out
}

/// The LCS diff of `a` against `b`, appended to `out`.
fn middle<'a>(a: &[&'a str], b: &[&'a str], out: &mut Vec<Line<'a>>) {
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: length of the LCS of a[i..] and b[j..].
    let mut lcs = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[at(i, j)] = if a[i] == b[j] {
                lcs[at(i + 1, j + 1)] + 1
            } else {
                lcs[at(i + 1, j)].max(lcs[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            out.push(Line::Same(a[i]));
            i += 1;
            j += 1;
        } else if j == m || (i < n && lcs[at(i + 1, j)] >= lcs[at(i, j + 1)]) {
            out.push(Line::Removed(a[i]));
            i += 1;
        } else {
            out.push(Line::Added(b[j]));
            j += 1;
        }
    }
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
