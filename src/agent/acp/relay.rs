//! The relay's state: which requests are open on which side, which of them are on the phone, each session's folder
//! and current turn. One task owns it and takes one event at a time (a line from either side, a timer, a phone
//! answer), so every decision about a request is made in one place, in order.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc::{self, UnboundedSender};
use tokio::sync::oneshot;

use crate::agent::hook::core::{HookOptions, Origin, Verdict};
use crate::queue::Queue;

use super::dialect::{Acp, Kind, Request};
use super::jsonrpc::{self, Message};
use super::{phone, pipes};

/// Who the relay's client is.
#[derive(Debug, Clone)]
pub enum Mode {
    /// An editor on stdio: the phone gets what it leaves waiting for `phone_after`.
    Beside { phone_after: Duration },
    /// No editor (`arbiter acp run`): a session in `cwd`, `prompt` first (or the phone's instruction).
    Headless { cwd: String, prompt: Option<String> },
}

/// How the relay runs.
pub struct Settings {
    pub mode: Mode,
    /// `--agent-name`, over the agent's own `agentInfo.name`.
    pub agent_name: Option<String>,
    /// The queue the phone reads; `None`: a plain relay.
    pub queue: Option<Queue>,
    pub hook: HookOptions,
}

enum Event {
    Editor(String),
    EditorClosed,
    Agent(String),
    AgentClosed,
    /// The standing rules looked at a permission request: the answer if one allowed it, and their warnings.
    Ruled(String, Option<Value>, Vec<String>),
    PhoneDue(String),
    Phoned(String, Result<Value, String>),
    CardDue(String, u64),
    Carded(String, u64, Result<Verdict, String>),
    Started(Result<String, String>),
    Signal(&'static str),
}

/// A request the relay made of the agent itself.
enum Own {
    Initialize,
    NewSession,
    Prompt(String),
}

/// A permission request of the agent's, open.
struct Permission {
    id: Value,
    line: String,
    request: Request,
    /// Sent on to the editor (then a phone answer cancels the editor's copy).
    forwarded: bool,
    /// On the phone: tells its task to stop waiting, and why.
    phone: Option<oneshot::Sender<String>>,
}

#[derive(Default)]
struct Session {
    cwd: Option<String>,
    /// The agent's message text of the current turn (its `agent_message_chunk`s).
    text: String,
    turn: u64,
    /// The finished turn's card, on the phone.
    card: Option<oneshot::Sender<String>>,
}

struct Relay {
    settings: Settings,
    acp: Option<Acp>,
    editor: Option<UnboundedSender<String>>,
    agent: Option<UnboundedSender<String>>,
    events: UnboundedSender<Event>,
    next_id: u64,
    /// The editor's open requests of the agent: their method and session.
    asked: HashMap<String, (Value, String, Option<Value>)>,
    own: HashMap<String, Own>,
    permissions: HashMap<String, Permission>,
    /// Permission requests the phone answered first: the editor's late answer is dropped.
    phone_answered: HashSet<String>,
    sessions: HashMap<String, Session>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    /// Headless: the session ended (Done, a timeout, a withdrawal); the exit code.
    done: Option<i32>,
}

/// Runs the relay around `command` until the agent exits (or, headless, the session ends); returns the exit code.
pub async fn run(settings: Settings, command: &[String]) -> i32 {
    let cwd = match &settings.mode {
        Mode::Headless { cwd, .. } => Some(std::path::PathBuf::from(cwd)),
        Mode::Beside { .. } => None,
    };
    let mut agent = match pipes::spawn(command, cwd.as_deref()) {
        Ok(agent) => agent,
        Err(e) => {
            eprintln!("arbiter acp: cannot start `{}`: {e}", command.join(" "));
            return 2;
        }
    };
    let (events, mut inbox) = mpsc::unbounded_channel();
    let (to_agent, agent_lines) = mpsc::unbounded_channel();
    let agent_writer = pipes::write_lines(agent.stdin, agent_lines);
    pipes::read_lines(
        agent.stdout,
        events.clone(),
        Event::Agent,
        Event::AgentClosed,
    );
    let (editor, editor_writer) = match settings.mode {
        Mode::Beside { .. } => {
            let (to_editor, editor_lines) = mpsc::unbounded_channel();
            let writer = pipes::write_lines(tokio::io::stdout(), editor_lines);
            pipes::read_lines(
                tokio::io::stdin(),
                events.clone(),
                Event::Editor,
                Event::EditorClosed,
            );
            (Some(to_editor), Some(writer))
        }
        Mode::Headless { .. } => (None, None),
    };
    signals(events.clone());
    let mut relay = Relay {
        acp: settings.agent_name.as_deref().map(|n| Acp::named(n, None)),
        settings,
        editor,
        agent: Some(to_agent),
        events,
        next_id: 0,
        asked: HashMap::new(),
        own: HashMap::new(),
        permissions: HashMap::new(),
        phone_answered: HashSet::new(),
        sessions: HashMap::new(),
        tasks: Vec::new(),
        done: None,
    };
    relay.start();
    let mut agent_exited = false;
    while let Some(event) = inbox.recv().await {
        match event {
            Event::AgentClosed => {
                agent_exited = true;
                break;
            }
            Event::EditorClosed => {
                relay.end_all("the editor closed the connection");
                // The agent reads the end of its input and exits; it is stopped if it does not.
                relay.agent = None;
                break;
            }
            Event::Signal(name) => {
                relay.end_all(&format!("arbiter acp was stopped ({name})"));
                relay.done = Some(0);
                break;
            }
            event => relay.on(event),
        }
        if relay.done.is_some() {
            relay.end_all("the session ended");
            break;
        }
    }
    if agent_exited {
        relay.agent_gone();
    }
    relay.agent = None;
    let _ = tokio::time::timeout(Duration::from_secs(5), agent_writer).await;
    let code = match relay.done {
        Some(code) => {
            pipes::stop(&mut agent.child, Duration::from_secs(3)).await;
            code
        }
        None => match tokio::time::timeout(Duration::from_secs(10), agent.child.wait()).await {
            Ok(Ok(status)) => status.code().unwrap_or(1),
            _ => {
                pipes::stop(&mut agent.child, Duration::from_secs(2)).await;
                1
            }
        },
    };
    // Every plan still open is withdrawn before the relay exits.
    for task in relay.tasks.drain(..) {
        let _ = tokio::time::timeout(Duration::from_secs(10), task).await;
    }
    relay.editor = None;
    if let Some(writer) = editor_writer {
        let _ = tokio::time::timeout(Duration::from_secs(5), writer).await;
    }
    code
}

/// SIGTERM, SIGINT and SIGHUP end the relay (its plans withdrawn, the agent stopped).
fn signals(events: UnboundedSender<Event>) {
    use tokio::signal::unix::{SignalKind, signal};
    for (kind, name) in [
        (SignalKind::terminate(), "SIGTERM"),
        (SignalKind::interrupt(), "SIGINT"),
        (SignalKind::hangup(), "SIGHUP"),
    ] {
        if let Ok(mut signal) = signal(kind) {
            let events = events.clone();
            tokio::spawn(async move {
                signal.recv().await;
                let _ = events.send(Event::Signal(name));
            });
        }
    }
}

fn say(line: &str) {
    eprintln!("arbiter acp: {line}");
}

impl Relay {
    fn headless(&self) -> bool {
        matches!(self.settings.mode, Mode::Headless { .. })
    }

    /// How long the editor has before the phone is asked.
    fn phone_after(&self) -> Duration {
        match self.settings.mode {
            Mode::Beside { phone_after } => phone_after,
            Mode::Headless { .. } => Duration::ZERO,
        }
    }

    fn start(&mut self) {
        if self.settings.queue.is_none() {
            return;
        }
        if let Mode::Headless { .. } = self.settings.mode {
            let params = json!({
                "protocolVersion": 1,
                "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
                "clientInfo": {"name": "arbiter", "version": env!("CARGO_PKG_VERSION")}
            });
            self.ask_agent(Own::Initialize, "initialize", params);
        }
    }

    fn to_editor(&self, line: String) {
        if let Some(editor) = &self.editor {
            let _ = editor.send(line);
        }
    }

    fn to_agent(&self, line: String) {
        if let Some(agent) = &self.agent {
            let _ = agent.send(line);
        }
    }

    /// Sends a request of the relay's own to the agent (its id can't be mistaken for the editor's).
    fn ask_agent(&mut self, own: Own, method: &str, params: Value) {
        self.next_id += 1;
        let id = Value::String(format!("arbiter-{}", self.next_id));
        self.own.insert(jsonrpc::key(&id), own);
        self.to_agent(jsonrpc::request(&id, method, params));
    }

    fn acp(&mut self) -> Acp {
        *self
            .acp
            .get_or_insert_with(|| Acp::named("agent", Some("The agent")))
    }

    fn later(&self, after: Duration, event: Event) {
        let events = self.events.clone();
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            let _ = events.send(event);
        });
    }

    fn on(&mut self, event: Event) {
        match event {
            Event::Editor(line) => self.editor_said(line),
            Event::Agent(line) => self.agent_said(line),
            Event::Ruled(key, answer, warnings) => self.ruled(&key, answer, &warnings),
            Event::PhoneDue(key) => self.phone_due(&key),
            Event::Phoned(key, answer) => self.phoned(&key, answer),
            Event::CardDue(session, turn) => self.card_due(&session, turn),
            Event::Carded(session, turn, verdict) => self.carded(&session, turn, verdict),
            Event::Started(prompt) => match prompt {
                Ok(text) => {
                    if let Some(session) = self.sessions.keys().next().cloned() {
                        self.prompt(&session, &text);
                    }
                }
                Err(why) => {
                    say(&format!("{why}: the session ends"));
                    self.done = Some(0);
                }
            },
            Event::EditorClosed | Event::AgentClosed | Event::Signal(_) => {}
        }
    }

    fn editor_said(&mut self, line: String) {
        match jsonrpc::read(&line) {
            Message::Request { id, method, params } => {
                if method == "session/prompt"
                    && let Some(session) = jsonrpc::string(&params, "sessionId")
                {
                    self.next_turn(session, "the editor sent the next prompt");
                }
                self.asked
                    .insert(jsonrpc::key(&id), (id, method, Some(params)));
            }
            Message::Response { id, .. } => {
                let key = jsonrpc::key(&id);
                if self.phone_answered.remove(&key) {
                    say(&format!(
                        "the editor answered permission request {id} after the phone did: its answer is dropped"
                    ));
                    return;
                }
                match self.permissions.remove(&key) {
                    Some(permission) => {
                        if let Some(phone) = permission.phone {
                            let _ = phone.send("answered in the editor".to_owned());
                        }
                    }
                    None => say(&format!(
                        "the editor answered request {id}, which the agent has not made: passed on"
                    )),
                }
            }
            Message::Notification { method, params } => {
                if method == "session/cancel"
                    && let Some(session) = jsonrpc::string(&params, "sessionId")
                {
                    let session = session.to_owned();
                    self.end_session(&session, "the editor cancelled the turn");
                }
            }
            Message::Invalid(why) => say(&format!(
                "a line from the editor is not JSON-RPC ({why}): passed on to the agent"
            )),
        }
        self.to_agent(line);
    }

    fn agent_said(&mut self, line: String) {
        // Most of a stream is updates the relay needs nothing of: only lines that may be requests, answers or the
        // agent's message text are read.
        let may_matter = line.contains("\"id\"") || line.contains("agent_message_chunk");
        if !may_matter {
            return self.to_editor(line);
        }
        match jsonrpc::read(&line) {
            Message::Request { id, method, params } if method == "session/request_permission" => {
                self.permission_asked(id, line, &params);
            }
            Message::Request { id, method, .. } => {
                if self.headless() {
                    // Offered no capability: Arbiter reads and runs nothing for the agent.
                    let why = format!("`{method}` is not offered by arbiter acp run");
                    self.to_agent(jsonrpc::error(&id, jsonrpc::METHOD_NOT_FOUND, &why));
                } else {
                    self.to_editor(line);
                }
            }
            Message::Response { id, result } => {
                let key = jsonrpc::key(&id);
                if let Some(own) = self.own.remove(&key) {
                    return self.own_answered(own, result);
                }
                if let Some((_, method, params)) = self.asked.remove(&key) {
                    self.answered(&method, params.as_ref(), result.as_ref().ok());
                }
                self.to_editor(line);
            }
            Message::Notification { method, params } => {
                if method == "session/update" {
                    self.update(&params);
                }
                self.to_editor(line);
            }
            Message::Invalid(why) => {
                say(&format!(
                    "a line from the agent is not JSON-RPC ({why}): passed on to the editor"
                ));
                self.to_editor(line);
            }
        }
    }

    /// Keeps the agent's message text of the turn, for its finished card.
    fn update(&mut self, params: &Value) {
        let Some(session) = jsonrpc::string(params, "sessionId") else {
            return;
        };
        let update = &params["update"];
        if update["sessionUpdate"] == "agent_message_chunk"
            && let Some(text) = update["content"]["text"].as_str()
        {
            self.sessions
                .entry(session.to_owned())
                .or_default()
                .text
                .push_str(text);
        }
    }

    /// The agent answered one of the editor's requests: what the relay learns from it.
    fn answered(&mut self, method: &str, params: Option<&Value>, result: Option<&Value>) {
        let Some(result) = result else {
            return;
        };
        match method {
            "initialize" if self.settings.agent_name.is_none() => {
                let info = &result["agentInfo"];
                if let Some(name) = info["name"].as_str() {
                    self.acp = Some(Acp::named(name, info["title"].as_str()));
                }
            }
            "session/new" | "session/load" => {
                let session = result["sessionId"]
                    .as_str()
                    .or_else(|| params.and_then(|p| jsonrpc::string(p, "sessionId")));
                let cwd = params.and_then(|p| jsonrpc::string(p, "cwd"));
                if let Some(session) = session {
                    self.sessions.entry(session.to_owned()).or_default().cwd =
                        cwd.map(str::to_owned);
                }
            }
            "session/prompt" => {
                if let Some(session) = params.and_then(|p| jsonrpc::string(p, "sessionId")) {
                    self.turn_ended(session.to_owned());
                }
            }
            _ => {}
        }
    }

    fn own_answered(&mut self, own: Own, result: Result<Value, Value>) {
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
    fn prompt(&mut self, session: &str, text: &str) {
        self.next_turn(session, "the phone sent the next prompt");
        let chunk = json!({"sessionId": session, "update": {"sessionUpdate": "user_message_chunk",
            "content": {"type": "text", "text": text}}});
        self.to_editor(jsonrpc::notification("session/update", chunk));
        let params = json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]});
        self.ask_agent(Own::Prompt(session.to_owned()), "session/prompt", params);
    }

    fn origin(&mut self, session: &str) -> Origin {
        let agent = self.acp().agent;
        Origin {
            agent,
            session: Some(session.to_owned()),
            cwd: self.sessions.get(session).and_then(|s| s.cwd.clone()),
        }
    }

    fn ask_first(&mut self, session: &str) {
        let Some(queue) = self.settings.queue.clone() else {
            return;
        };
        let origin = self.origin(session);
        let (tell, told) = oneshot::channel();
        self.sessions.entry(session.to_owned()).or_default().card = Some(tell);
        let options = self.settings.hook.clone();
        let events = self.events.clone();
        self.tasks.push(tokio::spawn(async move {
            let prompt = phone::first_prompt(queue, origin, options, told).await;
            let _ = events.send(Event::Started(prompt));
        }));
    }

    /// A new turn of `session` starts: its card, if one waits, is withdrawn.
    fn next_turn(&mut self, session: &str, why: &str) {
        let state = self.sessions.entry(session.to_owned()).or_default();
        state.turn += 1;
        state.text.clear();
        if let Some(card) = state.card.take() {
            let _ = card.send(why.to_owned());
        }
    }

    fn turn_ended(&mut self, session: String) {
        if self.settings.queue.is_none() {
            return;
        }
        let turn = self.sessions.entry(session.clone()).or_default().turn;
        self.later(self.phone_after(), Event::CardDue(session, turn));
    }

    fn card_due(&mut self, session: &str, turn: u64) {
        let Some(queue) = self.settings.queue.clone() else {
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
            let verdict = phone::card(queue, origin, message, options, told).await;
            let _ = events.send(Event::Carded(session, turn, verdict));
        }));
    }

    fn carded(&mut self, session: &str, turn: u64, verdict: Result<Verdict, String>) {
        let Some(state) = self.sessions.get_mut(session) else {
            return;
        };
        if state.turn != turn {
            return;
        }
        state.card = None;
        match verdict {
            Ok(Verdict::Continue { instruction }) => self.prompt(session, &instruction),
            Ok(_) => {
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

    fn permission_asked(&mut self, id: Value, line: String, params: &Value) {
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
        let Some(queue) = self.settings.queue.clone() else {
            return self.to_editor(line);
        };
        let rules_request = request.clone();
        let options = self.settings.hook.plan.clone();
        self.permissions.insert(
            key.clone(),
            Permission {
                id,
                line,
                request,
                forwarded: false,
                phone: None,
            },
        );
        let events = self.events.clone();
        tokio::task::spawn_blocking(move || {
            let (answer, warnings) = phone::ruled(&queue, &acp, &rules_request, &options);
            let _ = events.send(Event::Ruled(key, answer, warnings));
        });
    }

    fn ruled(&mut self, key: &str, answer: Option<Value>, warnings: &[String]) {
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

    fn phone_due(&mut self, key: &str) {
        let Some(queue) = self.settings.queue.clone() else {
            return;
        };
        let Some(permission) = self.permissions.get_mut(key) else {
            return;
        };
        let (tell, told) = oneshot::channel();
        permission.phone = Some(tell);
        let request = permission.request.clone();
        let options = self.settings.hook.clone();
        let events = self.events.clone();
        let key = key.to_owned();
        self.tasks.push(tokio::spawn(async move {
            let answer = phone::permission(queue, request, options, told).await;
            let _ = events.send(Event::Phoned(key, answer));
        }));
    }

    fn phoned(&mut self, key: &str, answer: Result<Value, String>) {
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
    fn end_session(&mut self, session: &str, why: &str) {
        for permission in self.permissions.values_mut() {
            if permission.request.call.origin.session.as_deref() == Some(session)
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
    fn end_all(&mut self, why: &str) {
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
    fn agent_gone(&mut self) {
        self.end_all("the agent's process ended");
        if !self.permissions.is_empty() || !self.asked.is_empty() {
            say("the agent exited with requests open: the editor's get an error");
        }
        for (_, (id, method, _)) in self.asked.drain() {
            let why = format!("the agent exited before answering `{method}`");
            if let Some(editor) = &self.editor {
                let _ = editor.send(jsonrpc::error(&id, jsonrpc::INTERNAL_ERROR, &why));
            }
        }
    }
}
