//! Button taps: callback data → an owner action → a view. What a tap means and who may make it is decided by
//! the action layer ([`crate::actions`]); this adapter only translates. The action's file work happens before
//! the callback query is answered, so a tap Telegram shows as acknowledged is on disk; then the tapped message
//! is edited in place.

use teloxide::types::{CallbackQuery, ChatId, MessageId};

use crate::actions::{Action, Actor, Outcome, seen};
use crate::plan::Plan;
use crate::queue::Loaded;
use crate::telegram::callback::{Callback, PlanRef};
use crate::telegram::markdown::escape;
use crate::telegram::reply::{self, Answer, INVALID};
use crate::telegram::views;
use crate::telegram::views::Viewer;
use crate::telegram::views::navigation::{
    Screen, current_view, keeps_toggles, next_view, translate, with_picks,
};

use super::context::Ctx;
use super::state::{CustomMode, Reply, Target};

/// One tap being answered: where it came from, so each response is one call.
struct Tap<'a> {
    ctx: &'a Ctx,
    q: &'a CallbackQuery,
    actor: Actor,
    chat: ChatId,
    message: Option<MessageId>,
}

impl Tap<'_> {
    /// The tapping user's id.
    fn user(&self) -> u64 {
        self.q.from.id.0
    }

    /// How the tapping user sees `plan`.
    fn viewer(&self, plan: &Plan) -> Viewer {
        self.ctx.viewer(self.user(), plan)
    }
}

pub async fn handle(ctx: &Ctx, q: CallbackQuery) {
    // A tap on a card in a group: its own rules (quick answers only; nothing drawn there but the card).
    if q.regular_message().is_some_and(|m| !m.chat.is_private()) {
        return super::groups::taps::handle(ctx, &q).await;
    }
    // Where the tapped message is, if Telegram still lets us edit it.
    let (chat, message) = match q.regular_message() {
        Some(m) => (m.chat.id, Some(m.id)),
        None => (ChatId(q.from.id.0 as i64), None),
    };
    let tap = Tap {
        ctx,
        q: &q,
        actor: Actor::User(q.from.id.0),
        chat,
        message,
    };
    let Some(cb) = q.data.as_deref().and_then(Callback::decode) else {
        tracing::info!(user = q.from.id.0, "undecodable callback data");
        return tap.answer(Some(INVALID), true).await;
    };
    tracing::debug!(user = q.from.id.0, data = %cb.encode(), "tap");
    match cb {
        Callback::Noop => tap.answer(None, false).await,
        Callback::Queue { page } => {
            tap.answer(None, false).await;
            let view = ctx.queue_view(tap.actor, usize::from(page)).await;
            tap.show(&view).await;
        }
        Callback::Rules { page } => {
            tap.answer(None, false).await;
            let view = ctx.rules_view(tap.actor, usize::from(page)).await;
            tap.show(&view).await;
        }
        Callback::Rule { op, rule } => {
            let (alert, is_alert) = ctx.rule_tapped(tap.actor, op, rule).await;
            tap.answer(Some(&alert), is_alert).await;
            let view = ctx.rules_view(tap.actor, 0).await;
            tap.show(&view).await;
        }
        Callback::AlwaysAnswer { plan, seen } => tap.always_answer(&plan, seen).await,
        other => {
            let keeps = keeps_toggles(&other);
            let Some((plan, action, screen)) = translate(other) else {
                return;
            };
            let Some(id) = ctx.resolve(&plan).await else {
                return tap.gone(&plan).await;
            };
            if !keeps {
                ctx.state.answering.forget_plan(tap.user(), &id);
            }
            let action = match screen {
                Screen::Done(index) => tap.with_toggles(&id, index, action).await,
                _ => action,
            };
            match ctx.actions.act(tap.actor, &id, action).await {
                Outcome::Gone | Outcome::Withdrawn(_) => tap.gone(&plan).await,
                outcome => tap.respond(outcome, screen).await,
            }
        }
    }
}

impl Tap<'_> {
    /// ✅ Done's action with the options toggled on the decision as shown; without toggles, the picks the view
    /// showed (the recorded answer, read from the file: the snapshot keeps only briefs).
    async fn with_toggles(&self, id: &str, index: usize, action: Action) -> Action {
        let Action::AnswerMulti { seen, .. } = &action else {
            return action;
        };
        let picks = match self.ctx.state.answering.picks(self.user(), id, index, seen) {
            Some(picks) => picks,
            None => {
                let queue = self.ctx.queue().clone();
                let (id, seen) = (id.to_owned(), seen.clone());
                tokio::task::spawn_blocking(move || {
                    let loaded = queue.find_pending(&id).ok().flatten()?;
                    let d = loaded.plan.decisions.get(index)?;
                    (seen::of_decision(d) == seen).then(|| d.picked_options())
                })
                .await
                .ok()
                .flatten()
                .unwrap_or_default()
            }
        };
        with_picks(action, picks)
    }

    /// ☐/☑ A toggle: kept in memory, the decision redrawn with it (nothing is written until Done).
    async fn toggled(&self, plan: &Plan, index: usize, option: usize) {
        let Some(d) = plan.decisions.get(index).filter(|d| {
            option < d.options.len() && matches!(d.kind, crate::plan::Kind::Multi { .. })
        }) else {
            return self.answer(Some(INVALID), true).await;
        };
        let recorded = d.picked_options();
        let picks = self.ctx.state.answering.toggle(
            self.user(),
            &plan.id,
            index,
            &seen::of_decision(d),
            &recorded,
            option,
        );
        let viewer = self.viewer(plan);
        let view = views::toggled(plan, index, &picks, &views::Drawn::to(&viewer));
        self.settled(&view).await;
    }

    /// Turns what the action did into the callback answer ([`reply::tap`]) and the redrawn message.
    async fn respond(&self, outcome: Outcome, screen: Screen) {
        let said = reply::tap(&outcome);
        if let Some(refusal) = outcome.input_refusal() {
            // A Done outside min…max (or input that does not fit): nothing recorded, the view stays as it is.
            tracing::info!(actor = %self.actor, %refusal, "input refused");
            return self.say(&said).await;
        }
        match outcome {
            // Nothing to say: the screen the tap asked for is the answer.
            Outcome::Current(l) | Outcome::Noted(l) | Outcome::Escalated { plan: l, .. } => {
                match screen {
                    Screen::CustomPrompt(index) => {
                        self.start_reply(&l.plan, index, Reply::Answer).await
                    }
                    Screen::NotePrompt(index) => {
                        self.start_reply(&l.plan, index, Reply::Note).await
                    }
                    Screen::File => self.send_file(&l).await,
                    Screen::Toggle(index, option) => self.toggled(&l.plan, index, option).await,
                    Screen::RequestChangesPrompt => self.start_request_changes(&l.plan).await,
                    Screen::DelegatePicker(index) => {
                        let view = views::delegate_picker(&l.plan, index, &self.viewer(&l.plan));
                        self.settled(&view).await;
                    }
                    _ => {
                        let view =
                            current_view(&l.plan, screen, &views::Drawn::to(&self.viewer(&l.plan)));
                        self.settled(&view).await;
                    }
                }
            }
            Outcome::Recorded {
                plan,
                decision,
                tell,
            } => {
                tracing::info!(plan = %plan.plan.id, decision, "recorded");
                let plan = &plan.plan;
                if let Screen::Done(index) = screen {
                    self.ctx
                        .state
                        .answering
                        .forget(self.user(), &plan.id, index);
                }
                let viewer = self.viewer(plan);
                // The change is on disk: acknowledge the tap and redraw at the same time.
                match screen {
                    Screen::Delegated(i) => self.delegated(plan, i, &viewer).await,
                    Screen::TakenBack(i) => {
                        let view = views::decision(
                            plan,
                            i,
                            Some("↩️ Taken back"),
                            &views::Drawn::to(&viewer),
                        );
                        self.settled(&view).await;
                    }
                    _ => {
                        self.settled(&next_view(plan, decision, &views::Drawn::to(&viewer)))
                            .await
                    }
                }
                self.ctx.tell(self.user(), plan, decision, &tell).await;
            }
            Outcome::SignedOff(l) => {
                let plan = &l.plan;
                tracing::info!(plan = %plan.id, user = self.user(), signoffs = ?plan.approval.signoffs, "signed off");
                self.say(&said).await;
                self.show(&views::review(
                    plan,
                    None,
                    &views::Drawn::to(&self.viewer(plan)),
                ))
                .await;
                self.ctx.ask_other_signers(self.user(), plan).await;
            }
            Outcome::Submitted { plan, notify, rule } => {
                self.ctx
                    .state
                    .remember_completed(&plan.plan.id, plan.path.clone());
                tracing::info!(plan = %plan.plan.id, notify = ?notify, "plan submitted");
                self.say(&said).await;
                let after = self.ctx.after_submit(self.user(), &plan, rule).await;
                self.show(&views::completion_ruled(&plan.plan, &after))
                    .await;
                self.ctx.tell_signers_done(self.user(), &plan.plan).await;
                let _ = self.ctx.rescan().await;
            }
            Outcome::SentBack { plan, .. } => {
                tracing::info!(plan = %plan.plan.id, "plan sent back");
                self.say(&said).await;
                self.show(&views::sent_back(&plan.plan)).await;
                let _ = self.ctx.rescan().await;
            }
            Outcome::Stale(l) => {
                tracing::info!(plan = %l.plan.id, decision = ?screen.decision(), "stale view refused");
                self.say(&said).await;
                let viewer = self.viewer(&l.plan);
                let view = match screen.decision() {
                    Some(i) if i < l.plan.decisions.len() => {
                        views::decision(&l.plan, i, None, &views::Drawn::to(&viewer))
                    }
                    _ => views::plan(&l.plan, &views::Drawn::to(&viewer)),
                };
                self.show(&view).await;
            }
            // `handle` answers these before they get here ([`Tap::gone`]); said the same way if they do.
            Outcome::Gone | Outcome::Withdrawn(_) => self.plan_gone().await,
            Outcome::Failed(why) => {
                tracing::error!(actor = %self.actor, %why, "tap failed");
                self.say(&said).await;
            }
            Outcome::Refused(refusal) => {
                tracing::info!(actor = %self.actor, %refusal, "tap refused");
                self.say(&said).await;
            }
            Outcome::NotRecorded { plan, error } => {
                tracing::error!(plan = %plan.plan.id, error = %error, "could not record");
                self.say(&said).await;
                self.show(&views::plan(
                    &plan.plan,
                    &views::Drawn::to(&self.viewer(&plan.plan)),
                ))
                .await;
            }
        }
    }

    /// 👉 The decision was delegated: the delegator's view says to whom, and the delegate gets the decision.
    async fn delegated(&self, plan: &Plan, index: usize, viewer: &Viewer) {
        let Some(to) = plan.decisions.get(index).and_then(|d| d.delegated_to) else {
            return self
                .settled(&views::plan(plan, &views::Drawn::to(viewer)))
                .await;
        };
        tracing::info!(plan = %plan.id, decision = index, to, "delegated");
        let confirm = format!("👉 Delegated to *{}*", escape(&self.ctx.name(to)));
        self.settled(&views::decision(
            plan,
            index,
            Some(&confirm),
            &views::Drawn::to(viewer),
        ))
        .await;
        self.ctx.hand_over(self.user(), to, plan, index).await;
    }

    /// ✏️ Custom or 💬 Note: ask for the text with a force reply; the user's next message becomes this decision's
    /// answer or note.
    async fn start_reply(&self, plan: &Plan, index: usize, reply: Reply) {
        let Some(d) = plan.decisions.get(index) else {
            return self
                .settled(&views::plan(plan, &views::Drawn::to(&self.viewer(plan))))
                .await;
        };
        self.answer(None, false).await;
        let prompt = match reply {
            Reply::Answer => views::custom_prompt(plan, index),
            Reply::Note | Reply::RequestChanges => views::note_prompt(plan, index),
        };
        let own_pick = matches!(d.kind, crate::plan::Kind::Multi { .. }) && d.allow_custom;
        if reply == Reply::Answer && (d.kind.is_typed() || own_pick) {
            // A typed answer is taken for the decision exactly as this prompt shows it.
            let answering = &self.ctx.state.answering;
            answering.expect_typed(self.user(), &plan.id, &d.id, index, &seen::of_decision(d));
            // ✏️ Edit: the proposal alone first, so Telegram copies it with one tap.
            if let Some(proposal) = views::proposal_message(plan, index) {
                let api = &self.ctx.api;
                if let Err(e) = api
                    .send(
                        self.chat,
                        &proposal,
                        false,
                        super::api::Patience::Interactive,
                    )
                    .await
                {
                    tracing::warn!(error = %e, "can't send the proposal");
                }
            }
        }
        let sent = self
            .ctx
            .api
            .send(self.chat, &prompt, false, super::api::Patience::Interactive)
            .await;
        let mode = CustomMode {
            plan_id: plan.id.clone(),
            target: Target::Decision {
                id: d.id.clone(),
                seen: seen::of_prompt(d),
            },
            reply,
            prompt: sent.ok().map(|m| m.0),
        };
        self.ctx.state.start_custom(self.q.from.id.0, mode);
    }

    /// 🔁 Request changes: the force-reply prompt; the owner's next message (or reply to it) is the request, taken
    /// on the answers checked just now.
    async fn start_request_changes(&self, plan: &Plan) {
        self.answer(None, false).await;
        let sent = self
            .ctx
            .api
            .send(
                self.chat,
                &views::request_changes_prompt(plan),
                false,
                super::api::Patience::Interactive,
            )
            .await;
        let mode = CustomMode {
            plan_id: plan.id.clone(),
            target: Target::Plan {
                seen: crate::actions::seen::of_answers(plan),
            },
            reply: Reply::RequestChanges,
            prompt: sent.ok().map(|m| m.0),
        };
        self.ctx.state.start_custom(self.q.from.id.0, mode);
    }

    /// 📄 Full context: the plan's file as it is on disk now, as a document named `<stem>.md`. The tapped
    /// view stays as it is.
    async fn send_file(&self, loaded: &Loaded) {
        let bytes = match tokio::fs::read(&loaded.path).await {
            Ok(bytes) => bytes,
            Err(error) => {
                tracing::warn!(plan = %loaded.plan.id, %error, "can't read the plan file");
                return self.plan_gone().await;
            }
        };
        let name = loaded.path.file_stem().map_or_else(
            || format!("{}.md", loaded.plan.id),
            |stem| format!("{}.md", stem.to_string_lossy()),
        );
        let caption = views::file_caption(&loaded.plan);
        let api = &self.ctx.api;
        let (_, sent) = tokio::join!(
            self.answer(None, false),
            api.send_document(self.chat, &name, bytes, &caption)
        );
        match sent {
            Ok(_) => tracing::info!(plan = %loaded.plan.id, "plan file sent"),
            Err(error) => {
                tracing::error!(plan = %loaded.plan.id, %error, "can't send the plan file")
            }
        }
    }

    /// The completed plan `plan` names, as this daemon submitted it, if the tapper may see it.
    async fn completed(&self, plan: &PlanRef) -> Option<Loaded> {
        let path = self.ctx.state.completed(plan)?;
        let (actions, actor) = (self.ctx.actions.clone(), self.actor);
        tokio::task::spawn_blocking(move || actions.completed(actor, &path))
            .await
            .ok()
            .flatten()
    }

    /// The plan a button names is not pending: if it was submitted while the daemon ran (by a person or its
    /// deadline), say so and show its completion view; else "Plan not found" and the queue.
    async fn gone(&self, plan: &PlanRef) {
        let loaded = self.completed(plan).await;
        match loaded {
            Some(l) => {
                self.say(&reply::gone(Some(&l.plan))).await;
                self.show(&views::completion(&l.plan)).await;
            }
            None => self.plan_gone().await,
        }
    }

    /// `🔁 Always answer` on a completion view: the plan it names is the completed one this daemon showed.
    async fn always_answer(&self, plan: &PlanRef, seen: String) {
        let loaded = self.completed(plan).await;
        let Some(loaded) = loaded else {
            return self.answer(Some(INVALID), true).await;
        };
        let (alert, is_alert, view) = self.ctx.always_answer(self.actor, loaded.plan, seen).await;
        tracing::info!(user = self.user(), %alert, "always answer");
        self.answer(Some(&alert), is_alert).await;
        self.show(&view).await;
    }

    async fn plan_gone(&self) {
        self.say(&reply::gone(None)).await;
        let view = self.ctx.queue_view(self.actor, 0).await;
        self.show(&view).await;
    }

    /// Acknowledges the tap and shows `view` at the same time.
    async fn settled(&self, view: &views::View) {
        tokio::join!(self.answer(None, false), self.show(view));
    }

    async fn show(&self, view: &views::View) {
        self.ctx.show(self.chat, self.message, view).await;
    }

    async fn say(&self, answer: &Answer) {
        self.answer(answer.text.as_deref(), answer.alert).await;
    }

    async fn answer(&self, text: Option<&str>, alert: bool) {
        if let Err(e) = self
            .ctx
            .api
            .answer_callback(&self.q.id.0, text, alert)
            .await
        {
            tracing::warn!(error = %e, "can't answer the callback query");
        }
    }
}
