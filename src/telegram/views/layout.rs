//! Layout rules shared by the views: Telegram's limits, progressive shrinking, cutting and escaping
//! dynamic strings, button grids.

use crate::actions::seen;
use crate::plan::{Outline, Plan, Priority};
use crate::telegram::callback::{Callback, PlanRef, plan_ref};
use crate::telegram::markdown::{escape, escape_code, truncate};
use crate::telegram::markdown_check::{parse_markdown_v2, telegram_length};

use super::Button;

/// Longest message text, in UTF-16 units after entity parsing.
pub const MAX_TEXT: usize = 4096;
/// Most buttons in one inline keyboard.
pub const MAX_BUTTONS: usize = 100;
/// Most buttons in one keyboard row.
pub const MAX_BUTTONS_PER_ROW: usize = 8;
/// Longest button text, in UTF-16 units (which also bounds it in characters).
pub const MAX_BUTTON_TEXT: usize = 64;
/// Most option buttons on a decision view: the keyboard also has the navigation row (3), Custom + Skip, Note +
/// Delegate (or Take back), Full context and Back to Plan; a `multi` decision's Done replaces Custom.
pub(super) const MAX_OPTION_BUTTONS: usize = 90;
const _: () = assert!(MAX_OPTION_BUTTONS + 9 <= MAX_BUTTONS);
/// Most decisions listed as buttons in the plan and review views (leaves room for their last rows).
pub(super) const MAX_DECISION_BUTTONS: usize = 96;

/// How long dynamic strings may be at one shrink level, in UTF-16 units before escaping.
#[derive(Debug, Clone, Copy)]
pub(super) struct Caps {
    /// Plan and decision titles.
    pub title: usize,
    /// Option labels, answers, tags, agents, sessions, file names.
    pub label: usize,
    /// Contexts and error reasons.
    pub context: usize,
    /// Lines of a list that has no paging (the completion summary).
    pub items: usize,
}

const NONE: usize = usize::MAX;

/// Shrink levels, tried in order until the text fits. The last one fits every view by construction:
/// its lists are bounded (≤ 90 options, ≤ 30 summary lines, ≤ 10 queue lines) and so are its strings.
const LEVELS: [Caps; 5] = [
    Caps {
        title: NONE,
        label: NONE,
        context: NONE,
        items: NONE,
    },
    Caps {
        title: 256,
        label: 256,
        context: 2000,
        items: NONE,
    },
    Caps {
        title: 100,
        label: 100,
        context: 600,
        items: 100,
    },
    Caps {
        title: 60,
        label: 48,
        context: 200,
        items: 50,
    },
    Caps {
        title: 32,
        label: 24,
        context: 0,
        items: 30,
    },
];

/// True when `text` is valid MarkdownV2, not blank, and within [`MAX_TEXT`] after parsing.
pub(super) fn fits(text: &str) -> bool {
    parse_markdown_v2(text)
        .is_ok_and(|plain| !plain.trim().is_empty() && telegram_length(&plain) <= MAX_TEXT)
}

/// Units a context adds besides its own text (the blank line before it).
const CONTEXT_SEPARATOR: usize = 2;

/// What a view's text builder returns: the text, and whether a context in it was cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Draft {
    pub text: String,
    /// A context was left out in part: the view offers `📄 Full context`.
    pub cut: bool,
}

impl From<String> for Draft {
    fn from(text: String) -> Draft {
        Draft { text, cut: false }
    }
}

/// The first draft `build` makes, from the loosest caps to the tightest, whose text [`fits`].
///
/// At each level where the text is too long, the context gets whatever room the rest leaves (up to
/// the level's cap), so a long context is cut only as much as needed.
pub(super) fn fit_first(build: impl Fn(Caps) -> Draft) -> Option<Draft> {
    LEVELS.into_iter().find_map(|caps| {
        let draft = build(caps);
        if fits(&draft.text) {
            return Some(draft);
        }
        let without_context = build(Caps { context: 0, ..caps });
        let rest = parse_markdown_v2(&without_context.text)
            .ok()
            .map(|plain| telegram_length(&plain))?;
        let room = MAX_TEXT.checked_sub(rest + CONTEXT_SEPARATOR)?;
        let draft = build(Caps {
            context: room.min(caps.context),
            ..caps
        });
        fits(&draft.text).then_some(draft)
    })
}

/// Like [`fit_first`], falling back to the tightest level's draft (which fits by construction).
pub(super) fn fit(build: impl Fn(Caps) -> Draft) -> Draft {
    fit_first(&build).unwrap_or_else(|| build(LEVELS[LEVELS.len() - 1]))
}

/// One line of display text: every control character (line breaks included) becomes a space, trimmed.
pub(super) fn flat(s: &str) -> String {
    let spaced: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    spaced.trim().to_owned()
}

/// Block text: control characters other than `\n` become spaces (`\r\n` becomes `\n`), trimmed.
pub(super) fn block(s: &str) -> String {
    let normalized = s.replace("\r\n", "\n");
    let spaced: String = normalized
        .chars()
        .map(|c| if c.is_control() && c != '\n' { ' ' } else { c })
        .collect();
    spaced.trim().to_owned()
}

/// A one-line dynamic string, cut to `max` and escaped for MarkdownV2.
pub(super) fn line(s: &str, max: usize) -> String {
    escape(&truncate(&flat(s), max))
}

/// An answer or option key as inline code, cut to `max`; `_(empty)_` for a blank one.
pub(super) fn code_line(s: &str, max: usize) -> String {
    let shown = truncate(&flat(s), max);
    if shown.is_empty() {
        return "_\\(empty\\)_".to_owned();
    }
    format!("`{}`", escape_code(&shown))
}

/// Button text: `prefix` followed by `s` (one line), cut so the whole stays within [`MAX_BUTTON_TEXT`].
pub(super) fn button_text(prefix: &str, s: &str) -> String {
    let room = MAX_BUTTON_TEXT.saturating_sub(prefix.encode_utf16().count());
    let text = format!("{prefix}{}", truncate(&flat(s), room));
    if text.trim().is_empty() {
        return "·".to_owned();
    }
    text
}

/// The option letter of position `i`: A…Z, then AA, AB… (bijective base 26).
#[must_use]
pub(super) fn letter(mut i: usize) -> String {
    let mut out = Vec::new();
    loop {
        out.push(char::from(b'A' + (i % 26) as u8));
        if i < 26 {
            break;
        }
        i = i / 26 - 1;
    }
    out.iter().rev().collect()
}

/// `buttons` laid out in rows of `width`.
pub(super) fn rows_of(buttons: Vec<Button>, width: usize) -> Vec<Vec<Button>> {
    let mut rows = Vec::new();
    let mut row = Vec::with_capacity(width);
    for button in buttons {
        row.push(button);
        if row.len() == width {
            rows.push(std::mem::take(&mut row));
        }
    }
    if !row.is_empty() {
        rows.push(row);
    }
    rows
}

/// A position as callback data, or `None` past `u16::MAX` (such a button is left out).
pub(super) fn index16(i: usize) -> Option<u16> {
    u16::try_from(i).ok()
}

/// The callback reference of a plan.
pub(super) fn pref<P: Outline + ?Sized>(plan: &P) -> PlanRef {
    plan_ref(plan.id())
}

/// `📋 Back to Queue`-style button to the first queue page.
pub(super) fn to_queue(text: &str) -> Button {
    Button::new(text, Callback::Queue { page: 0 })
}

/// Answered + skipped.
pub(super) fn settled<P: Outline + ?Sized>(plan: &P) -> usize {
    plan.decision_count() - plan.pending_decisions()
}

/// `🔴 1 urgent │ 🟡 2 normal`: non-zero counts, most urgent first.
pub(super) fn priority_counts<P: Outline>(plans: &[&P]) -> String {
    priority_counts_of(
        Priority::ALL.map(|p| plans.iter().filter(|plan| plan.priority() == p).count()),
    )
}

/// [`priority_counts`] from the number of plans of each priority, in [`Priority::ALL`]'s order.
pub(super) fn priority_counts_of(counts: [usize; 4]) -> String {
    Priority::ALL
        .into_iter()
        .zip(counts)
        .filter(|&(_, n)| n > 0)
        .map(|(p, n)| format!("{} {n} {}", p.icon(), p.as_str()))
        .collect::<Vec<_>>()
        .join(" │ ")
}

/// `n decisions` / `1 decision`.
pub(super) fn decisions_word(n: usize) -> String {
    if n == 1 {
        "1 decision".to_owned()
    } else {
        format!("{n} decisions")
    }
}

/// `\[tag\] ` for a plan with a tag, else nothing.
pub(super) fn tag_prefix<P: Outline + ?Sized>(plan: &P, caps: Caps) -> String {
    match plan.tag().map(flat) {
        Some(tag) if !tag.is_empty() => format!("\\[{}\\] ", line(&tag, caps.label)),
        _ => String::new(),
    }
}

/// `🔁 Request changes`: the owner types what the agent should change, and the plan goes back to it.
pub(super) fn request_changes(plan: &Plan) -> Button {
    Button::new(
        "🔁 Request changes",
        Callback::RequestChanges {
            plan: pref(plan),
            seen: seen::of_answers(plan),
        },
    )
}

/// `📤 Submit`, or on a plan that needs sign-offs `✅ Sign off (k/N)` carrying the answers it approves.
pub(super) fn submit_button(plan: &Plan) -> Button {
    if plan.approval.needs_signoffs() {
        let data = Callback::SignOff {
            plan: pref(plan),
            seen: seen::of_answers(plan),
        };
        Button::new(sign_off_label(plan), data)
    } else {
        Button::new(
            "📤 Submit",
            Callback::Submit {
                plan: pref(plan),
                seen: seen::of_answers(plan),
            },
        )
    }
}

/// `✅ Sign off (1/2)`: the sign-offs so far and how many the plan needs.
#[must_use]
pub fn sign_off_label(plan: &Plan) -> String {
    format!(
        "✅ Sign off ({}/{})",
        plan.approval.signoffs.len(),
        plan.approval.require
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_are_bijective_base_26() {
        let cases = [
            (0, "A"),
            (2, "C"),
            (25, "Z"),
            (26, "AA"),
            (27, "AB"),
            (51, "AZ"),
            (52, "BA"),
            (701, "ZZ"),
            (702, "AAA"),
        ];
        for (i, want) in cases {
            assert_eq!(letter(i), want, "letter({i})");
        }
    }

    #[test]
    fn strings_are_flattened_and_escaped() {
        assert_eq!(line(" a\nb\r\tc. ", NONE), "a b  c\\.");
        assert_eq!(block("a\r\nb\u{0}c\n\n"), "a\nb c");
        assert_eq!(code_line("x`y", NONE), "`x\\`y`");
        assert_eq!(code_line(" \n", NONE), "_\\(empty\\)_");
        assert_eq!(
            button_text("⬜ 1. ", &"x".repeat(100))
                .encode_utf16()
                .count(),
            64
        );
    }
}
