//! What the daemon tells people besides the one who tapped: the delegate who was handed a decision, the
//! delegator whose delegate answered, the approvers asked to sign off, the signers whose sign-offs a changed answer
//! cleared. Who they are is the action layer's to say ([`crate::actions::Tell`], [`crate::actions::Access`]); this
//! only draws and sends.

use teloxide::types::ChatId;

use crate::actions::{Actor, Role, Tell};
use crate::plan::{DecisionStatus, Plan};
use crate::telegram::markdown::{escape, truncate};
use crate::telegram::views::{self, View, Viewer};

use super::api::Patience;
use super::context::Ctx;

impl Ctx {
    /// How `user` sees `plan`: names from `people`, and what their role lets them do (a delegate sees only their
    /// decision; an approver may delegate to the other members).
    #[must_use]
    pub fn viewer(&self, user: u64, plan: &Plan) -> Viewer {
        let access = self.actions.access();
        let names = access
            .members()
            .filter_map(|m| access.name_of(m).map(|n| (m, n.to_owned())))
            .collect();
        match access.role(Actor::User(user), plan) {
            Role::Delegate(only) => Viewer {
                names,
                only: Some(only),
                delegates: Vec::new(),
            },
            _ => Viewer {
                names,
                only: None,
                delegates: access.delegates_for(user, plan),
            },
        }
    }

    /// A name for a user id in views: from `people`, else the id.
    #[must_use]
    pub fn name(&self, user: u64) -> String {
        self.actions.access().display(&user.to_string())
    }

    /// Tells the people a recorded change concerns besides `actor` (who changed decision `decision` of `plan`):
    /// the delegator that their delegate answered, and the signers that their sign-offs were cleared.
    pub async fn tell(&self, actor: u64, plan: &Plan, decision: usize, tell: &Tell) {
        let Some(d) = plan.decisions.get(decision) else {
            return;
        };
        if let Some(delegator) = tell.delegator {
            let who = self.name(actor);
            let text = match d.status {
                DecisionStatus::Skipped => format!("⏭️ {who} skipped {}", d.title),
                _ => format!(
                    "✅ {who} answered {} → {}",
                    d.title,
                    d.answer.as_deref().unwrap_or_default()
                ),
            };
            // A long custom answer or title must not push the message past Telegram's limit.
            let view = View::text_only(&escape(&truncate(&text, 1000)));
            self.send_to(delegator, &view).await;
        }
        for signer in &tell.signoffs_cleared {
            let header = format!(
                "✍️ {} changed {}: the sign\\-offs on this plan were cleared, yours too\\. Review it and sign off again\\.",
                escape(&self.name(actor)),
                escape(&d.title)
            );
            let view = views::review(
                plan,
                Some(&header),
                &views::Drawn::to(&self.viewer(*signer, plan)),
            );
            self.send_to(*signer, &view).await;
        }
    }

    /// Sends `view` to `user`'s private chat.
    pub async fn send_to(&self, user: u64, view: &View) {
        let chat = ChatId(i64::try_from(user).unwrap_or(i64::MAX));
        if let Err(e) = self
            .api
            .send(chat, view, false, Patience::Interactive)
            .await
        {
            tracing::warn!(user, error = %e, "can't send a message to a user");
        }
    }

    /// 👉 Sends the delegate `to` the decision `index` that `by` handed them, as they may use it.
    pub async fn hand_over(&self, by: u64, to: u64, plan: &Plan, index: usize) {
        let header = format!(
            "👉 *{}* delegated this decision to you",
            escape(&self.name(by))
        );
        let view = views::decision(
            plan,
            index,
            Some(&header),
            &views::Drawn::to(&self.viewer(to, plan)),
        );
        self.send_to(to, &view).await;
    }

    /// After `signer`'s sign-off that did not complete the plan: the approvers who have not signed get the review
    /// view with `✅ Sign off (k/N)`.
    pub async fn ask_other_signers(&self, signer: u64, plan: &Plan) {
        let header = format!(
            "✍️ *{}* signed off \\({}/{}\\)",
            escape(&self.name(signer)),
            plan.approval.signoffs.len(),
            plan.approval.require
        );
        let others: Vec<u64> = self
            .actions
            .access()
            .approvers(plan)
            .into_iter()
            .filter(|a| !plan.approval.signoffs.contains(a))
            .collect();
        for other in others {
            let view = views::review(
                plan,
                Some(&header),
                &views::Drawn::to(&self.viewer(other, plan)),
            );
            self.send_to(other, &view).await;
        }
    }

    /// The last sign-off submitted the plan: the others who signed get the completion view.
    pub async fn tell_signers_done(&self, last: u64, plan: &Plan) {
        let others = plan.approval.signoffs.iter().filter(|s| **s != last);
        for signer in others {
            self.send_to(*signer, &views::completion(plan)).await;
        }
    }
}
