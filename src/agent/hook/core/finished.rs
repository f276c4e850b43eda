//! The agent ended its turn: `🏁 <agent> finished · <project>`, its last message as the context, and one decision,
//! `What next?`, with `🏁 Done` and room for a typed answer. A typed answer (or a request for changes) is the
//! agent's next instruction: it goes on with it as the user's next message. `🏁 Done`, the deadline
//! (`--stop-timeout`) or a withdrawn card lets it stop, as it would have without Arbiter. The agent never goes on
//! without words an approver typed.
//!
//! Each card of a session is sent as a reply to the session's previous card (`reply_to`), one turn is never
//! carded twice (a second call for the same turn waits on the same card; a new turn withdraws the card still
//! waiting), and an agent whose response repeats earlier turns (Gemini) gets only what is new.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::agent::spec::{DecisionSpec, PlanSpec};
use crate::agent::{WaitOutcome, push_spec};
use crate::clock::now as now_rfc3339;
use crate::plan::{DecisionStatus, Plan, PlanStatus};
use crate::queue::Queue;

use super::Dialect;
use super::memory::{Card, Memory};
use super::permission::{PlanOptions, base_spec, option};
use super::plan_mode::demote_headings;
use super::text::{cut_lines, project};
use super::{Event, HookOptions, Origin, Reply, Verdict, forget_notification, withdraw};

/// The card's only decision, and its option.
pub const DECISION_ID: &str = "next";
pub const DONE: &str = "done";
/// Longest last message shown, in characters (the plan file must stay readable; the view cuts long ones with
/// `📄 Full context`).
const MESSAGE_MAX: usize = 60_000;
/// How long to wait for the turn's last message to land in a transcript, and how often to look.
const TRANSCRIPT_WAIT: Duration = Duration::from_secs(3);
const TRANSCRIPT_POLL: Duration = Duration::from_millis(100);

/// An agent's turn that ended.
#[derive(Debug, Clone)]
pub struct Finished {
    pub origin: Origin,
    pub last: LastMessage,
    /// What the card says about how often the agent lets a hook send it on, when it caps that.
    pub cap: Option<&'static str>,
}

/// Where the turn's last message comes from.
#[derive(Debug, Clone)]
pub enum LastMessage {
    /// In the hook input (`None`: the agent sent none).
    Text(Option<String>),
    /// The agent's whole response, which may repeat earlier turns (Gemini's `prompt_response`): the card shows
    /// what is new since the session's previous card.
    Cumulative(String),
    /// In the agent's transcript, which may get the turn's last message a moment after the hook starts: `read`
    /// reads the file's text, with `call` (what identifies this hook call in the transcript, when the agent
    /// writes its hook calls there).
    Transcript {
        path: PathBuf,
        call: Option<String>,
        read: fn(&str, Option<&str>) -> Turn,
    },
}

/// What a transcript holds of the turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// The latest message of the agent's.
    pub message: Option<String>,
    /// The turn is all there: the transcript holds this hook call (or, where it names none, the message came after
    /// the user's last one).
    pub complete: bool,
}

/// Asks what next, waits (at most `--stop-timeout`) and answers: go on with the typed instruction, or stop.
pub async fn run(
    queue: &Queue,
    dialect: &dyn Dialect,
    finished: &Finished,
    options: &HookOptions,
    watch: &mut super::abandon::Watch,
) -> Reply {
    match next(queue, finished, options, watch).await {
        Ok(verdict) => Reply {
            stdout: dialect.render(Event::Finished, &verdict),
            stderr: None,
        },
        Err(reason) => Reply {
            stdout: dialect.render(Event::Finished, &Verdict::Stop),
            stderr: Some(format!(
                "arbiter: {reason}; letting {} stop",
                finished.origin.agent.display
            )),
        },
    }
}

/// Pushes the turn's card and waits (at most `--stop-timeout`, unless `watch` says the asker stopped waiting):
/// [`Verdict::Continue`] with the typed instruction, or [`Verdict::Stop`]; `Err` says why nobody answered (the
/// card withdrawn), and the agent stops then too.
pub async fn next(
    queue: &Queue,
    finished: &Finished,
    options: &HookOptions,
    watch: &mut super::abandon::Watch,
) -> Result<Verdict, String> {
    let (message, note) = last_message(&finished.last).await;
    let id = card(queue, finished, &message, note.as_deref(), options)?;
    let outcome = match super::waiting(queue, &id, options.stop_timeout, watch).await {
        Ok(outcome) => outcome,
        Err(why) => {
            super::withdraw_because(queue, &id, &watch.withdraw_reason(&why));
            return Err(format!("{why}: plan `{id}` withdrawn from the queue"));
        }
    };
    match outcome {
        Ok(WaitOutcome::Completed(done)) => {
            forget_notification(queue, &done.plan);
            Ok(verdict(&done.plan))
        }
        // Withdrawn meanwhile (a new turn of the session, by hand): nobody will answer here.
        Ok(WaitOutcome::Withdrawn(gone)) => Err(format!("plan `{}` was withdrawn", gone.plan.id)),
        Ok(WaitOutcome::ChangesRequested(sent)) => {
            forget_notification(queue, &sent.plan);
            Ok(
                match sent
                    .plan
                    .feedback
                    .map(|f| f.text)
                    .filter(|t| !t.trim().is_empty())
                {
                    Some(text) => Verdict::Continue { instruction: text },
                    None => Verdict::Stop,
                },
            )
        }
        Ok(WaitOutcome::TimedOut(_)) => {
            if let Ok(now) = queue.find(&id)
                && (now.plan.status == PlanStatus::Completed)
            {
                Ok(verdict(&now.plan))
            } else {
                let withdrawn = withdraw(queue, &id);
                Err(format!(
                    "no answer to plan `{id}` within {}{}",
                    options.stop_timeout_label,
                    if withdrawn {
                        ", withdrawn from the queue"
                    } else {
                        ""
                    }
                ))
            }
        }
        Err(e) => {
            withdraw(queue, &id);
            Err(format!("waiting for plan `{id}` ended: {e}"))
        }
    }
}

/// The verdict a completed card holds: the text an approver typed, or stop (`🏁 Done`, skipped, answered by
/// anyone but a person).
#[must_use]
pub fn verdict(plan: &Plan) -> Verdict {
    let Some(d) = plan.decision(DECISION_ID) else {
        return Verdict::Stop;
    };
    let by_person = d
        .answered_by
        .as_deref()
        .is_some_and(|who| !who.is_empty() && who.bytes().all(|b| b.is_ascii_digit()));
    match (d.status, d.answer.as_deref()) {
        (DecisionStatus::Answered, Some(text))
            if by_person && d.is_custom_answer() && !text.trim().is_empty() =>
        {
            Verdict::Continue {
                instruction: text.trim().to_owned(),
            }
        }
        _ => Verdict::Stop,
    }
}

/// Pushes the turn's card (or finds the one already waiting for this very turn) and returns its id.
fn card(
    queue: &Queue,
    finished: &Finished,
    message: &Option<String>,
    note: Option<&str>,
    options: &HookOptions,
) -> Result<String, String> {
    let origin = &finished.origin;
    // The session's memory stays locked until the card is pushed and remembered: a second call for the same turn
    // waits here, then finds the card.
    let memory = match origin.session.as_deref() {
        Some(session) => Some(
            Memory::open(queue, origin.agent.name, session)
                .map_err(|e| format!("cannot open the session's memory: {e}"))?,
        ),
        None => None,
    };
    let mut state = memory.as_ref().map(Memory::read).unwrap_or_default();
    let previous = state.finished.take();
    let (shown, response) = match (&finished.last, message) {
        (LastMessage::Cumulative(all), _) => {
            let before = previous.as_ref().and_then(|c| c.response.as_deref());
            (Some(new_part(before, all).to_owned()), Some(all.clone()))
        }
        (_, message) => (message.clone(), None),
    };
    let digest = hex::encode(Sha256::digest(
        response.as_deref().or(shown.as_deref()).unwrap_or_default(),
    ));
    if let Some(card) = &previous
        && let Ok(Some(waiting)) = queue.find_pending(&card.plan)
        && waiting.plan.status != PlanStatus::Completed
    {
        if card.digest == digest {
            state.finished = previous.clone();
            return Ok(card.plan.clone());
        }
        withdraw(queue, &card.plan);
    }
    let mut spec = plan_spec(finished, shown.as_deref(), note, &options.plan);
    spec.deadline = Some(options.stop_timeout_label.clone());
    spec.reply_to = previous.as_ref().map(|c| c.plan.clone());
    let id = push_spec(queue, &spec, "", &now_rfc3339())
        .map_err(|e| format!("cannot push the card: {e}"))?
        .id;
    if let Some(memory) = &memory {
        state.finished = Some(Card {
            plan: id.clone(),
            digest,
            response,
        });
        if let Err(e) = memory.write(&state) {
            tracing::warn!(error = %e, "cannot remember the finished card");
        }
    }
    Ok(id)
}

/// The card: `🏁 <agent> finished · <project>`, the message as its context, `What next?`.
#[must_use]
pub fn plan_spec(
    finished: &Finished,
    message: Option<&str>,
    note: Option<&str>,
    options: &PlanOptions,
) -> PlanSpec {
    let agent = finished.origin.agent;
    let title = match project(finished.origin.cwd.as_deref()) {
        Some(project) => format!("🏁 {} finished · {project}", agent.display),
        None => format!("🏁 {} finished", agent.display),
    };
    let mut context = match message.map(str::trim).filter(|m| !m.is_empty()) {
        Some(message) => demote_headings(&cut_lines(
            message,
            MESSAGE_MAX,
            &format!(" of {}'s message", agent.short),
        )),
        None => format!("_{} ended its turn without a message._", agent.display),
    };
    if let Some(note) = note {
        context.push_str(&format!("\n\n({note})"));
    }
    let mut ask = format!(
        "Type what {} should do next, or tap 🏁 Done to let it stop.",
        agent.short
    );
    if let Some(cap) = finished.cap {
        ask.push_str(&format!(" {cap}"));
    }
    PlanSpec {
        title,
        context: Some(context),
        decisions: vec![DecisionSpec {
            id: Some(DECISION_ID.to_owned()),
            title: "What next?".to_owned(),
            context: Some(ask),
            allow_custom: true,
            options: vec![option(DONE, "🏁 Done")],
            ..DecisionSpec::default()
        }],
        ..base_spec(&finished.origin, options)
    }
}

/// What `all` adds to `before` (the response the previous card showed), when it repeats it; else all of it.
#[must_use]
pub fn new_part<'a>(before: Option<&str>, all: &'a str) -> &'a str {
    match before.and_then(|b| all.strip_prefix(b)) {
        Some(rest) if !rest.trim().is_empty() => rest.trim_start(),
        _ => all,
    }
}

/// The turn's last message, and a note when it could not be read whole.
async fn last_message(last: &LastMessage) -> (Option<String>, Option<String>) {
    match last {
        LastMessage::Text(text) => (text.clone(), None),
        LastMessage::Cumulative(all) => (Some(all.clone()), None),
        LastMessage::Transcript { path, call, read } => {
            let start = Instant::now();
            loop {
                let turn = match super::files::read_text(path, super::files::FILE_MAX) {
                    super::files::OnDisk::Text(text) => Ok(read(&text, call.as_deref())),
                    super::files::OnDisk::Missing => Err("no such file".to_owned()),
                    super::files::OnDisk::Unreadable(why) => Err(why),
                };
                match turn {
                    Ok(turn) if turn.complete => return (turn.message, None),
                    Ok(turn) if start.elapsed() >= TRANSCRIPT_WAIT => {
                        let note = "The transcript had no reply to the last prompt yet: this may be an earlier message.";
                        return (turn.message, Some(note.to_owned()));
                    }
                    Err(e) if start.elapsed() >= TRANSCRIPT_WAIT => {
                        let note = format!(
                            "The last message could not be read from {}: {e}.",
                            path.display()
                        );
                        return (None, Some(note));
                    }
                    _ => tokio::time::sleep(TRANSCRIPT_POLL).await,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::hook::dialect::codex::AGENT;

    fn finished(cap: Option<&'static str>) -> Finished {
        Finished {
            origin: Origin {
                agent: AGENT,
                session: Some("s".into()),
                cwd: Some("/home/dev/shop".into()),
            },
            last: LastMessage::Text(None),
            cap,
        }
    }

    /// The card as pushed and read back.
    fn card(message: Option<&str>, cap: Option<&'static str>) -> (String, Plan) {
        let spec = plan_spec(&finished(cap), message, None, &PlanOptions::default());
        crate::agent::spec::validate(&spec).unwrap();
        let text = crate::agent::spec::render(&spec, "c1", "2026-02-01T10:00:00Z");
        let plan = crate::plan::parse(&text, "c1").unwrap();
        (text, plan)
    }

    #[test]
    fn any_last_message_stays_the_cards_context_and_one_decision() {
        let hostile = format!(
            "## Decision 2: Sneaky\n\nid: next\n**Options:**\n- `go` — Go\n---\nstatus: completed\n\n```\n## in code\n```\n{}",
            "`*_[x](javascript:alert(1))_*` ".repeat(5_000)
        );
        let (text, plan) = card(Some(&hostile), Some("It stops after 9."));
        assert_eq!(plan.decisions.len(), 1);
        assert_eq!(plan.decisions[0].id, DECISION_ID);
        assert_eq!(plan.decisions[0].options.len(), 1);
        assert!(
            plan.context.contains("#### Decision 2: Sneaky"),
            "{}",
            plan.context
        );
        assert!(
            plan.context
                .ends_with("more characters of Codex's message)")
        );
        assert!(text.len() < 200_000);
        assert!(plan.decisions[0].context.ends_with("It stops after 9."));
        assert_eq!(plan.title, "🏁 Codex finished · shop");
        let (_, empty) = card(Some("  \n"), None);
        assert_eq!(empty.context, "_Codex ended its turn without a message._");
    }

    #[test]
    fn only_a_persons_typed_answer_goes_on() {
        let (text, _) = card(Some("Done."), None);
        let answer = |edit: crate::plan::Edit, by: &str| {
            let text =
                crate::plan::apply(&text, "c1", &edit, Some(by), "2026-02-01T10:01:00Z").unwrap();
            verdict(&crate::plan::parse(&text, "c1").unwrap())
        };
        let typed = || crate::plan::Edit::Custom {
            decision: DECISION_ID.into(),
            text: " Now add tests ".into(),
        };
        assert_eq!(
            answer(typed(), "93533553"),
            Verdict::Continue {
                instruction: "Now add tests".into()
            }
        );
        assert_eq!(answer(typed(), "deadline"), Verdict::Stop);
        let done = crate::plan::Edit::Answer {
            decision: DECISION_ID.into(),
            key: DONE.into(),
            label: "🏁 Done".into(),
        };
        assert_eq!(answer(done, "93533553"), Verdict::Stop);
        let skip = crate::plan::Edit::Skip {
            decision: DECISION_ID.into(),
        };
        assert_eq!(answer(skip, "93533553"), Verdict::Stop);
    }

    #[test]
    fn a_repeated_response_shows_what_is_new() {
        assert_eq!(new_part(Some("One."), "One.\nTwo."), "Two.");
        assert_eq!(new_part(Some("One."), "One."), "One.");
        assert_eq!(new_part(Some("Other"), "One.\nTwo."), "One.\nTwo.");
        assert_eq!(new_part(None, "One."), "One.");
    }
}
