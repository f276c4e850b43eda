//! Property tests: for arbitrary plans and answers, parse(edit(file)) holds the edit and every line the edit did
//! not target is byte-identical.

use proptest::prelude::*;

use super::yaml_readers::{Schema, read_flat, top_str};
use super::*;

const NOW: &str = "2026-03-04T05:06:07Z";

#[derive(Debug, Clone)]
struct GenDecision {
    id: String,
    title: String,
    with_meta: bool,
    comment: bool,
    options: Vec<(String, String)>,
}

#[derive(Debug, Clone)]
struct GenPlan {
    crlf: bool,
    trailing_spaces: bool,
    unknown_keys: Vec<(String, String)>,
    with_counts: bool,
    decisions: Vec<GenDecision>,
}

fn line_text() -> impl Strategy<Value = String> {
    // Any printable text on one line, including Markdown and YAML specials and non-ASCII.
    "[a-zA-Z0-9 _*`\\[\\]()~>#+=|{}.!:;,'\"\\\\/@%&?ÄéЖ😀-]{1,30}"
        .prop_map(|s| s.trim().to_owned())
        .prop_filter("needs text", |s| {
            !s.is_empty()
                && !s.starts_with(['#', '-', '*', '+', '`', '>'])
                && !s.chars().all(|c| c.is_ascii_digit())
        })
}

fn decision() -> impl Strategy<Value = GenDecision> {
    (
        "[a-z][a-z0-9-]{0,20}",
        line_text(),
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(("[a-z][a-z0-9_.-]{0,12}", line_text()), 0..5),
    )
        .prop_map(|(id, title, with_meta, comment, mut options)| {
            options.sort();
            options.dedup_by(|a, b| a.0 == b.0);
            GenDecision {
                id,
                title,
                with_meta,
                comment,
                options,
            }
        })
}

fn plan() -> impl Strategy<Value = GenPlan> {
    (
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(("x_[a-z]{1,8}", "[a-z0-9 ]{0,10}"), 0..3),
        any::<bool>(),
        prop::collection::vec(decision(), 1..5),
    )
        .prop_map(
            |(crlf, trailing_spaces, mut unknown_keys, with_counts, mut decisions)| {
                unknown_keys.sort();
                unknown_keys.dedup_by(|a, b| a.0 == b.0);
                let mut seen = std::collections::HashSet::new();
                for (i, d) in decisions.iter_mut().enumerate() {
                    if !seen.insert(d.id.clone()) {
                        d.id = format!("{}-{i}", d.id);
                        seen.insert(d.id.clone());
                    }
                    // A decision without a meta block takes its id from the title.
                    if !d.with_meta {
                        let from_title = slug::slug(&d.title);
                        if !from_title.is_empty() && seen.insert(from_title.clone()) {
                            d.id = from_title;
                        } else {
                            d.with_meta = true; // keeps its own unique id
                        }
                    }
                }
                GenPlan {
                    crlf,
                    trailing_spaces,
                    unknown_keys,
                    with_counts,
                    decisions,
                }
            },
        )
}

fn render(p: &GenPlan) -> String {
    let sp = if p.trailing_spaces { "  " } else { "" };
    let mut out = String::from("---\n# a comment the agent wrote\nid: gen-plan\n");
    for (k, v) in &p.unknown_keys {
        out.push_str(&format!("{k}: \"{v}\"{sp}\n"));
    }
    out.push_str("status: pending # lifecycle\n");
    if p.with_counts {
        out.push_str(&format!(
            "total: {}\nanswered: 0\nremaining: {}\n",
            p.decisions.len(),
            p.decisions.len()
        ));
    }
    out.push_str(&format!(
        "---\n\n# Generated{sp}\n\nSome context.{sp}\n\n---\n\n"
    ));
    for (i, d) in p.decisions.iter().enumerate() {
        out.push_str(&format!("## Decision {}: {}\n\n", i + 1, d.title));
        if d.with_meta {
            out.push_str(&format!("id: {}\n", d.id));
            if d.comment {
                out.push_str("status: pending   # not yet\n");
            }
            out.push_str("answer: null\n\n");
        }
        out.push_str(&format!("**Context:** {}{sp}\n\n", d.title));
        if !d.options.is_empty() {
            out.push_str("**Options:**\n");
            for (k, l) in &d.options {
                out.push_str(&format!("- `{k}` — {l}{sp}\n"));
            }
        }
        out.push_str("\n---\n\n");
    }
    if p.crlf {
        out.replace('\n', "\r\n")
    } else {
        out
    }
}

const EDITED_KEYS: [&str; 14] = [
    "status",
    "total",
    "answered",
    "remaining",
    "updated_at",
    "completed_at",
    "answer",
    "answered_at",
    "answered_by",
    "note",
    "delegated_to",
    "delegated_by",
    "signoffs",
    "",
];

/// The lines an edit of decision `target` may touch are removed; what is left must be byte-identical.
fn untargeted(text: &str, target: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut section: Option<usize> = None;
    let mut in_fm = false;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let c = lines::content(line);
        if n == 0 || (in_fm && c == "---") {
            in_fm = n == 0;
            out.push(line.to_owned());
            continue;
        }
        if c.starts_with("## ") {
            section = Some(section.map_or(0, |s| s + 1));
        }
        let key = c.split(':').next().unwrap_or("");
        let targeted =
            (in_fm || section == Some(target)) && c.contains(':') && EDITED_KEYS.contains(&key);
        let gap = section == Some(target) && c.trim().is_empty();
        if !targeted && !gap {
            out.push(line.to_owned());
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn custom_answers_round_trip_and_leave_other_lines_alone(
        p in plan(),
        pick in any::<prop::sample::Index>(),
        answer in any::<String>().prop_filter("non-empty", |s| !s.trim().is_empty()),
    ) {
        let text = render(&p);
        let before = parse(&text, "s").unwrap();
        prop_assert_eq!(before.decisions.len(), p.decisions.len());
        let target = pick.index(p.decisions.len());
        let id = before.decisions[target].id.clone();
        let edit = Edit::Custom { decision: id.clone(), text: answer.clone() };
        let after_text = apply(&text, "s", &edit, Some("42"), NOW).unwrap();
        let after = parse(&after_text, "s").unwrap();
        let d = after.decision(&id).unwrap();
        prop_assert_eq!(d.answer.as_deref(), Some(answer.as_str()));
        prop_assert_eq!(d.status, DecisionStatus::Answered);
        prop_assert_eq!(d.answered_by.as_deref(), Some("42"));
        // The `answer:` line as a YAML 1.1 reader (PyYAML) and a YAML 1.2 core-schema reader see it.
        let all = lines::split(&after_text);
        let line = d.meta_lines.clone().map(|i| all[i]).find(|l| l.starts_with("answer:")).unwrap();
        for schema in [Schema::Yaml11, Schema::Yaml12Core] {
            let read = read_flat(lines::content(line), schema);
            prop_assert!(read.is_ok(), "{:?}: {:?} in {:?}", schema, read, line);
            let read = read.unwrap_or_default();
            prop_assert_eq!(top_str(&read, "answer").and_then(|a| a.as_str()), Some(answer.as_str()), "{:?}", schema);
        }
        prop_assert_eq!((after.answered(), after.remaining()), (1, p.decisions.len() - 1));
        prop_assert_eq!(untargeted(&after_text, target), untargeted(&text, target));
        if p.crlf {
            prop_assert!(!after_text.replace("\r\n", "").contains('\n'));
        }
        for (i, (b, a)) in before.decisions.iter().zip(&after.decisions).enumerate() {
            if i != target {
                // Lines move when a key line is inserted above; everything else is the same.
                let moved = Decision { line: b.line, meta_lines: b.meta_lines.clone(), ..a.clone() };
                prop_assert_eq!(b, &moved);
            }
        }
    }

    #[test]
    fn option_answers_and_skips_round_trip(p in plan(), pick in any::<prop::sample::Index>(), skip in any::<bool>()) {
        let text = render(&p);
        let before = parse(&text, "s").unwrap();
        let target = pick.index(p.decisions.len());
        let d = &before.decisions[target];
        let edit = match d.options.first() {
            Some(o) if !skip => Edit::Answer { decision: d.id.clone(), key: o.key.clone(), label: o.label.clone() },
            _ => Edit::Skip { decision: d.id.clone() },
        };
        let after_text = apply(&text, "s", &edit, None, NOW).unwrap();
        let after = parse(&after_text, "s").unwrap();
        let got = after.decision(&d.id).unwrap();
        match &edit {
            Edit::Answer { key, .. } => prop_assert_eq!(got.answer.as_ref(), Some(key)),
            _ => prop_assert_eq!(got.status, DecisionStatus::Skipped),
        }
        prop_assert_eq!(untargeted(&after_text, target), untargeted(&text, target));
    }

    #[test]
    fn notes_round_trip_and_leave_the_answer_and_other_lines_alone(
        p in plan(),
        pick in any::<prop::sample::Index>(),
        note in any::<String>().prop_filter("non-empty", |s| !s.trim().is_empty()),
        delegate in any::<bool>(),
    ) {
        let text = render(&p);
        let before = parse(&text, "s").unwrap();
        let target = pick.index(p.decisions.len());
        let id = before.decisions[target].id.clone();
        let edit = if delegate {
            Edit::Delegate { decision: id.clone(), to: 11111111, by: 42 }
        } else {
            Edit::Note { decision: id.clone(), text: note.clone() }
        };
        let after_text = apply(&text, "s", &edit, Some("42"), NOW).unwrap();
        let after = parse(&after_text, "s").unwrap();
        let d = after.decision(&id).unwrap();
        if delegate {
            prop_assert_eq!((d.delegated_to, d.delegated_by), (Some(11111111), Some(42)));
        } else {
            prop_assert_eq!(d.note.as_deref(), Some(note.as_str()));
        }
        let b = &before.decisions[target];
        prop_assert_eq!((&d.status, &d.answer), (&b.status, &b.answer), "the answer stays");
        prop_assert_eq!(untargeted(&after_text, target), untargeted(&text, target));
    }

    #[test]
    fn parse_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = parse_bytes(&bytes, "s");
    }

    #[test]
    fn parse_never_panics_on_plan_like_text(p in plan(), cut in 0usize..2000, junk in "[-#*`:\\n ]{0,20}") {
        let text = render(&p);
        let mut cut = cut.min(text.len());
        while !text.is_char_boundary(cut) { cut -= 1; }
        let mangled = format!("{}{}{}", &text[..cut], junk, &text[cut..]);
        if let Ok(plan) = parse(&mangled, "s") {
            for d in &plan.decisions {
                let _ = apply(&mangled, "s", &Edit::Skip { decision: d.id.clone() }, None, NOW);
            }
        }
    }
}
