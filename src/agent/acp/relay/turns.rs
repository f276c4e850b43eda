//! Turns: the relay's own requests (a headless session's start, the phone's instructions as prompts), the end of
//! a turn and its finished card.

use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::super::dialect::Acp;
use super::super::jsonrpc;
use super::{Event, Mode, Own, Relay, say};
use crate::agent::hook::core::Origin;

impl Relay {
    pub(super) fn own_answered(&mut self, own: Own, result: Result<Value, Value>) {
        let result = match result {
            Ok(result) => result,
            Err(error) => {
                say(&format!("the agent refused Arbiter's request: {error}"));
                if self.headless() {
                    self.done = Some(1);
                }
                return;
            }
        };
        match own {
            Own::Initialize => {
                if self.settings.agent_name.is_none()
                    && let Some(name) = result["agentInfo"]["name"].as_str()
                {
                    self.acp = Some(Acp::named(name, result["agentInfo"]["title"].as_str()));
                }
                let cwd = match &self.settings.mode {
                    Mode::Headless { cwd, .. } => cwd.clone(),
                    Mode::Beside { .. } => return,
                };
                self.ask_agent(
                    Own::NewSession,
                    "session/new",
                    json!({"cwd": cwd, "mcpServers": []}),
                );
            }
            Own::NewSession => {
                let Some(session) = result["sessionId"].as_str().map(str::to_owned) else {
                    say("the agent opened no session");
                    self.done = Some(1);
                    return;
                };
                let (cwd, prompt) = match &self.settings.mode {
                    Mode::Headless { cwd, prompt } => (cwd.clone(), prompt.clone()),
                    Mode::Beside { .. } => return,
                };
                self.sessions.entry(session.clone()).or_default().cwd = Some(cwd);
                match prompt {
                    Some(text) => self.prompt(&session, &text),
                    None => self.ask_first(&session),
                }
            }
            Own::Prompt(session) => self.turn_ended(session),
        }
    }

    /// The phone's instruction, as a prompt of the relay's own; the editor sees it in its transcript.
    pub(super) fn prompt(&mut self, session: &str, text: &str) {
        self.next_turn(session, "the phone sent the next prompt");
        let chunk = json!({"sessionId": session, "update": {"sessionUpdate": "user_message_chunk",
            "content": {"type": "text", "text": text}}});
        self.to_editor(jsonrpc::notification("session/update", chunk));
        let params = json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]});
        self.ask_agent(Own::Prompt(session.to_owned()), "session/prompt", params);
    }

    pub(super) fn origin(&mut self, session: &str) -> Origin {
        let agent = self.acp().agent;
        Origin {
            agent,
            session: Some(session.to_owned()),
            cwd: self.sessions.get(session).and_then(|s| s.cwd.clone()),
        }
    }

    pub(super) fn ask_first(&mut self, session: &str) {
        let Some(phone) = self.settings.phone.clone() else {
            return;
        };
        let origin = self.origin(session);
        let (tell, told) = oneshot::channel();
        self.sessions.entry(session.to_owned()).or_default().card = Some(tell);
        let options = self.settings.hook.clone();
        let events = self.events.clone();
        self.tasks.push(tokio::spawn(async move {
            let prompt = phone.first_prompt(origin, options, told).await;
            let _ = events.send(Event::Started(prompt));
        }));
    }

    /// A new turn of `session` starts: its card, if one waits, is withdrawn.
    pub(super) fn next_turn(&mut self, session: &str, why: &str) {
        let state = self.sessions.entry(session.to_owned()).or_default();
        state.turn += 1;
        state.text.clear();
        if let Some(card) = state.card.take() {
            let _ = card.send(why.to_owned());
        }
    }

    pub(super) fn turn_ended(&mut self, session: String) {
        if self.settings.phone.is_none() {
            return;
        }
        let turn = self.sessions.entry(session.clone()).or_default().turn;
        self.later(self.phone_after(), Event::CardDue(session, turn));
    }

    pub(super) fn card_due(&mut self, session: &str, turn: u64) {
        let Some(phone) = self.settings.phone.clone() else {
            return;
        };
        if self
            .sessions
            .get(session)
            .is_none_or(|s| s.turn != turn || s.card.is_some())
        {
            return;
        }
        let origin = self.origin(session);
        let state = self.sessions.entry(session.to_owned()).or_default();
        let message = state.text.clone();
        let (tell, told) = oneshot::channel();
        state.card = Some(tell);
        let options = self.settings.hook.clone();
        let events = self.events.clone();
        let session = session.to_owned();
        self.tasks.push(tokio::spawn(async move {
            let verdict = phone.card(origin, message, options, told).await;
            let _ = events.send(Event::Carded(session, turn, verdict));
        }));
    }

    pub(super) fn carded(
        &mut self,
        session: &str,
        turn: u64,
        verdict: Result<Option<String>, String>,
    ) {
        let Some(state) = self.sessions.get_mut(session) else {
            return;
        };
        if state.turn != turn {
            return;
        }
        state.card = None;
        match verdict {
            Ok(Some(instruction)) => self.prompt(session, &instruction),
            Ok(None) => {
                if self.headless() {
                    say("the owner tapped 🏁 Done: the session ends");
                    self.done = Some(0);
                }
            }
            Err(why) => {
                say(&format!("the finished card: {why}"));
                if self.headless() {
                    self.done = Some(0);
                }
            }
        }
    }
}
