//! Tests of the plan core against the example plan (tests/fixtures/spec-example.md), the original fixture
//! and hand-made broken files.

use super::*;

const SPEC: &str = include_str!("../../tests/fixtures/spec-example.md");
const FIXTURE: &str = include_str!("../../tests/fixtures/test-plan.md");
const NOW: &str = "2026-02-01T10:00:00Z";

fn diag(text: &str) -> String {
    match parse(text, "stem") {
        Ok(p) => panic!("expected a diagnostic, parsed {p:?}"),
        Err(d) => d.to_string(),
    }
}

#[test]
fn parses_the_spec_example() {
    let plan = parse(SPEC, "file").unwrap();
    assert_eq!(plan.id, "abc123");
    assert_eq!(plan.title, "API Design Decisions");
    assert_eq!(plan.priority, Priority::Normal);
    assert_eq!(plan.status, PlanStatus::Pending);
    assert_eq!(plan.tag.as_deref(), Some("nft-marketplace"));
    assert_eq!(plan.notify_target(), Some("agent:swe2:main"));
    assert_eq!(plan.context, "Context for the human reviewer.");
    let ids: Vec<_> = plan.decisions.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["auth-strategy", "database", "caching"]);
    let auth = &plan.decisions[0];
    assert_eq!(auth.title, "Auth Strategy");
    assert_eq!(
        auth.context,
        "How should we authenticate admin panel users?"
    );
    assert_eq!(
        auth.options[0],
        DecisionOption {
            key: "jwt".into(),
            label: "JWT tokens (stateless, scalable)".into()
        }
    );
    assert_eq!(auth.options.len(), 3);
    assert_eq!(auth.status, DecisionStatus::Pending);
    assert_eq!(auth.answer, None);
    assert!(!auth.allow_custom);
    assert!(plan.decisions[2].allow_custom);
    assert_eq!(plan.decisions[2].options.len(), 3);
}

#[test]
fn parses_the_original_fixture() {
    let plan = parse(FIXTURE, "file").unwrap();
    assert_eq!(plan.id, "test-plan-123");
    assert_eq!(plan.title, "Test Plan");
    assert_eq!(plan.context, "This is the context for the test plan.");
    assert_eq!(plan.decisions.len(), 2);
    assert_eq!(plan.decisions[0].title, "First Choice");
    assert_eq!(plan.decisions[0].options[1].label, "Option B description");
    assert!(!plan.decisions[0].allow_custom);
    assert!(plan.decisions[1].allow_custom);
    assert_eq!(plan.decisions[1].context, "What should we choose second?");
}

#[test]
fn tolerates_minimal_files() {
    let text = "---\n---\n\n# Lunch\n\nPick.\n\n## Where\n\n- `a`: Place A\n- `b` - Place B\n- `c` – Place C\n- Plain text\n\n## What else?\n";
    let plan = parse(text, "my-file").unwrap();
    assert_eq!(plan.id, "my-file");
    assert_eq!(plan.title, "Lunch");
    assert_eq!(plan.context, "Pick.");
    let d = &plan.decisions[0];
    assert_eq!(d.id, "where");
    assert_eq!(
        d.options.len(),
        0,
        "no **Options:** marker means no options"
    );
    let text = text.replace("## Where\n\n", "## Where\n\n**Options:**\n");
    let plan = parse(&text, "my-file").unwrap();
    let labels: Vec<_> = plan.decisions[0]
        .options
        .iter()
        .map(|o| (o.key.as_str(), o.label.as_str()))
        .collect();
    assert_eq!(
        labels,
        [
            ("a", "Place A"),
            ("b", "Place B"),
            ("c", "Place C"),
            ("Plain text", "Plain text")
        ]
    );
    let free = &plan.decisions[1];
    assert_eq!(free.id, "what-else");
    assert!(
        free.options.is_empty(),
        "an option-less decision is a free-text question"
    );
}

#[test]
fn title_separators_and_headings() {
    for (heading, title) in [
        ("## Decision 1: Auth", "Auth"),
        ("## Decision 12 — Auth", "Auth"),
        ("## Decision 2 – Auth", "Auth"),
        ("## Decision 3 - Auth", "Auth"),
        ("## Auth", "Auth"),
        ("## Decision 4", "Decision 4"),
    ] {
        let text = format!("---\nid: p\n---\n{heading}\n\n**Options:**\n- `x` — X\n");
        assert_eq!(
            parse(&text, "s").unwrap().decisions[0].title,
            title,
            "{heading}"
        );
    }
}

#[test]
fn a_closing_hash_run_goes_only_after_a_space_or_tab() {
    // Issue 17: every trailing `#` was stripped, so `Use C#` was titled `Use C`. Expected titles are CommonMark's
    // (checked against the reference implementations commonmark.py and markdown-it-py).
    for (heading, title) in [
        ("## Decision 1: Use C#", "Use C#"),
        ("## F# and C#", "F# and C#"),
        ("## issue #", "issue"),
        ("## issue # #", "issue #"),
        ("## keep#", "keep#"),
        ("## keep#  ##", "keep#"),
        ("## foo ### b", "foo ### b"),
        ("## foo \\#", "foo \\#"),
        ("## # foo", "# foo"),
        ("  ##   foo   ##   ", "foo"),
        ("## foo #\t", "foo"),
        ("## foo\t#", "foo"),
        ("## foo \u{a0}#", "foo \u{a0}#"),
        ("## Decision 2: C# ##", "C#"),
    ] {
        let text = format!("---\nid: p\n---\n{heading}\n\n**Options:**\n- `x` — X\n");
        assert_eq!(
            parse(&text, "s").unwrap().decisions[0].title,
            title,
            "{heading:?}"
        );
    }
    let plan = parse("---\nid: p\n---\n# Title #\n\n## Use C#\n", "s").unwrap();
    assert_eq!(plan.title, "Title");
    assert_eq!(plan.decisions[0].id, "use-c");
    assert_eq!(plan.decisions[0].title, "Use C#");
    // A heading of `#` marks only is empty, as in CommonMark: the id names the decision, or it is diagnosed.
    for empty in ["## #", "## ##", "##\t#", "##"] {
        let plan = parse(&format!("---\nid: p\n---\n{empty}\nid: d\n"), "s").unwrap();
        assert_eq!(plan.decisions[0].title, "d", "{empty:?}");
        assert_eq!(
            diag(&format!("---\nid: p\n---\n{empty}\n")),
            "4: decision 1 has neither an `id:` nor a title",
            "{empty:?}"
        );
    }
}

#[test]
fn headings_in_code_blocks_and_setext_are_not_decisions() {
    let text = "---\nid: p\n---\n# T\n\n```\n## not a decision\n```\nSome text\n---\n\n## Real\n\n**Options:**\n- `x` — X\n";
    let plan = parse(text, "s").unwrap();
    assert_eq!(plan.decisions.len(), 1);
    assert_eq!(plan.decisions[0].title, "Real");
}

#[test]
fn diagnoses_missing_frontmatter() {
    assert_eq!(
        diag("# Title\n\n## D\n"),
        "1: no frontmatter: the file must start with a `---` line, then YAML, then `---`"
    );
}

#[test]
fn diagnoses_unterminated_frontmatter() {
    assert_eq!(
        diag("---\nid: x\n\n## D\n"),
        "1: unterminated frontmatter: no closing `---` line"
    );
}

#[test]
fn diagnoses_invalid_yaml_with_its_line() {
    let d = diag("---\nid: x\ntitle: [unclosed\n---\n## D\n");
    assert!(
        d.starts_with("3: invalid YAML in frontmatter:")
            || d.starts_with("4: invalid YAML in frontmatter:"),
        "{d}"
    );
}

#[test]
fn diagnoses_unknown_priority_and_status() {
    assert_eq!(
        diag("---\nid: x\npriority: asap\n---\n## D\n"),
        "3: unknown priority `asap`: use low, normal, high or urgent"
    );
    assert_eq!(
        diag("---\nid: x\nstatus: done\n---\n## D\n"),
        "3: unknown status `done`: use pending, in_progress, completed or changes_requested"
    );
    assert_eq!(
        diag("---\nid: x\n---\n## D\n\nstatus: maybe\n"),
        "6: unknown decision status `maybe`: use pending, answered or skipped"
    );
}

#[test]
fn diagnoses_duplicate_decision_ids() {
    assert_eq!(
        diag("---\nid: x\n---\n## A\n\nid: same\n\n## B\n\nid: same\n"),
        "8: duplicate decision id `same` (first used on line 4)"
    );
}

#[test]
fn diagnoses_no_decisions() {
    assert_eq!(
        diag("---\nid: x\n---\n# Only a title\n\nSome text.\n"),
        "4: no decisions: add a `## ` section for each decision, with an `**Options:**` list"
    );
}

#[test]
fn diagnoses_non_utf8() {
    let err = parse_bytes(b"---\nid: x\n---\n## D \xff\n", "s").unwrap_err();
    assert_eq!(
        err.to_string(),
        "4: not UTF-8 text: decision files must be UTF-8"
    );
}

#[test]
fn diagnoses_decision_without_id_or_title() {
    assert_eq!(
        diag("---\nid: x\n---\n##\n\nstatus: pending\n"),
        "4: decision 1 has neither an `id:` nor a title"
    );
}

#[test]
fn diagnoses_duplicate_option_keys() {
    assert_eq!(
        diag("---\nid: x\n---\n## A\n\n**Options:**\n- `k` — one\n- `k` — two\n"),
        "8: duplicate option key `k` in decision `a` (first on line 7)"
    );
}

#[test]
fn diagnostic_names_the_file() {
    let d = Diagnostic::new(3, "bad").in_file("/q/pending/x.md");
    assert_eq!(d.to_string(), "/q/pending/x.md:3: bad");
}

fn answer(text: &str, decision: &str, key: &str) -> Result<String, EditError> {
    let plan = parse(text, "s").unwrap();
    let label = plan
        .decision(decision)
        .and_then(|d| d.options.iter().find(|o| o.key == key))
        .map(|o| o.label.clone());
    apply(
        text,
        "s",
        &Edit::Answer {
            decision: decision.into(),
            key: key.into(),
            label: label.unwrap_or_default(),
        },
        Some("93533553"),
        NOW,
    )
}

/// Lines of `after` that differ from `before`, as (line number, new text).
fn changed_lines(before: &str, after: &str) -> Vec<String> {
    let b: Vec<_> = before.lines().collect();
    let a: Vec<_> = after.lines().collect();
    assert_eq!(a.len(), b.len(), "line count changed:\n{after}");
    a.iter()
        .zip(&b)
        .enumerate()
        .filter(|(_, (x, y))| x != y)
        .map(|(i, (x, _))| format!("{}: {x}", i + 1))
        .collect()
}

#[test]
fn answering_rewrites_only_the_lines_that_change() {
    let after = answer(SPEC, "auth-strategy", "jwt").unwrap();
    let changed = changed_lines(
        SPEC,
        after
            .lines()
            .filter(|l| !l.starts_with("answered_by"))
            .collect::<Vec<_>>()
            .join("\n")
            .as_str(),
    );
    assert_eq!(
        changed,
        [
            "9: status: in_progress            # pending | in_progress | completed",
            "11: updated_at: 2026-02-01T10:00:00Z",
            "14: answered: 1",
            "15: remaining: 2",
            "28: status: answered",
            "29: answer: jwt",
            "30: answered_at: 2026-02-01T10:00:00Z",
        ]
    );
    assert!(
        after.contains(
            "answered_at: 2026-02-01T10:00:00Z\nansweredX"
                .replace("X", "_by: 93533553")
                .as_str()
        )
    );
    let plan = parse(&after, "s").unwrap();
    assert_eq!(plan.decisions[0].answer.as_deref(), Some("jwt"));
    assert_eq!(plan.decisions[0].answered_by.as_deref(), Some("93533553"));
    assert_eq!(plan.status, PlanStatus::InProgress);
}

#[test]
fn custom_answers_are_quoted_and_read_back_exactly() {
    for text in [
        "null",
        "yes: but # not this",
        "line one\nline two",
        "  leading",
        "\"quoted\"",
        "true",
    ] {
        let edit = Edit::Custom {
            decision: "caching".into(),
            text: text.into(),
        };
        let after = apply(SPEC, "s", &edit, None, NOW).unwrap();
        let plan = parse(&after, "s").unwrap();
        let d = plan.decision("caching").unwrap();
        assert_eq!(d.answer.as_deref(), Some(text));
        assert!(d.is_custom_answer());
    }
}

#[test]
fn skip_then_change_answer() {
    let skipped = apply(
        SPEC,
        "s",
        &Edit::Skip {
            decision: "database".into(),
        },
        Some("1"),
        NOW,
    )
    .unwrap();
    let plan = parse(&skipped, "s").unwrap();
    assert_eq!(
        plan.decision("database").unwrap().status,
        DecisionStatus::Skipped
    );
    assert_eq!((plan.answered(), plan.remaining()), (0, 2));
    let answered = answer(&skipped, "database", "mongodb").unwrap();
    let answered = answer(&answered, "database", "postgresql").unwrap();
    let plan = parse(&answered, "s").unwrap();
    assert_eq!(
        plan.decision("database").unwrap().answer.as_deref(),
        Some("postgresql")
    );
    assert_eq!((plan.answered(), plan.remaining()), (1, 2));
    assert_eq!(
        answered.matches("answered_by:").count(),
        1,
        "the key line is rewritten, not added twice"
    );
}

#[test]
fn stale_views_record_nothing() {
    let err = answer(SPEC, "gone", "jwt").unwrap_err();
    assert!(err.is_stale());
    let edit = Edit::Answer {
        decision: "auth-strategy".into(),
        key: "jwt".into(),
        label: "Old label".into(),
    };
    let err = apply(SPEC, "s", &edit, None, NOW).unwrap_err();
    assert_eq!(
        err,
        EditError::OptionChanged {
            decision: "auth-strategy".into(),
            key: "jwt".into()
        }
    );
}

#[test]
fn submit_needs_every_decision_settled_and_then_completes() {
    assert_eq!(
        apply(SPEC, "s", &Edit::Submit, None, NOW).unwrap_err(),
        EditError::NotFinished { remaining: 3 }
    );
    let t = answer(SPEC, "auth-strategy", "jwt").unwrap();
    let t = answer(&t, "database", "postgresql").unwrap();
    let t = apply(
        &t,
        "s",
        &Edit::Skip {
            decision: "caching".into(),
        },
        None,
        NOW,
    )
    .unwrap();
    let done = apply(&t, "s", &Edit::Submit, None, "2026-02-01T11:00:00Z").unwrap();
    let plan = parse(&done, "s").unwrap();
    assert_eq!(plan.status, PlanStatus::Completed);
    assert_eq!(plan.completed_at.as_deref(), Some("2026-02-01T11:00:00Z"));
    assert!(done.contains("\nstatus: completed            # pending | in_progress | completed\n"));
    assert_eq!(
        apply(&done, "s", &Edit::Submit, None, NOW).unwrap_err(),
        EditError::Completed
    );
}

#[test]
fn missing_key_lines_are_inserted_in_their_block() {
    let text = "---\nid: p\nfoo: bar # keep me\n---\n# T\n\n## Pick\n**Options:**\n- `a` — A\n";
    let after = answer(text, "pick", "a").unwrap();
    assert_eq!(
        after,
        "---\nid: p\nfoo: bar # keep me\nstatus: in_progress\ntotal: 1\nanswered: 1\nremaining: 0\nupdated_at: 2026-02-01T10:00:00Z\n---\n# T\n\n## Pick\nstatus: answered\nanswer: a\nanswered_at: 2026-02-01T10:00:00Z\nanswered_by: 93533553\n\n**Options:**\n- `a` — A\n"
    );
}

#[test]
fn crlf_files_stay_crlf() {
    let crlf = SPEC.replace('\n', "\r\n");
    let after = answer(&crlf, "caching", "redis").unwrap();
    assert!(
        !after.replace("\r\n", "").contains('\n'),
        "a bare LF was written"
    );
    assert_eq!(
        parse(&after, "s")
            .unwrap()
            .decision("caching")
            .unwrap()
            .answer
            .as_deref(),
        Some("redis")
    );
}

#[test]
fn quoted_and_commented_values_keep_their_comment() {
    let text = "---\nid: p\nstatus: \"pending\" # who # knows\n---\n## D\n\nanswer: 'it''s' # c\nstatus: pending\n**Options:**\n- `a` — A\n";
    let after = answer(text, "d", "a").unwrap();
    assert!(
        after.contains("\nstatus: in_progress # who # knows\n"),
        "{after}"
    );
    assert!(after.contains("\nanswer: a # c\n"), "{after}");
}

#[test]
fn a_lone_carriage_return_is_not_a_line_break_and_does_not_panic() {
    // Found by fuzzing: CommonMark sees two headings where the file has one line.
    let plan = parse("---\n---\n## A\r## B\n", "s").unwrap();
    assert_eq!(plan.decisions.len(), 1);
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/fuzz-parse-crash-1.md"
    ))
    .unwrap();
    let _ = parse_bytes(&bytes, "s");
}

#[test]
fn a_frontmatter_key_with_a_colon_is_not_mistaken_for_one_the_edit_owns() {
    // Found by fuzzing: `status:x` is its own key; the edit must add `status`, not overwrite it.
    let text = "---\nstatus:x: 1\n---\n## A\n";
    let after = apply(
        text,
        "s",
        &Edit::Skip {
            decision: "a".into(),
        },
        None,
        NOW,
    )
    .unwrap();
    assert!(
        after.starts_with("---\nstatus:x: 1\nstatus: in_progress\n"),
        "{after}"
    );
}

#[test]
fn a_key_look_alike_inside_a_quoted_value_is_left_alone() {
    // Found by fuzzing: the `status:` line is part of `x`'s quoted value, not a key.
    let text = "---\nx: \"a\nstatus: pending # \"\n---\n## A\n";
    let after = apply(
        text,
        "s",
        &Edit::Skip {
            decision: "a".into(),
        },
        None,
        NOW,
    )
    .unwrap();
    assert!(
        after.starts_with("---\nx: \"a\nstatus: pending # \"\nstatus: in_progress\n"),
        "{after}"
    );
    assert_eq!(parse(&after, "s").unwrap().status, PlanStatus::InProgress);
}

/// Replays every fuzz reproducer as the edit target reads it (the file is everything before the last NUL byte):
/// skipping each decision in turn writes a file that parses, holds the skip, and leaves the other decisions, and
/// the skipped one's id, title, context and options, as they were.
#[test]
fn fuzz_reproducers_replay_cleanly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/regressions");
    let mut replayed = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.display();
        let bytes = std::fs::read(&path).unwrap();
        let file = bytes
            .iter()
            .rposition(|&b| b == 0)
            .map_or(&bytes[..], |nul| &bytes[..nul]);
        let Ok(before) = parse_bytes(file, "s") else {
            continue;
        };
        let text = std::str::from_utf8(file).unwrap();
        for (i, d) in before.decisions.iter().enumerate() {
            let skip = Edit::Skip {
                decision: d.id.clone(),
            };
            let Ok(new) = apply(text, "s", &skip, None, NOW) else {
                continue;
            };
            replayed += 1;
            let after = parse(&new, "s").unwrap_or_else(|e| {
                panic!("{name}: {skip:?} wrote an unreadable file: {e}\n{new}")
            });
            assert_eq!(
                after.decisions.len(),
                before.decisions.len(),
                "{name}: {skip:?}\n{new}"
            );
            for (j, (a, b)) in before.decisions.iter().zip(&after.decisions).enumerate() {
                let shown = |x: &Decision| {
                    (
                        x.id.clone(),
                        x.title.clone(),
                        x.context.clone(),
                        x.options.clone(),
                    )
                };
                assert_eq!(shown(a), shown(b), "{name}: {skip:?}, decision {j}\n{new}");
                if i == j {
                    assert_eq!(b.status, DecisionStatus::Skipped, "{name}: {skip:?}\n{new}");
                } else {
                    assert_eq!(
                        (a.status, &a.answer),
                        (b.status, &b.answer),
                        "{name}: {skip:?}\n{new}"
                    );
                }
            }
        }
    }
    assert!(replayed > 0, "no reproducer reached an edit");
}

#[test]
fn a_line_break_only_yaml_sees_in_the_frontmatter_is_diagnosed() {
    // Found by fuzzing: `completed_at: x\rextra: 1` is two keys to YAML and one line to an edit, so Submit would
    // rewrite `completed_at` and drop `extra` (caught before writing, but the plan could never be submitted).
    for brk in ["\r", "\u{85}", "\u{2028}", "\u{2029}"] {
        let both: serde_yaml::Mapping = serde_yaml::from_str(&format!("a: x{brk}b: y\n")).unwrap();
        assert_eq!(both.len(), 2, "YAML breaks the line at {brk:?}");
        assert_eq!(
            diag(&format!(
                "---\nid: p\ncompleted_at: null{brk}extra: 1\n---\n## A\n"
            )),
            "3: a line break other than LF or CRLF (a lone CR, U+0085, U+2028 or U+2029) in the frontmatter: \
             save the file with LF or CRLF line endings"
        );
    }
    // CRLF is a line ending, and the body may hold anything.
    assert!(parse("---\r\nid: p\r\n---\r\n## A\r\n\rx\u{2028}\r\n", "s").is_ok());
}

#[test]
fn an_owned_key_is_rewritten_on_the_line_yaml_reads_not_a_look_alike_in_a_quoted_value() {
    // Found by fuzzing: once YAML sees `total`, edits rewrote the first line that looks like `total:`, here
    // inside the quoted value of `x`: the quote was cut, so every edit was refused and nothing could be answered.
    let text = "---\nid: p\nx: \"a\ntotal: 5 # not a key\"\ntotal: 1\n---\n## A\n## B\n";
    let skip = |text: &str, d: &str| {
        apply(text, "s", &Edit::Skip { decision: d.into() }, None, NOW).unwrap()
    };
    let new = skip(text, "a");
    assert_eq!(
        new,
        format!(
            "---\nid: p\nx: \"a\ntotal: 5 # not a key\"\ntotal: 2\nstatus: in_progress\nanswered: 0\n\
             remaining: 1\nupdated_at: {NOW}\n---\n## A\nstatus: skipped\nanswer: null\nanswered_at: {NOW}\n\n## B\n"
        )
    );
    let new = apply(&skip(&new, "b"), "s", &Edit::Submit, None, NOW).unwrap();
    let fm: serde_yaml::Mapping = serde_yaml::from_str(new.split("---\n").nth(1).unwrap()).unwrap();
    assert_eq!(
        fm.get("x").and_then(|v| v.as_str()),
        Some("a total: 5 # not a key")
    );
    assert_eq!(parse(&new, "s").unwrap().status, PlanStatus::Completed);
}

#[test]
fn a_setext_heading_starting_with_a_hash_is_not_a_decision() {
    // Found by fuzzing: `#:` underlined by `-` is a setext heading, not a `## ` section. It was taken for one,
    // so a Skip that inserted a blank line before such a paragraph cut the skipped decision's context off.
    let text = "---\nid: x\n---\n## A\n\n#:\n-\n\n#######\n---\n";
    let plan = parse(text, "s").unwrap();
    assert_eq!(plan.decisions.len(), 1);
    assert_eq!(plan.decisions[0].context, "#:\n-\n\n#######");
    let new = apply(
        "---\n---\n##\r\0\n#:\n-",
        "s",
        &Edit::Skip {
            decision: "decision-1".into(),
        },
        None,
        NOW,
    )
    .unwrap();
    let after = parse(&new, "s").unwrap();
    assert_eq!(after.decisions.len(), 1);
    assert_eq!(after.decisions[0].context, "#:\n-");
}

#[test]
fn a_key_given_twice_in_a_decision_is_diagnosed() {
    // Found by fuzzing: with two `answered_by:` lines an edit rewrote the first while readers took the second.
    assert_eq!(
        diag("---\nid: x\n---\n## A\n\nanswered_by: 1\nanswered_by: 2\n"),
        "7: `answered_by` given twice in decision 1 (first on line 6)"
    );
}

#[test]
fn a_key_given_twice_among_many_is_diagnosed() {
    // Past a handful of keys the decision block is indexed rather than searched: the same diagnosis either way.
    let mut text = String::from("---\nid: x\n---\n## A\n\n");
    for k in 0..40 {
        text.push_str(&format!("k{k}: v\n"));
    }
    text.push_str("k3: again\n\n**Options:**\n- `a` — A\n");
    assert_eq!(
        diag(&text),
        "46: `k3` given twice in decision 1 (first on line 9)"
    );
    let mut text = String::from("---\nid: x\n---\n## A\n\n");
    for k in 0..40 {
        text.push_str(&format!("k{k}: v\n"));
    }
    text.push_str("k39: again\n\n**Options:**\n- `a` — A\n");
    assert_eq!(
        diag(&text),
        "46: `k39` given twice in decision 1 (first on line 45)"
    );
}
