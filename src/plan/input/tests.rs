//! What each kind accepts from a human, and what it says when it refuses.

use crate::plan::{AnswerValue, Decision, Number, parse};

use super::{prompt_for, read_input, read_picks};

/// The one decision of a plan whose decision block holds `keys` (then `body`).
fn decision(keys: &str, body: &str) -> Decision {
    let text = format!("---\nid: p\n---\n\n## Q\n\n{keys}\n{body}");
    match parse(&text, "p") {
        Ok(mut plan) => plan.decisions.remove(0),
        Err(e) => panic!("{e}"),
    }
}

fn number(n: f64) -> AnswerValue {
    AnswerValue::Number(Number::new(n).expect("a number"))
}

#[test]
fn numbers_are_read_or_refused_with_the_prompt() {
    let d = decision("kind: number\nminimum: 1\nmaximum: 10\ninteger: true", "");
    assert_eq!(prompt_for(&d), "Send a whole number from 1 to 10.");
    assert_eq!(read_input(&d, " 7 "), Ok(number(7.0)));
    assert_eq!(read_input(&d, "+10"), Ok(number(10.0)));
    let refused = [
        ("12abc", "`12abc` is not a number written in digits."),
        ("1e999", "`1e999` is not a number written in digits."),
        ("1e3", "`1e3` is not a number written in digits."),
        ("NaN", "`NaN` is not a number written in digits."),
        ("inf", "`inf` is not a number written in digits."),
        ("0x10", "`0x10` is not a number written in digits."),
        ("1,5", "`1,5` is not a number written in digits."),
        ("", "`` is not a number written in digits."),
        (".", "`.` is not a number written in digits."),
        ("-0", "`-0` is not a number I can record: send 0."),
        ("12", "12 is out of range."),
        ("0", "0 is out of range."),
        ("2.5", "2.5 is not a whole number."),
        (
            "99999999999999999999",
            "`99999999999999999999` is too large.",
        ),
    ];
    for (typed, reason) in refused {
        let e = read_input(&d, typed).expect_err(typed);
        assert_eq!(e.reason, reason, "{typed}");
        assert_eq!(
            e.to_string(),
            format!("{reason} Send a whole number from 1 to 10.")
        );
    }
    let d = decision("kind: number\nminimum: -1.5", "");
    assert_eq!(prompt_for(&d), "Send a number of at least -1.5.");
    assert_eq!(read_input(&d, "-1.25"), Ok(number(-1.25)));
    assert_eq!(read_input(&d, ".5"), Ok(number(0.5)));
    let d = decision("kind: number\nmaximum: 3", "");
    assert_eq!(prompt_for(&d), "Send a number of at most 3.");
    assert_eq!(prompt_for(&decision("kind: number", "")), "Send a number.");
}

#[test]
fn texts_are_checked_for_length_and_format() {
    let d = decision("kind: text\nmax_length: 5", "");
    assert_eq!(prompt_for(&d), "Send a text of up to 5 characters.");
    assert_eq!(
        read_input(&d, "héllo"),
        Ok(AnswerValue::Text("héllo".into()))
    );
    assert_eq!(
        read_input(&d, "hello!").map_err(|e| e.to_string()),
        Err("That text has 6 characters, more than 5. Send a text of up to 5 characters.".into())
    );
    assert_eq!(
        read_input(&d, "  ").map_err(|e| e.reason),
        Err("The answer can't be empty.".into())
    );
    let d = decision("kind: text\nmin_length: 3\nmax_length: 9", "");
    assert_eq!(prompt_for(&d), "Send a text of 3 to 9 characters.");
    assert_eq!(
        read_input(&d, "ab").map_err(|e| e.reason),
        Err("That text has 2 characters, fewer than 3.".into())
    );
    // Kept exactly as typed: tabs, line breaks, trailing spaces.
    let d = decision("kind: text", "");
    assert_eq!(prompt_for(&d), "Send a text of up to 4000 characters.");
    assert_eq!(
        read_input(&d, "a\tb \n c  "),
        Ok(AnswerValue::Text("a\tb \n c  ".into()))
    );
    assert!(read_input(&d, &"x".repeat(4001)).is_err());

    let cases = [
        ("email", "me@example.com", None),
        (
            "email",
            "me.example.com",
            Some("`me.example.com` is not an email address."),
        ),
        (
            "email",
            "me@localhost",
            Some("`me@localhost` is not an email address."),
        ),
        (
            "email",
            "a b@c.d",
            Some("`a b@c.d` is not an email address."),
        ),
        ("uri", "https://example.com/x", None),
        ("uri", "mailto:me@example.com", None),
        (
            "uri",
            "example.com/x",
            Some("`example.com/x` is not a URI with a scheme."),
        ),
        ("uri", "://x", Some("`://x` is not a URI with a scheme.")),
        ("date", "2026-02-28", None),
        ("date", "2024-02-29", None),
        ("date", "2026-02-30", Some("`2026-02-30` is not a date.")),
        ("date", "2026-2-3", Some("`2026-2-3` is not a date.")),
        ("date-time", "2026-01-30T09:00:00Z", None),
        ("date-time", "2026-01-30T09:00:00+02:00", None),
        (
            "date-time",
            "2026-01-30 09:00",
            Some("`2026-01-30 09:00` is not an RFC 3339 date and time."),
        ),
    ];
    for (format, typed, refusal) in cases {
        let d = decision(&format!("kind: text\nformat: {format}"), "");
        let got = read_input(&d, typed).map_err(|e| e.reason);
        match refusal {
            None => assert_eq!(got, Ok(AnswerValue::Text(typed.into())), "{format} {typed}"),
            Some(reason) => assert_eq!(got, Err(reason.to_owned()), "{format} {typed}"),
        }
    }
    assert_eq!(
        prompt_for(&decision("kind: text\nformat: date", "")),
        "Send a date as YYYY-MM-DD (2026-01-30)."
    );
}

#[test]
fn booleans_take_yes_or_no() {
    let d = decision("kind: boolean", "");
    assert_eq!(prompt_for(&d), "Answer yes or no.");
    for (typed, value) in [("yes", true), ("No", false), (" true ", true), ("n", false)] {
        assert_eq!(
            read_input(&d, typed),
            Ok(AnswerValue::Bool(value)),
            "{typed}"
        );
    }
    assert_eq!(
        read_input(&d, "maybe").map_err(|e| e.to_string()),
        Err("`maybe` is not yes or no. Answer yes or no.".into())
    );
}

const OPTIONS: &str = "**Options:**\n- `lint` — Lint\n- `tests` — Tests\n- `yes` — Yes\n";

#[test]
fn multi_picks_are_counted_within_min_and_max() {
    let d = decision("kind: multi\nmin: 2", OPTIONS);
    assert_eq!(prompt_for(&d), "Pick from 2 to 3 options, then tap Done.");
    assert_eq!(
        read_picks(&d, &[2, 0, 0], None),
        Ok(AnswerValue::List(vec!["lint".into(), "yes".into()]))
    );
    assert_eq!(
        read_picks(&d, &[1], None).map_err(|e| e.to_string()),
        Err("You picked 1 option. Pick from 2 to 3 options, then tap Done.".into())
    );
    assert_eq!(
        read_picks(&d, &[], None).map_err(|e| e.reason),
        Err("You picked nothing.".into())
    );
    assert_eq!(
        read_picks(&d, &[0, 5], None).map_err(|e| e.reason),
        Err("There is no option 6.".into())
    );
    assert_eq!(
        read_picks(&d, &[0, 1], Some("docs")).map_err(|e| e.reason),
        Err("This decision takes no answer of your own.".into())
    );
    let d = decision("kind: multi\nmax: 1\nallow_custom: true", OPTIONS);
    assert_eq!(
        prompt_for(&d),
        "Pick exactly 1 option (your own text counts as one), then tap Done."
    );
    assert_eq!(
        read_picks(&d, &[], Some("docs")),
        Ok(AnswerValue::List(vec!["docs".into()]))
    );
    assert!(read_picks(&d, &[0], Some("docs")).is_err());
    let d = decision("kind: multi\nmin: 0", OPTIONS);
    assert_eq!(prompt_for(&d), "Pick up to 3 options, then tap Done.");
    assert_eq!(read_picks(&d, &[], None), Ok(AnswerValue::List(vec![])));
}

#[test]
fn edits_with_format_json_keep_the_proposal_type() {
    let d = decision(
        "kind: edit\nformat: json",
        "**Proposal:**\n\n```json\n{\"cmd\": \"ls\"}\n```\n\n**Options:**\n- `reject` — Don't\n",
    );
    assert_eq!(
        prompt_for(&d),
        "Send the edited version of the proposal: JSON, an object like the proposal."
    );
    assert_eq!(
        read_input(&d, "{\"cmd\": \"ls -la\"}"),
        Ok(AnswerValue::Text("{\"cmd\": \"ls -la\"}".into()))
    );
    assert_eq!(
        read_input(&d, "[1]").map_err(|e| e.reason),
        Err("That is JSON, but an array, not an object like the proposal.".into())
    );
    assert!(
        read_input(&d, "{cmd: ls}")
            .map_err(|e| e.reason)
            .is_err_and(|r| r.starts_with("That is not JSON ("))
    );
    let d = decision("kind: edit", "**Proposal:**\n```bash\nrm -rf build/\n```\n");
    assert_eq!(prompt_for(&d), "Send the edited version of the proposal.");
    assert_eq!(
        read_input(&d, "rm -rf build/ \n\tx"),
        Ok(AnswerValue::Text("rm -rf build/ \n\tx".into()))
    );
}
