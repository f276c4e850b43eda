//! Answers the owner is in the middle of giving, kept in memory only (never the file): the options toggled on a
//! `multi` decision until ✅ Done, and which decision (as shown) a typed answer is for. A daemon restart loses
//! these — never a recorded answer, since nothing here is recorded until the one action on Done or on the reply.

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;

use crate::sync::lock;

/// Who is answering which decision: user id, plan id, decision id.
type Key = (u64, String, String);
/// Who is toggling which decision: user id, plan id, decision position (its fingerprint is checked too).
type ToggleKey = (u64, String, usize);

/// The options toggled on one decision, for the decision as it was shown (`seen`): toggles made on a decision
/// the agent has since changed are dropped.
#[derive(Debug, Clone, Default)]
struct Toggled {
    seen: String,
    picks: BTreeSet<usize>,
}

#[derive(Debug, Default)]
pub struct Answering {
    toggles: Mutex<HashMap<ToggleKey, Toggled>>,
    /// Typed answers: the decision's position and fingerprint when its prompt was shown.
    typed: Mutex<HashMap<Key, (usize, String)>>,
}

fn key(user: u64, plan: &str, decision: &str) -> Key {
    (user, plan.to_owned(), decision.to_owned())
}

impl Answering {
    /// Toggles `option` on the decision as shown (`seen`), starting from `recorded` (the picks the view showed
    /// before the first toggle); returns the picks now, in option order.
    pub fn toggle(
        &self,
        user: u64,
        plan: &str,
        decision: usize,
        seen: &str,
        recorded: &[usize],
        option: usize,
    ) -> Vec<usize> {
        let mut toggles = lock(&self.toggles);
        let entry = toggles
            .entry((user, plan.to_owned(), decision))
            .or_insert_with(|| Toggled {
                seen: seen.to_owned(),
                picks: recorded.iter().copied().collect(),
            });
        if entry.seen != seen {
            *entry = Toggled {
                seen: seen.to_owned(),
                picks: recorded.iter().copied().collect(),
            };
        }
        if !entry.picks.remove(&option) {
            entry.picks.insert(option);
        }
        entry.picks.iter().copied().collect()
    }

    /// The picks toggled on the decision as shown, if any were.
    #[must_use]
    pub fn picks(&self, user: u64, plan: &str, decision: usize, seen: &str) -> Option<Vec<usize>> {
        let toggles = lock(&self.toggles);
        let t = toggles.get(&(user, plan.to_owned(), decision))?;
        (t.seen == seen).then(|| t.picks.iter().copied().collect())
    }

    /// Forgets `user`'s toggles on one decision (after Done recorded them).
    pub fn forget(&self, user: u64, plan: &str, decision: usize) {
        lock(&self.toggles).remove(&(user, plan.to_owned(), decision));
    }

    /// Forgets `user`'s toggles on every decision of `plan` (the view they were on was redrawn as another).
    pub fn forget_plan(&self, user: u64, plan: &str) {
        lock(&self.toggles).retain(|(u, p, _), _| !(*u == user && p == plan));
    }

    /// Remembers the decision a typed answer's prompt showed.
    pub fn expect_typed(&self, user: u64, plan: &str, decision: &str, index: usize, seen: &str) {
        lock(&self.typed).insert(key(user, plan, decision), (index, seen.to_owned()));
    }

    /// The decision (position, fingerprint) the prompt for a typed answer showed.
    #[must_use]
    pub fn typed(&self, user: u64, plan: &str, decision: &str) -> Option<(usize, String)> {
        lock(&self.typed).get(&key(user, plan, decision)).cloned()
    }

    /// The typed answer was recorded (or given up): forget its prompt.
    pub fn typed_done(&self, user: u64, plan: &str, decision: &str) {
        lock(&self.typed).remove(&key(user, plan, decision));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toggles_start_from_the_recorded_picks_and_reset_on_a_changed_decision() {
        let a = Answering::default();
        assert_eq!(a.toggle(1, "p", 0, "s1", &[0], 2), [0, 2]);
        assert_eq!(a.toggle(1, "p", 0, "s1", &[0], 0), [2]);
        assert_eq!(a.picks(1, "p", 0, "s1"), Some(vec![2]));
        // Another user: their own.
        assert_eq!(a.toggle(2, "p", 0, "s1", &[], 1), [1]);
        assert_eq!(a.picks(1, "p", 0, "s1"), Some(vec![2]));
        // The decision changed: what was toggled on the old one is gone.
        assert_eq!(a.picks(1, "p", 0, "s2"), None);
        assert_eq!(a.toggle(1, "p", 0, "s2", &[], 1), [1]);
        a.forget_plan(1, "p");
        assert_eq!(a.picks(1, "p", 0, "s2"), None);
        assert_eq!(a.picks(2, "p", 0, "s1"), Some(vec![1]));
        a.forget(2, "p", 0);
        assert_eq!(a.picks(2, "p", 0, "s1"), None);
    }
}
