//! The human, as the daemon would act for them: answers written through the owner-action layer, exactly as a
//! tap would (position + fingerprint of what was shown), by the owner's user id.

use std::path::Path;
use std::time::{Duration, Instant};

use arbiter_zebu::actions::{Access, Action, Actions, Actor, Outcome, Typed, seen};
use arbiter_zebu::queue::{Loaded, Queue};

pub const OWNER: u64 = 93533553;
const NOW: &str = "2026-02-01T10:00:00Z";

/// The owner acting on the queue at `root`.
pub struct Owner {
    actions: Actions,
    now: String,
}

impl Owner {
    #[must_use]
    pub fn new(root: &Path) -> Owner {
        let queue = Queue::open(root, true).expect("open queue");
        Owner {
            actions: Actions::new(queue, Access::new([OWNER])),
            now: NOW.to_owned(),
        }
    }

    /// The owner acting at `now` (RFC 3339) instead of the default time.
    #[must_use]
    pub fn at(mut self, now: &str) -> Owner {
        now.clone_into(&mut self.now);
        self
    }

    /// Waits (at most `timeout`) until a plan is pending, and returns the first one.
    #[must_use]
    pub fn wait_for_plan(&self, timeout: Duration) -> Option<Loaded> {
        let start = Instant::now();
        loop {
            if let Some(plan) = self
                .actions
                .queue()
                .scan_pending()
                .ok()
                .and_then(|scan| scan.plans.into_iter().next())
            {
                return Some(std::sync::Arc::unwrap_or_clone(plan));
            }
            if start.elapsed() > timeout {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Taps option `key` of decision `decision_id` on the plan as it is now.
    pub fn answer(&self, plan_id: &str, decision_id: &str, key: &str) {
        match self.tap_as_shown(&self.current(plan_id), decision_id, key) {
            Outcome::Recorded { .. } => {}
            other => panic!("answer `{key}` to `{decision_id}` of `{plan_id}`: {other:?}"),
        }
    }

    /// Skips decision `decision_id`.
    pub fn skip(&self, plan_id: &str, decision_id: &str) {
        let loaded = self.current(plan_id);
        let (decision, d) = Self::decision(&loaded, decision_id);
        let action = Action::Skip {
            decision,
            seen: seen::of_decision(d),
        };
        self.take(plan_id, &action);
    }

    /// Types `text` as the answer to decision `decision_id`.
    pub fn custom(&self, plan_id: &str, decision_id: &str, text: &str) {
        let action = Action::Custom {
            to: Typed::prompted_on(&self.current(plan_id).plan, decision_id),
            text: text.to_owned(),
        };
        self.take(plan_id, &action);
    }

    /// Answers decision `decision_id` with typed `input` (a text, a number, an edited proposal), as a reply to
    /// its prompt would.
    pub fn input(&self, plan_id: &str, decision_id: &str, input: &str) {
        let loaded = self.current(plan_id);
        let (decision, d) = Self::decision(&loaded, decision_id);
        let action = Action::AnswerInput {
            decision,
            input: input.to_owned(),
            seen: seen::of_decision(d),
        };
        self.take(plan_id, &action);
    }

    /// Leaves `text` as a note on decision `decision_id` (`💬 Note`).
    pub fn note(&self, plan_id: &str, decision_id: &str, text: &str) {
        let action = Action::Note {
            to: Typed::prompted_on(&self.current(plan_id).plan, decision_id),
            text: text.to_owned(),
        };
        self.take(plan_id, &action);
    }

    /// Approves the proposal of the `edit` decision `decision_id` as is (`✅ Approve as is`).
    pub fn approve(&self, plan_id: &str, decision_id: &str) {
        let loaded = self.current(plan_id);
        let (decision, d) = Self::decision(&loaded, decision_id);
        let action = Action::Approve {
            decision,
            seen: seen::of_decision(d),
        };
        self.take(plan_id, &action);
    }

    /// Answers the `multi` decision `decision_id` with the options `keys`, as ✅ Done would.
    pub fn pick(&self, plan_id: &str, decision_id: &str, keys: &[&str]) {
        let loaded = self.current(plan_id);
        let (decision, d) = Self::decision(&loaded, decision_id);
        let options = keys
            .iter()
            .map(|k| {
                d.options
                    .iter()
                    .position(|o| o.key == *k)
                    .unwrap_or_else(|| panic!("no option `{k}` in decision `{decision_id}`"))
            })
            .collect();
        let action = Action::AnswerMulti {
            decision,
            options,
            custom: None,
            seen: seen::of_decision(d),
        };
        self.take(plan_id, &action);
    }

    fn decision<'a>(
        loaded: &'a Loaded,
        decision_id: &str,
    ) -> (usize, &'a arbiter_zebu::plan::Decision) {
        loaded
            .plan
            .decisions
            .iter()
            .enumerate()
            .find(|(_, d)| d.id == decision_id)
            .unwrap_or_else(|| panic!("no decision `{decision_id}` in {}", loaded.path.display()))
    }

    /// Taps Submit on the review of the plan as it is now.
    pub fn submit(&self, plan_id: &str) {
        let shown = self.actions.queue().find_pending(plan_id).unwrap().unwrap();
        let action = Action::Submit {
            seen: seen::of_answers(&shown.plan),
        };
        match self
            .actions
            .take(Actor::User(OWNER), plan_id, &action, &self.now)
        {
            Outcome::Submitted { .. } => {}
            other => panic!("submit of `{plan_id}`: {other:?}"),
        }
    }

    fn take(&self, plan_id: &str, action: &Action) {
        match self
            .actions
            .take(Actor::User(OWNER), plan_id, action, &self.now)
        {
            Outcome::Recorded { .. } => {}
            other => panic!("{action:?} on `{plan_id}`: {other:?}"),
        }
    }

    /// Taps option `key` of decision `decision_id` as the view `shown` drew it (an older version of the plan,
    /// say); what the action layer answers.
    pub fn tap_as_shown(&self, shown: &Loaded, decision_id: &str, key: &str) -> Outcome {
        let (decision, d) = Self::decision(shown, decision_id);
        let (option, o) = d
            .options
            .iter()
            .enumerate()
            .find(|(_, o)| o.key == key)
            .unwrap_or_else(|| panic!("no option `{key}` in decision `{decision_id}`"));
        let action = Action::Answer {
            decision,
            option,
            seen: seen::of_option(d, o),
        };
        self.act(&shown.plan.id, &action)
    }

    /// Takes `action` on plan `plan_id`; what the action layer answers.
    pub fn act(&self, plan_id: &str, action: &Action) -> Outcome {
        self.actions
            .take(Actor::User(OWNER), plan_id, action, &self.now)
    }

    /// The pending plan `plan_id` as it is on disk now.
    pub fn current(&self, plan_id: &str) -> Loaded {
        self.actions
            .queue()
            .find_pending(plan_id)
            .expect("scan")
            .unwrap_or_else(|| panic!("plan `{plan_id}` is not pending"))
    }
}
