//! Permission requests: the standing rules first, then the editor, the phone after `--phone-after`, first answer
//! wins; and the withdrawals when a session, the editor or the agent ends.

use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::super::dialect::Kind;
use super::super::jsonrpc;
use super::super::phone::Ask;
use super::{Event, Permission, Relay, say};

impl Relay {
    pub(super) fn permission_asked(&mut self, id: Value, line: String, params: &Value) {
        let acp = self.acp();
        let session = jsonrpc::string(params, "sessionId").unwrap_or_default();
        let cwd = self.sessions.get(session).and_then(|s| s.cwd.clone());
        let request = match acp.request(params, cwd.as_deref()) {
            Ok(request) => request,
            Err(why) => {
                say(&format!("{why}: the editor answers it"));
                return if self.headless() {
                    let answer = json!({"outcome": {"outcome": "cancelled"}});
                    self.to_agent(jsonrpc::result(&id, answer));
                } else {
                    self.to_editor(line);
                };
            }
        };
        let key = jsonrpc::key(&id);
        let Some(phone) = self.settings.phone.clone() else {
            return self.to_editor(line);
        };
        let ask = Ask {
            acp,
            request,
            params: params.clone(),
            cwd,
        };
        let rules_ask = ask.clone();
        let options = self.settings.hook.plan.clone();
        self.permissions.insert(
            key.clone(),
            Permission {
                id,
                line,
                ask,
                forwarded: false,
                phone: None,
            },
        );
        let events = self.events.clone();
        tokio::spawn(async move {
            let (answer, warnings) = phone.ruled(rules_ask, options).await;
            let _ = events.send(Event::Ruled(key, answer, warnings));
        });
    }

    pub(super) fn ruled(&mut self, key: &str, answer: Option<Value>, warnings: &[String]) {
        for warning in warnings {
            eprintln!("{warning}");
        }
        let headless = self.headless();
        let Some(permission) = self.permissions.get_mut(key) else {
            return;
        };
        if let Some(answer) = answer {
            let id = permission.id.clone();
            self.permissions.remove(key);
            return self.to_agent(jsonrpc::result(&id, answer));
        }
        if !headless {
            permission.forwarded = true;
            let line = permission.line.clone();
            self.to_editor(line);
        }
        self.later(self.phone_after(), Event::PhoneDue(key.to_owned()));
    }

    pub(super) fn phone_due(&mut self, key: &str) {
        let Some(phone) = self.settings.phone.clone() else {
            return;
        };
        let Some(permission) = self.permissions.get_mut(key) else {
            return;
        };
        let (tell, told) = oneshot::channel();
        permission.phone = Some(tell);
        let ask = permission.ask.clone();
        let options = self.settings.hook.clone();
        let events = self.events.clone();
        let key = key.to_owned();
        self.tasks.push(tokio::spawn(async move {
            let answer = phone.permission(ask, options, told).await;
            let _ = events.send(Event::Phoned(key, answer));
        }));
    }

    pub(super) fn phoned(&mut self, key: &str, answer: Result<Value, String>) {
        let headless = self.headless();
        let Some(permission) = self.permissions.get_mut(key) else {
            return;
        };
        let answer = match answer {
            Ok(answer) => answer,
            Err(why) if headless => {
                say(&format!("{why}: denied"));
                let cancelled = json!({"outcome": {"outcome": "cancelled"}});
                permission
                    .ask
                    .request
                    .answer(Kind::RejectOnce)
                    .unwrap_or(cancelled)
            }
            Err(why) => {
                permission.phone = None;
                return say(&format!("{why}: the editor answers"));
            }
        };
        let Some(permission) = self.permissions.remove(key) else {
            return;
        };
        self.to_agent(jsonrpc::result(&permission.id, answer));
        if permission.forwarded {
            self.phone_answered.insert(key.to_owned());
            let cancel = json!({"requestId": permission.id});
            self.to_editor(jsonrpc::notification("$/cancel_request", cancel));
        }
    }

    /// The session's open plans are withdrawn with `why`.
    pub(super) fn end_session(&mut self, session: &str, why: &str) {
        for permission in self.permissions.values_mut() {
            if permission.ask.request.call.origin.session.as_deref() == Some(session)
                && let Some(phone) = permission.phone.take()
            {
                let _ = phone.send(why.to_owned());
            }
        }
        if let Some(state) = self.sessions.get_mut(session)
            && let Some(card) = state.card.take()
        {
            let _ = card.send(why.to_owned());
        }
    }

    /// Every open plan is withdrawn with `why`.
    pub(super) fn end_all(&mut self, why: &str) {
        let sessions: Vec<String> = self.sessions.keys().cloned().collect();
        for session in sessions {
            self.end_session(&session, why);
        }
        for permission in self.permissions.values_mut() {
            if let Some(phone) = permission.phone.take() {
                let _ = phone.send(why.to_owned());
            }
        }
    }

    /// The agent exited: the editor's open requests are answered with an error, and every plan is withdrawn.
    pub(super) fn agent_gone(&mut self) {
        self.end_all("the agent's process ended");
        if !self.permissions.is_empty() || !self.asked.is_empty() {
            say("the agent exited with requests open: the editor's get an error");
        }
        for (_, (id, method, _)) in self.asked.drain() {
            let why = format!("the agent exited before answering `{method}`");
            if let Some(editor) = &self.editor {
                let _ = editor.send(super::with_newline(jsonrpc::error(
                    &id,
                    jsonrpc::INTERNAL_ERROR,
                    &why,
                )));
            }
        }
    }
}
