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
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn every_variant(plan: &PlanRef, n: u16, seen: &str) -> Vec<Callback> {
        let plan = || plan.clone();
        let seen = seen.to_owned();
        vec![
            Callback::Queue { page: n },
            Callback::Open { plan: plan() },
            Callback::Continue { plan: plan() },
            Callback::Show {
                plan: plan(),
                index: n,
            },
            Callback::Answer {
                plan: plan(),
                index: n,
                option: n,
                seen: seen.clone(),
            },
            Callback::Custom {
                plan: plan(),
                index: n,
                seen: seen.clone(),
            },
            Callback::Skip {
                plan: plan(),
                index: n,
                seen: seen.clone(),
            },
            Callback::Review { plan: plan() },
            Callback::Submit {
                plan: plan(),
                seen: seen.clone(),
            },
            Callback::RequestChanges {
                plan: plan(),
                seen: seen.clone(),
            },
            Callback::FullContext { plan: plan() },
            Callback::Note {
                plan: plan(),
                index: n,
                seen: seen.clone(),
            },
            Callback::DelegateMenu {
                plan: plan(),
                index: n,
                seen: seen.clone(),
            },
            Callback::Delegate {
                plan: plan(),
                index: n,
                to: u64::MAX,
                seen: seen.clone(),
            },
            Callback::Delegate {
                plan: plan(),
                index: n,
                to: 1,
                seen: seen.clone(),
            },
            Callback::TakeBack {
                plan: plan(),
                index: n,
                seen: seen.clone(),
            },
            Callback::SignOff {
                plan: plan(),
                seen: seen.clone(),
            },
            Callback::Toggle {
                plan: plan(),
                index: n,
                option: n,
                seen: seen.clone(),
            },
            Callback::Done {
                plan: plan(),
                index: n,
                seen: seen.clone(),
            },
            Callback::Boolean {
                plan: plan(),
                index: n,
                yes: true,
                seen: seen.clone(),
            },
            Callback::Boolean {
                plan: plan(),
                index: n,
                yes: false,
                seen: seen.clone(),
            },
            Callback::Approve {
                plan: plan(),
                index: n,
                seen: seen.clone(),
            },
            Callback::Decline {
                plan: plan(),
                seen: seen.clone(),
            },
            Callback::Rules { page: n },
            Callback::Rule {
                op: RuleOp::Pause,
                rule: "r".repeat(MAX_RULE_ID),
            },
            Callback::Rule {
                op: RuleOp::Resume,
                rule: "rab12cd3".into(),
            },
            Callback::Rule {
                op: RuleOp::Revoke,
                rule: "x".into(),
            },
            Callback::AlwaysAnswer { plan: plan(), seen },
            Callback::Noop,
        ]
    }

    #[test]
    fn known_hashes() {
        // FNV-1a-64("") = cbf29ce484222325, ("a") = af63dc4c8601ec8c.
        assert_eq!(plan_ref(""), PlanRef("cbf29ce48422".into()));
        assert_eq!(plan_ref("a"), PlanRef("af63dc4c8601".into()));
        assert_eq!(fingerprint(&["a"]), "af63dc");
        assert_ne!(fingerprint(&["ab", "c"]), fingerprint(&["a", "bc"]));
    }

    #[test]
    fn round_trips_every_variant_with_max_values() {
        let long_id = "x".repeat(200);
        for n in [0, 1, u16::MAX] {
            for callback in every_variant(
                &plan_ref(&long_id),
                n,
                &fingerprint(&[&long_id, "k", "label"]),
            ) {
                let data = callback.encode();
                assert!(data.len() <= 54, "{data} is {} bytes", data.len());
                assert_eq!(Callback::decode(&data), Some(callback), "{data}");
            }
        }
        assert_eq!(
            Callback::Answer {
                plan: PlanRef("0123456789ab".into()),
                index: 2,
                option: 3,
                seen: "abcdef".into()
            }
            .encode(),
            "a:0123456789ab:2:3:abcdef"
        );
        assert_eq!(
            Callback::FullContext {
                plan: PlanRef("0123456789ab".into())
            }
            .encode(),
            "f:0123456789ab"
        );
    }

    /// The bytes of every button as it is on the wire today: messages already on users' phones carry them, so a
    /// change of the codec must still read these exactly so.
    #[test]
    fn every_encoding_is_pinned() {
        let plan = || PlanRef("0123456789ab".into());
        let seen = || "abcdef".to_owned();
        let pinned = [
            (Callback::Queue { page: 3 }, "q:3"),
            (Callback::Open { plan: plan() }, "o:0123456789ab"),
            (Callback::Continue { plan: plan() }, "c:0123456789ab"),
            (
                Callback::Show {
                    plan: plan(),
                    index: 2,
                },
                "s:0123456789ab:2",
            ),
            (
                Callback::Answer {
                    plan: plan(),
                    index: 2,
                    option: 3,
                    seen: seen(),
                },
                "a:0123456789ab:2:3:abcdef",
            ),
            (
                Callback::Custom {
                    plan: plan(),
                    index: 2,
                    seen: seen(),
                },
                "u:0123456789ab:2:abcdef",
            ),
            (
                Callback::Skip {
                    plan: plan(),
                    index: 2,
                    seen: seen(),
                },
                "k:0123456789ab:2:abcdef",
            ),
            (Callback::Review { plan: plan() }, "r:0123456789ab"),
            (
                Callback::Submit {
                    plan: plan(),
                    seen: seen(),
                },
                "x:0123456789ab:abcdef",
            ),
            (
                Callback::RequestChanges {
                    plan: plan(),
                    seen: seen(),
                },
                "w:0123456789ab:abcdef",
            ),
            (Callback::FullContext { plan: plan() }, "f:0123456789ab"),
            (
                Callback::Note {
                    plan: plan(),
                    index: 2,
                    seen: seen(),
                },
                "m:0123456789ab:2:abcdef",
            ),
            (
                Callback::DelegateMenu {
                    plan: plan(),
                    index: 2,
                    seen: seen(),
                },
                "d:0123456789ab:2:abcdef",
            ),
            (
                Callback::Delegate {
                    plan: plan(),
                    index: 2,
                    to: 18_446_744_073_709_551_615,
                    seen: seen(),
                },
                "g:0123456789ab:2:18446744073709551615:abcdef",
            ),
            (
                Callback::TakeBack {
                    plan: plan(),
                    index: 2,
                    seen: seen(),
                },
                "b:0123456789ab:2:abcdef",
            ),
            (
                Callback::SignOff {
                    plan: plan(),
                    seen: seen(),
                },
                "v:0123456789ab:abcdef",
            ),
            (
                Callback::Toggle {
                    plan: plan(),
                    index: 2,
                    option: 3,
                    seen: seen(),
                },
                "t:0123456789ab:2:3:abcdef",
            ),
            (
                Callback::Done {
                    plan: plan(),
                    index: 2,
                    seen: seen(),
                },
                "e:0123456789ab:2:abcdef",
            ),
            (
                Callback::Boolean {
                    plan: plan(),
                    index: 2,
                    yes: true,
                    seen: seen(),
                },
                "y:0123456789ab:2:1:abcdef",
            ),
            (
                Callback::Boolean {
                    plan: plan(),
                    index: 2,
                    yes: false,
                    seen: seen(),
                },
                "y:0123456789ab:2:0:abcdef",
            ),
            (
                Callback::Approve {
                    plan: plan(),
                    index: 2,
                    seen: seen(),
                },
                "p:0123456789ab:2:abcdef",
            ),
            (
                Callback::Decline {
                    plan: plan(),
                    seen: seen(),
                },
                "z:0123456789ab:abcdef",
            ),
            (Callback::Rules { page: 3 }, "i:3"),
            (
                Callback::Rule {
                    op: RuleOp::Pause,
                    rule: "rab12cd3".into(),
                },
                "h:p:rab12cd3",
            ),
            (
                Callback::Rule {
                    op: RuleOp::Resume,
                    rule: "rab12cd3".into(),
                },
                "h:r:rab12cd3",
            ),
            (
                Callback::Rule {
                    op: RuleOp::Revoke,
                    rule: "rab12cd3".into(),
                },
                "h:v:rab12cd3",
            ),
            (
                Callback::AlwaysAnswer {
                    plan: plan(),
                    seen: seen(),
                },
                "l:0123456789ab:abcdef",
            ),
            (Callback::Noop, "n"),
        ];
        // Every kind of button is pinned (`every_variant` lists them all).
        let kinds = |list: &mut dyn Iterator<Item = &Callback>| {
            list.map(std::mem::discriminant)
                .collect::<std::collections::HashSet<_>>()
        };
        assert_eq!(
            kinds(&mut pinned.iter().map(|(c, _)| c)),
            kinds(&mut every_variant(&plan(), 0, "abcdef").iter())
        );
        for (callback, data) in pinned {
            assert_eq!(callback.encode(), data);
            assert_eq!(Callback::decode(data), Some(callback), "{data}");
        }
    }

    #[test]
    fn rejects_malformed_data() {
        let bad = [
            "",
            "n:",
            "q",
            "q:",
            "q:65536",
            "q:-1",
            "q:+1",
            "q:01",
            "q: 1",
            "o:0123456789a",
            "o:0123456789abc",
            "o:0123456789AB",
            "o:0123456789ag",
            "o:../../etc/pa",
            "s:0123456789ab",
            "s:0123456789ab:1:2",
            "a:0123456789ab:1:2:abcde",
            "a:0123456789ab:1:2:abcdef:",
            "u:0123456789ab:1:abcdefa",
            "z:0123456789ab",
            "x:0123456789ab:",
            "f:0123456789ab:1",
            "f:",
            "g:0123456789ab:1:0:abcdef",
            "g:0123456789ab:1:007:abcdef",
            "g:0123456789ab:1:18446744073709551616:abcdef",
            "g:0123456789ab:1:-5:abcdef",
            "v:0123456789ab",
            "v:0123456789ab:1:abcdef",
            "m:0123456789ab:1",
            "b:0123456789ab:abcdef",
            "t:0123456789ab:1:abcdef",
            "t:0123456789ab:1:01:abcdef",
            "e:0123456789ab:abcdef",
            "y:0123456789ab:1:2:abcdef",
            "y:0123456789ab:1:true:abcdef",
            "y:0123456789ab:1:abcdef",
            "p:0123456789ab:1",
            "z:0123456789ab",
            "z:0123456789ab:1:abcdef",
            "i:",
            "i:01",
            "h:x:rab12cd3",
            "h:p:",
            "h:p:R1",
            "h:p:r-1",
            &format!("h:p:{}", "r".repeat(MAX_RULE_ID + 1)),
            "l:0123456789ab",
            "l:0123456789ab:abcde",
        ];
        for data in bad {
            assert_eq!(Callback::decode(data), None, "{data:?}");
        }
        assert_eq!(Callback::decode(&format!("q:{}", "1".repeat(10_000))), None);
    }

    proptest! {
        #[test]
        fn encodings_fit_and_round_trip(id in ".{0,300}", key in ".{0,100}", n in any::<u16>()) {
            for callback in every_variant(&plan_ref(&id), n, &fingerprint(&[&id, &key])) {
                let data = callback.encode();
                prop_assert!(!data.is_empty() && data.len() <= MAX_CALLBACK_BYTES);
                prop_assert_eq!(Callback::decode(&data), Some(callback));
            }
        }

        #[test]
        fn decode_of_garbage_never_panics(s in any::<String>()) {
            if let Some(callback) = Callback::decode(&s) {
                prop_assert_eq!(callback.encode(), s);
            }
        }

        #[test]
        fn decode_of_forged_data_is_canonical(s in "[qocsaukrxfnmdgbvteypzihl]:[0-9a-z:]{0,50}") {
            if let Some(callback) = Callback::decode(&s) {
                prop_assert_eq!(callback.encode(), s);
            }
        }
    }
}
