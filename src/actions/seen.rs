//! "What the actor saw": short fingerprints of a decision or an option as a view showed them. Every front end
//! carries one with each answer (callback data, web forms), so an action on a view the agent has since
//! changed records nothing.

use crate::plan::{Decision, DecisionOption, Kind, Plan};

/// FNV-1a 64 over `chunks`: a small, stable, dependency-free hash (not a secret; it only detects change).
#[must_use]
pub fn fnv1a64<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for chunk in chunks {
        for &b in chunk {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}

/// Length of a fingerprint in hex characters.
pub const FINGERPRINT_LEN: usize = 6;

/// 6 hex chars: the first 24 bits of FNV-1a-64 of `parts` joined by `'\0'`.
#[must_use]
pub fn fingerprint(parts: &[&str]) -> String {
    let mut chunks: Vec<&[u8]> = Vec::with_capacity(parts.len() * 2);
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            chunks.push(b"\0");
        }
        chunks.push(part.as_bytes());
    }
    format!("{:06x}", fnv1a64(chunks) >> 40)
}

/// What a view showed of a decision: for custom answers, skips and other whole-decision actions. For a `choice`
/// its id; for the other kinds also the kind, the options (keys and labels: a multi answer names them by position)
/// and an edit's proposal (approving it as is approves exactly what was shown).
#[must_use]
pub fn of_decision(d: &Decision) -> String {
    if d.kind == Kind::Choice {
        return fingerprint(&[&d.id]);
    }
    fingerprint(&with_answers_shown(vec![&d.id, d.kind.name()], d))
}

/// `parts` followed by what a decision offers to answer with: its options (keys and labels) and an edit's
/// proposal.
fn with_answers_shown<'a>(mut parts: Vec<&'a str>, d: &'a Decision) -> Vec<&'a str> {
    for o in &d.options {
        parts.push(&o.key);
        parts.push(&o.label);
    }
    if let Some(p) = d.kind.proposal() {
        parts.push(&p.text);
    }
    parts
}

/// What the decision view and its force-reply prompt showed of a decision, for text typed in reply (a custom
/// answer, a note): its id, title, context, kind, options and proposal. Stricter than [`of_decision`] (a choice's
/// id alone): the reply answers the question as it was read, so any rewrite of it since makes the reply stale.
#[must_use]
pub fn of_prompt(d: &Decision) -> String {
    fingerprint(&with_answers_shown(
        vec![&d.id, &d.title, &d.context, d.kind.name()],
        d,
    ))
}

/// What a view showed of an option (decision id, option key and label): for answers.
#[must_use]
pub fn of_option(d: &Decision, o: &DecisionOption) -> String {
    fingerprint(&[&d.id, &o.key, &o.label])
}

/// What a view showed of the plan's answers (each decision's id, status and answer): for sign-offs, which
/// approve exactly the answers shown.
#[must_use]
pub fn of_answers(plan: &Plan) -> String {
    let mut parts: Vec<&str> = Vec::with_capacity(plan.decisions.len() * 3);
    for d in &plan.decisions {
        parts.push(&d.id);
        parts.push(d.status.as_str());
        parts.push(d.answer.as_deref().unwrap_or("\0"));
    }
    fingerprint(&parts)
}
