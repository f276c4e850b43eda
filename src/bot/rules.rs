//! Standing rules in the chat: `/rules` and its buttons, the completion view's offer and the rule a submit made.
//! What a tap means and who may make it is the action layer's ([`crate::actions::rules`]); this adapter reads
//! the rules for the views and translates.

use teloxide::types::ChatId;

use crate::actions::Actor;
use crate::actions::rules::{RuleAction, RuleOutcome};
use crate::plan::Plan;
use crate::queue::Loaded;
use crate::queue::rules::{Rule, State};
use crate::telegram::callback::RuleOp;
use crate::telegram::views::{self, AfterSubmit, Shown, Standing, View};

use super::context::Ctx;

impl Ctx {
    /// A rule as the views show it, its maker named as `people` names them.
    #[must_use]
    pub fn shown_rule(&self, rule: &Rule, now: &str) -> Shown {
        let paused_itself = rule
            .change
            .as_ref()
            .filter(|c| rule.state == State::Paused && c.by.starts_with("rule:"))
            .and_then(|c| c.reason.clone());
        Shown {
            id: rule.id.clone(),
            standing: match rule.state_at(now) {
                State::Active => Standing::Active,
                State::Paused => Standing::Paused,
                State::Revoked => Standing::Revoked,
                State::Expired => Standing::Expired,
            },
            what: rule.what(),
            answer: rule.answer.clone(),
            agent: rule.agent.clone(),
            project: rule.project.clone(),
            session: rule.session.clone(),
            expires_at: rule.expires_at.clone(),
            fired: rule.fired,
            last_fired: rule.last_fired.clone(),
            by: self.name(rule.created_by),
            paused_itself,
            on_record: rule.is_on_record(self.queue().root()),
        }
    }

    /// `/rules` page `page` for `actor`: every rule, or the warning that `rules.json` does not read.
    pub async fn rules_view(&self, actor: Actor, page: usize) -> View {
        let ctx = self.clone();
        let drawn = tokio::task::spawn_blocking(move || {
            let now = crate::clock::now();
            match ctx.actions.rules_for(actor) {
                None => views::not_found(),
                Some(Err(e)) => views::rules_warning(&e.to_string()),
                Some(Ok(all)) => {
                    let shown: Vec<Shown> =
                        all.rules.iter().map(|r| ctx.shown_rule(r, &now)).collect();
                    views::rules(&shown, page)
                }
            }
        })
        .await;
        drawn
            .unwrap_or_else(|e| views::rules_warning(&format!("the rules could not be read ({e})")))
    }

    /// `⏸ Pause` / `▶️ Resume` / `🗑 Revoke` by `actor`: the alert to show (and whether it is one), then the
    /// `/rules` page to redraw.
    pub async fn rule_tapped(&self, actor: Actor, op: RuleOp, rule: String) -> (String, bool) {
        let action = match op {
            RuleOp::Pause => RuleAction::Pause { rule: rule.clone() },
            RuleOp::Resume => RuleAction::Resume { rule: rule.clone() },
            RuleOp::Revoke => RuleAction::Revoke { rule: rule.clone() },
        };
        match self.actions.act_rule(actor, action).await {
            RuleOutcome::Done(_) => (views::rule_alert(op, &rule, true), false),
            RuleOutcome::Unchanged(_) => (views::rule_alert(op, &rule, false), false),
            RuleOutcome::Final(r) => (
                format!(
                    "Rule {} is {}: nothing changed.",
                    r.id,
                    r.state_at(&crate::clock::now()).as_str()
                ),
                true,
            ),
            RuleOutcome::NotFound => (format!("No rule {rule} any more."), true),
            RuleOutcome::Refused(refusal) => (
                match op {
                    RuleOp::Resume => format!("{refusal} Only the rule's maker resumes it."),
                    RuleOp::Pause | RuleOp::Revoke => refusal.to_string(),
                },
                true,
            ),
            RuleOutcome::Stale => ("Nothing to do.".to_owned(), true),
            RuleOutcome::Failed(why) => (
                crate::telegram::markdown::truncate(&format!("⚠️ Not changed: {why}"), 190),
                true,
            ),
        }
    }

    /// What a plan `user` just submitted did for standing rules: the rule its answer made (`made`, from the
    /// outcome), or the offer of one. Blocking reads run off the async threads.
    pub async fn after_submit(
        &self,
        user: u64,
        plan: &Loaded,
        made: Option<Result<Box<Rule>, String>>,
    ) -> AfterSubmit {
        let now = crate::clock::now();
        let ctx = self.clone();
        let p = plan.plan.clone();
        tokio::task::spawn_blocking(move || AfterSubmit {
            made: made.map(|m| m.map(|r| ctx.shown_rule(&r, &now))),
            offer: ctx
                .actions
                .offer(Actor::User(user), &p)
                .map(|o| (o.label, o.seen)),
        })
        .await
        .unwrap_or_default()
    }

    /// `🔁 Always answer` on the completed plan `plan`: the alert, and the completion view to redraw.
    pub async fn always_answer(
        &self,
        actor: Actor,
        plan: Plan,
        seen: String,
    ) -> (String, bool, View) {
        let action = RuleAction::AlwaysAnswer {
            plan: plan.id.clone(),
            seen,
        };
        match self.actions.act_rule(actor, action).await {
            RuleOutcome::Done(rule) | RuleOutcome::Unchanged(rule) => {
                let now = crate::clock::now();
                let after = AfterSubmit {
                    made: Some(Ok(self.shown_rule(&rule, &now))),
                    offer: None,
                };
                let alert = format!("🔁 Rule {} made: {}", rule.id, rule.what());
                (
                    crate::telegram::markdown::truncate(&alert, 190),
                    false,
                    views::completion_ruled(&plan, &after),
                )
            }
            RuleOutcome::Refused(refusal) => (refusal.to_string(), true, views::completion(&plan)),
            RuleOutcome::Stale | RuleOutcome::NotFound | RuleOutcome::Final(_) => (
                "This offer no longer holds: nothing was made.".to_owned(),
                true,
                views::completion(&plan),
            ),
            RuleOutcome::Failed(why) => (
                crate::telegram::markdown::truncate(&format!("⚠️ No rule made: {why}"), 190),
                true,
                views::completion(&plan),
            ),
        }
    }

    /// `/rules` sent as a new message.
    pub async fn send_rules(&self, chat: ChatId, user: u64) {
        let view = self.rules_view(Actor::User(user), 0).await;
        self.show(chat, None, &view).await;
    }
}
