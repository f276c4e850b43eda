//! Typed inline-button callback data, always within Telegram's 64-byte limit.
//!
//! Plan, decision and option ids can be far longer than 64 bytes, so callback data carries short
//! references: a [`PlanRef`] (48-bit hash of the plan id), positions, and a [`fingerprint`] of what
//! the button showed, so a tap on a view the agent has since changed can be refused.
//!
//! Encoding (`:`-separated, numbers in canonical decimal, hashes in lowercase hex):
//! `q:<page>`, `o:<ref>`, `c:<ref>`, `s:<ref>:<i>`, `a:<ref>:<i>:<o>:<fp>`, `u:<ref>:<i>:<fp>`,
//! `k:<ref>:<i>:<fp>`, `r:<ref>`, `x:<ref>`, `w:<ref>:<fp>` (request changes), `f:<ref>`, `n`, and for people: `m:<ref>:<i>:<fp>` (note),
//! `d:<ref>:<i>:<fp>` (delegate: pick a person), `g:<ref>:<i>:<user>:<fp>` (delegate to that user id),
//! `b:<ref>:<i>:<fp>` (take back), `v:<ref>:<fp>` (sign off), and for the answer kinds: `t:<ref>:<i>:<o>:<fp>`
//! (toggle a `multi` option), `e:<ref>:<i>:<fp>` (Done), `y:<ref>:<i>:<0|1>:<fp>` (No / Yes), `p:<ref>:<i>:<fp>`
//! (approve an `edit` proposal as is), `z:<ref>:<fp>` (decline an elicitation plan). The longest is 54 bytes
//! (`g:` with a 20-digit user id).

use std::fmt;

pub use crate::actions::seen::fingerprint;
use crate::actions::seen::{FINGERPRINT_LEN, fnv1a64};

/// Telegram's limit on `callback_data`, in bytes.
pub const MAX_CALLBACK_BYTES: usize = 64;
const PLAN_REF_LEN: usize = 12;

/// Short reference to a plan: 12 lowercase hex chars, the first 48 bits of FNV-1a-64 of its id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PlanRef(pub String);

impl fmt::Display for PlanRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The [`PlanRef`] of a plan id.
#[must_use]
pub fn plan_ref(plan_id: &str) -> PlanRef {
    PlanRef(format!("{:012x}", plan_ref_bits(plan_id)))
}

/// The 48 bits a [`PlanRef`] of `plan_id` writes in hex (a lookup key that needs no allocation).
#[must_use]
pub fn plan_ref_bits(plan_id: &str) -> u64 {
    fnv1a64([plan_id.as_bytes()]) >> 16
}

impl PlanRef {
    /// The bits this reference writes ([`plan_ref_bits`]); `None` for text that is no reference.
    #[must_use]
    pub fn bits(&self) -> Option<u64> {
        (self.0.len() == PLAN_REF_LEN)
            .then(|| u64::from_str_radix(&self.0, 16).ok())
            .flatten()
    }
}

/// What an inline button does when tapped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Callback {
    /// 🔄 Refresh / 📋 Back to Queue / page buttons.
    Queue { page: u16 },
    /// Open the plan view.
    Open { plan: PlanRef },
    /// ▶️ Continue: the first pending decision.
    Continue { plan: PlanRef },
    /// Navigate to decision `index` (0-based).
    Show { plan: PlanRef, index: u16 },
    /// Pick option `option`; `seen` = fingerprint(decision id, option key, option label).
    Answer {
        plan: PlanRef,
        index: u16,
        option: u16,
        seen: String,
    },
    /// Ask for a custom answer; `seen` = fingerprint(decision id).
    Custom {
        plan: PlanRef,
        index: u16,
        seen: String,
    },
    /// Skip the decision; `seen` = fingerprint(decision id).
    Skip {
        plan: PlanRef,
        index: u16,
        seen: String,
    },
    /// The review summary.
    Review { plan: PlanRef },
    /// Submit the plan, with the answers the view showed (`seen::of_answers`).
    Submit { plan: PlanRef, seen: String },
    /// 🔁 Request changes: ask for the owner's request, on the answers the view showed (`seen::of_answers`).
    RequestChanges { plan: PlanRef, seen: String },
    /// 📄 Full context: send the plan's file as a document.
    FullContext { plan: PlanRef },
    /// 💬 Note: ask for a note on the decision; `seen` = fingerprint(decision id).
    Note {
        plan: PlanRef,
        index: u16,
        seen: String,
    },
    /// 👉 Delegate: pick the person to delegate the decision to; `seen` = fingerprint(decision id).
    DelegateMenu {
        plan: PlanRef,
        index: u16,
        seen: String,
    },
    /// Delegate the decision to user `to`; `seen` = fingerprint(decision id).
    Delegate {
        plan: PlanRef,
        index: u16,
        to: u64,
        seen: String,
    },
    /// ↩️ Take back a delegated decision; `seen` = fingerprint(decision id).
    TakeBack {
        plan: PlanRef,
        index: u16,
        seen: String,
    },
    /// ✅ Sign off; `seen` = fingerprint of every decision's answer as the review showed them.
    SignOff { plan: PlanRef, seen: String },
    /// ☐/☑ Toggle option `option` of a `multi` decision (kept in the bot's memory until Done); `seen` =
    /// fingerprint of the decision (`seen::of_decision`: its options too).
    Toggle {
        plan: PlanRef,
        index: u16,
        option: u16,
        seen: String,
    },
    /// ✅ Done: answer the `multi` decision with the options toggled; `seen` = fingerprint of the decision.
    Done {
        plan: PlanRef,
        index: u16,
        seen: String,
    },
    /// ✅ Yes / ❌ No on a `boolean` decision; `seen` = fingerprint of the decision.
    Boolean {
        plan: PlanRef,
        index: u16,
        yes: bool,
        seen: String,
    },
    /// ✅ Approve as is: an `edit` decision's proposal; `seen` = fingerprint of the decision (its proposal too).
    Approve {
        plan: PlanRef,
        index: u16,
        seen: String,
    },
    /// ❌ Decline an elicitation plan as a whole, with the answers the view showed (`seen::of_answers`).
    Decline { plan: PlanRef, seen: String },
    /// `/rules`, page `page`.
    Rules { page: u16 },
    /// ⏸ Pause / ▶️ Resume / 🗑 Revoke a standing rule.
    Rule { op: RuleOp, rule: String },
    /// 🔁 Always answer: a standing rule from the completed plan, as the offer showed it (`seen`).
    AlwaysAnswer { plan: PlanRef, seen: String },
    /// The "1/3" position indicator: does nothing.
    Noop,
}

/// What a rule button does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleOp {
    Pause,
    Resume,
    Revoke,
}

impl RuleOp {
    fn letter(self) -> char {
        match self {
            RuleOp::Pause => 'p',
            RuleOp::Resume => 'r',
            RuleOp::Revoke => 'v',
        }
    }
}

/// Longest rule id a button carries (ids Arbiter makes are 8 characters).
pub const MAX_RULE_ID: usize = 32;

impl Callback {
    /// The compact `callback_data` string (at most 54 bytes for well-formed refs).
    #[must_use]
    pub fn encode(&self) -> String {
        match self {
            Self::Queue { page } => format!("q:{page}"),
            Self::Open { plan } => format!("o:{plan}"),
            Self::Continue { plan } => format!("c:{plan}"),
            Self::Show { plan, index } => format!("s:{plan}:{index}"),
            Self::Answer {
                plan,
                index,
                option,
                seen,
            } => format!("a:{plan}:{index}:{option}:{seen}"),
            Self::Custom { plan, index, seen } => format!("u:{plan}:{index}:{seen}"),
            Self::Skip { plan, index, seen } => format!("k:{plan}:{index}:{seen}"),
            Self::Review { plan } => format!("r:{plan}"),
            Self::Submit { plan, seen } => format!("x:{plan}:{seen}"),
            Self::RequestChanges { plan, seen } => format!("w:{plan}:{seen}"),
            Self::FullContext { plan } => format!("f:{plan}"),
            Self::Note { plan, index, seen } => format!("m:{plan}:{index}:{seen}"),
            Self::DelegateMenu { plan, index, seen } => format!("d:{plan}:{index}:{seen}"),
            Self::Delegate {
                plan,
                index,
                to,
                seen,
            } => format!("g:{plan}:{index}:{to}:{seen}"),
            Self::TakeBack { plan, index, seen } => format!("b:{plan}:{index}:{seen}"),
            Self::SignOff { plan, seen } => format!("v:{plan}:{seen}"),
            Self::Toggle {
                plan,
                index,
                option,
                seen,
            } => format!("t:{plan}:{index}:{option}:{seen}"),
            Self::Done { plan, index, seen } => format!("e:{plan}:{index}:{seen}"),
            Self::Boolean {
                plan,
                index,
                yes,
                seen,
            } => format!("y:{plan}:{index}:{}:{seen}", u8::from(*yes)),
            Self::Approve { plan, index, seen } => format!("p:{plan}:{index}:{seen}"),
            Self::Decline { plan, seen } => format!("z:{plan}:{seen}"),
            Self::Rules { page } => format!("i:{page}"),
            Self::Rule { op, rule } => format!("h:{}:{rule}", op.letter()),
            Self::AlwaysAnswer { plan, seen } => format!("l:{plan}:{seen}"),
            Self::Noop => "n".to_owned(),
        }
    }

    /// Parses callback data; `None` for anything that [`Callback::encode`] would not produce.
    #[must_use]
    pub fn decode(s: &str) -> Option<Callback> {
        if s.len() > MAX_CALLBACK_BYTES {
            return None;
        }
        let fields: Vec<&str> = s.split(':').collect();
        let callback = match fields.as_slice() {
            ["q", page] => Self::Queue {
                page: number(page)?,
            },
            ["o", plan] => Self::Open {
                plan: plan_field(plan)?,
            },
            ["c", plan] => Self::Continue {
                plan: plan_field(plan)?,
            },
            ["s", plan, index] => Self::Show {
                plan: plan_field(plan)?,
                index: number(index)?,
            },
            ["a", plan, index, option, seen] => Self::Answer {
                plan: plan_field(plan)?,
                index: number(index)?,
                option: number(option)?,
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["u", plan, index, seen] => Self::Custom {
                plan: plan_field(plan)?,
                index: number(index)?,
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["k", plan, index, seen] => Self::Skip {
                plan: plan_field(plan)?,
                index: number(index)?,
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["r", plan] => Self::Review {
                plan: plan_field(plan)?,
            },
            ["x", plan, seen] => Self::Submit {
                plan: plan_field(plan)?,
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["w", plan, seen] => Self::RequestChanges {
                plan: plan_field(plan)?,
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["f", plan] => Self::FullContext {
                plan: plan_field(plan)?,
            },
            ["m", plan, index, seen] => Self::Note {
                plan: plan_field(plan)?,
                index: number(index)?,
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["d", plan, index, seen] => Self::DelegateMenu {
                plan: plan_field(plan)?,
                index: number(index)?,
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["g", plan, index, to, seen] => Self::Delegate {
                plan: plan_field(plan)?,
                index: number(index)?,
                to: user_id(to)?,
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["b", plan, index, seen] => Self::TakeBack {
                plan: plan_field(plan)?,
                index: number(index)?,
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["v", plan, seen] => Self::SignOff {
                plan: plan_field(plan)?,
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["t", plan, index, option, seen] => Self::Toggle {
                plan: plan_field(plan)?,
                index: number(index)?,
                option: number(option)?,
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["e", plan, index, seen] => Self::Done {
                plan: plan_field(plan)?,
                index: number(index)?,
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["y", plan, index, yes, seen] => Self::Boolean {
                plan: plan_field(plan)?,
                index: number(index)?,
                yes: match *yes {
                    "1" => true,
                    "0" => false,
                    _ => return None,
                },
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["p", plan, index, seen] => Self::Approve {
                plan: plan_field(plan)?,
                index: number(index)?,
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["z", plan, seen] => Self::Decline {
                plan: plan_field(plan)?,
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["i", page] => Self::Rules {
                page: number(page)?,
            },
            ["h", op, rule] => Self::Rule {
                op: match *op {
                    "p" => RuleOp::Pause,
                    "r" => RuleOp::Resume,
                    "v" => RuleOp::Revoke,
                    _ => return None,
                },
                rule: rule_id(rule)?,
            },
            ["l", plan, seen] => Self::AlwaysAnswer {
                plan: plan_field(plan)?,
                seen: hex(seen, FINGERPRINT_LEN)?,
            },
            ["n"] => Self::Noop,
            _ => return None,
        };
        Some(callback)
    }
}

/// Canonical decimal u16: digits only, no sign, no leading zero.
fn number(s: &str) -> Option<u16> {
    let canonical =
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    if canonical { s.parse().ok() } else { None }
}

/// Canonical decimal user id: digits only, no leading zero, not 0.
fn user_id(s: &str) -> Option<u64> {
    let canonical = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && !s.starts_with('0');
    if canonical { s.parse().ok() } else { None }
}

fn hex(s: &str, len: usize) -> Option<String> {
    let ok = s.len() == len
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    ok.then(|| s.to_owned())
}

/// A rule id as a button may carry it: 1 to [`MAX_RULE_ID`] lowercase letters and digits.
#[must_use]
pub fn rule_id(s: &str) -> Option<String> {
    let ok = !s.is_empty()
        && s.len() <= MAX_RULE_ID
        && s.bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase());
    ok.then(|| s.to_owned())
}

fn plan_field(s: &str) -> Option<PlanRef> {
    hex(s, PLAN_REF_LEN).map(PlanRef)
}

#[cfg(test)]
#[path = "callback_tests.rs"]
mod tests;
