//! Completing a Markdown plan an agent wrote: only the missing frontmatter keys are inserted (and wrong counts
//! corrected), every line the agent wrote stays byte for byte.

use serde_yaml::{Mapping, Value};

use crate::plan::lines;
use crate::plan::yaml_value::{scalar, timestamp};
use crate::plan::{Plan, PlanStatus};

/// The text of `plan` (parsed from `text`) with `id`, `version`, `status`, `created_at`, `updated_at`,
/// `completed_at` inserted where missing, and `total`, `answered`, `remaining` inserted or corrected.
#[must_use]
pub fn fill(text: &str, plan: &Plan, id: &str, now: &str) -> String {
    let all = lines::split(text);
    let eol = lines::file_ending(&all);
    let fm = plan.frontmatter_lines.clone();
    let yaml: String = all[fm.clone()].concat();
    let present: Mapping = match serde_yaml::from_str(&yaml) {
        Ok(Value::Mapping(m)) => m,
        _ => Mapping::new(),
    };
    let has = |k: &str| present.contains_key(k);

    let mut out: Vec<String> = all.iter().map(|l| (*l).to_owned()).collect();
    let counts = [
        ("total", plan.decisions.len()),
        ("answered", plan.answered()),
        ("remaining", plan.remaining()),
    ];
    for (key, n) in counts {
        if !has(key) {
            continue;
        }
        // Counts are derived: a wrong one is rewritten in place (keeping a trailing comment).
        let right =
            matches!(present.get(key), Some(Value::Number(v)) if v.as_u64() == Some(n as u64));
        if !right && let Some(i) = fm.clone().find(|&i| top_key(all[i]) == Some(key)) {
            out[i] = rewrite(all[i], &n.to_string());
        }
    }

    let mut missing: Vec<(&str, String)> = Vec::new();
    let mut want = |key: &'static str, value: String| {
        if !has(key) {
            missing.push((key, value));
        }
    };
    want("id", scalar(id));
    want("version", "1".to_owned());
    want("status", PlanStatus::Pending.as_str().to_owned());
    want("created_at", timestamp(now));
    want("updated_at", timestamp(now));
    want("completed_at", "null".to_owned());
    for (key, n) in counts {
        want(key, n.to_string());
    }
    let inserted: Vec<String> = missing
        .into_iter()
        .map(|(k, v)| format!("{k}: {v}{eol}"))
        .collect();
    out.splice(fm.end..fm.end, inserted);
    out.concat()
}

/// `text` with the top-level frontmatter key `key` set to `value` (a plain scalar): its line rewritten, or
/// inserted at the frontmatter's end. A text that does not read as a plan is returned as it is (its push then
/// says why).
#[must_use]
pub fn set_key(text: &str, key: &str, value: &str) -> String {
    let all = lines::split(text);
    let eol = lines::file_ending(&all);
    if all.first().is_none_or(|l| lines::content(l) != "---") {
        return format!("---{eol}{key}: {}{eol}---{eol}{text}", scalar(value));
    }
    let Ok(plan) = crate::plan::parse(text, "") else {
        return text.to_owned();
    };
    let fm = plan.frontmatter_lines.clone();
    let mut out: Vec<String> = all.iter().map(|l| (*l).to_owned()).collect();
    match fm.clone().find(|&i| top_key(all[i]) == Some(key)) {
        Some(i) => out[i] = rewrite(all[i], &scalar(value)),
        None if fm.start == 0 => {
            return format!("---{eol}{key}: {}{eol}---{eol}{text}", scalar(value));
        }
        None => out.insert(fm.end, format!("{key}: {}{eol}", scalar(value))),
    }
    out.concat()
}

/// The key of an unindented `key: value` frontmatter line.
fn top_key(line: &str) -> Option<&str> {
    let c = lines::content(line);
    if c.starts_with([' ', '\t', '#', '-']) {
        return None;
    }
    c.split_once(':').map(|(k, _)| k.trim_end())
}

/// `key: 5  # note` → `key: 3  # note`.
fn rewrite(line: &str, value: &str) -> String {
    let c = lines::content(line);
    let eol = lines::ending(line);
    let Some((key, rest)) = c.split_once(':') else {
        return line.to_owned();
    };
    // The comment with the spaces before it, as they were.
    let comment = rest
        .find(" #")
        .map_or("", |i| &rest[rest[..i].trim_end().len()..]);
    format!("{key}: {value}{comment}{eol}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-02-01T10:00:00Z";

    fn filled(text: &str) -> String {
        let plan = crate::plan::parse(text, "").unwrap();
        fill(text, &plan, "abcd2345", NOW)
    }

    #[test]
    fn inserts_only_what_is_missing_at_the_end_of_the_frontmatter() {
        let text =
            "---\ntitle: Q  # keep me\nagent: bot\n---\n\n## Pick\n\n**Options:**\n- `a` — A\n";
        assert_eq!(
            filled(text),
            "---\ntitle: Q  # keep me\nagent: bot\nid: abcd2345\nversion: 1\nstatus: pending\n\
             created_at: 2026-02-01T10:00:00Z\nupdated_at: 2026-02-01T10:00:00Z\ncompleted_at: null\n\
             total: 1\nanswered: 0\nremaining: 1\n---\n\n## Pick\n\n**Options:**\n- `a` — A\n"
        );
    }

    #[test]
    fn a_complete_file_is_left_as_it_is() {
        let text = include_str!("../../tests/fixtures/spec-example.md");
        assert_eq!(filled(text), text);
    }

    #[test]
    fn wrong_counts_are_corrected_in_place_and_crlf_kept() {
        let text = "---\r\nid: x\r\ntotal: 7 # derived\r\n---\r\n## A\r\n## B\r\n";
        assert_eq!(
            filled(text),
            "---\r\nid: x\r\ntotal: 2 # derived\r\nversion: 1\r\nstatus: pending\r\n\
             created_at: 2026-02-01T10:00:00Z\r\nupdated_at: 2026-02-01T10:00:00Z\r\n\
             completed_at: null\r\nanswered: 0\r\nremaining: 2\r\n---\r\n## A\r\n## B\r\n"
        );
    }

    #[test]
    fn a_key_is_set_in_place_or_added() {
        let text = "---\ntitle: Q\nmachine: mine  # x\n---\n## A\n";
        assert_eq!(
            set_key(text, "machine", "devbox"),
            "---\ntitle: Q\nmachine: devbox  # x\n---\n## A\n"
        );
        assert_eq!(
            set_key("---\ntitle: Q\n---\n## A\n", "machine", "devbox"),
            "---\ntitle: Q\nmachine: devbox\n---\n## A\n"
        );
        assert_eq!(
            set_key("# Q\n\n## A\n", "machine", "devbox"),
            "---\nmachine: devbox\n---\n# Q\n\n## A\n"
        );
    }

    #[test]
    fn empty_frontmatter() {
        let out = filled("---\n---\n## A\n");
        assert!(out.starts_with("---\nid: abcd2345\nversion: 1\n"), "{out}");
        assert!(out.ends_with("remaining: 1\n---\n## A\n"), "{out}");
    }
}
