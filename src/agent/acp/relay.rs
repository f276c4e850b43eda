//! The relay's state: which requests are open on which side, which of them are on the phone, each session's folder
//! and current turn. One task owns it and takes one event at a time (a line from either side, a timer, a phone
//! answer), so every decision about a request is made in one place, in order.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc::{self, UnboundedSender};
use tokio::sync::oneshot;

use crate::agent::hook::core::HookOptions;
use std::sync::Arc;

use super::phone::Phone;

use super::dialect::Acp;
use super::jsonrpc::{self, Message};
use super::phone::Ask;
use super::pipes::{self, Piece};

mod permissions;
mod turns;

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
    /// Where the owner is asked (a daemon here or on another machine); `None`: a plain relay.
    pub phone: Option<Arc<dyn Phone>>,
    pub hook: HookOptions,
}

enum Event {
    Editor(Piece),
    EditorClosed,
    Agent(Piece),
    AgentClosed,
    /// The standing rules looked at a permission request: the answer if one allowed it, and their warnings.
    Ruled(String, Option<Value>, Vec<String>),
    PhoneDue(String),
    Phoned(String, Result<Value, String>),
    CardDue(String, u64),
    Carded(String, u64, Result<Option<String>, String>),
    Started(Result<String, String>),
    Signal(&'static str),
    /// The agent had its time to exit after the editor left.
    Grace,
}

/// How long an agent has to exit after its input closed.
const EXIT_GRACE: Duration = Duration::from_secs(10);

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
    ask: Ask,
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
    editor: Option<UnboundedSender<Vec<u8>>>,
    agent: Option<UnboundedSender<Vec<u8>>>,
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
    let agent_writer = pipes::write(agent.stdin, agent_lines);
    pipes::read(
        agent.stdout,
        events.clone(),
        Event::Agent,
        agent_line_matters,
        Event::AgentClosed,
    );
    let (editor, editor_writer) = match settings.mode {
        Mode::Beside { .. } => {
            let (to_editor, editor_lines) = mpsc::unbounded_channel();
            let writer = pipes::write_blocking(std::io::stdout(), editor_lines);
            pipes::read(
                tokio::io::stdin(),
                events.clone(),
                Event::Editor,
                pipes::every_line,
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
                // The agent reads the end of its input and exits (what it still writes goes on to the editor); it is
                // stopped if it has not within the grace.
                relay.agent = None;
                relay.later(EXIT_GRACE, Event::Grace);
            }
            Event::Grace => break,
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
        None => match tokio::time::timeout(EXIT_GRACE, agent.child.wait()).await {
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

/// Whether the relay must read an agent's line: one that may be a request, an answer or the agent's message text.
/// Most of a stream is updates the relay needs nothing of, passed on unread.
fn agent_line_matters(line: &[u8]) -> bool {
    use std::sync::LazyLock;
    static ID: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"\"id\""));
    static TEXT: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"agent_message_chunk"));
    ID.find(line).is_some() || TEXT.find(line).is_some()
}

fn with_newline(line: String) -> Vec<u8> {
    let mut bytes = line.into_bytes();
    bytes.push(b'\n');
    bytes
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
        if self.settings.phone.is_none() {
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
            let _ = editor.send(with_newline(line));
        }
    }

    fn to_agent(&self, line: String) {
        if let Some(agent) = &self.agent {
            let _ = agent.send(with_newline(line));
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
            Event::Editor(Piece::Line(line)) => self.editor_said(line),
            Event::Agent(Piece::Line(line)) => self.agent_said(line),
            // Lines that need nothing of the relay (every editor line is read; most of an agent's stream is not).
            Event::Editor(Piece::Pass(bytes)) => {
                if let Some(agent) = &self.agent {
                    let _ = agent.send(bytes);
                }
            }
            Event::Agent(Piece::Pass(bytes)) => {
                if self.headless() {
                    return;
                }
                if let Some(editor) = &self.editor {
                    let _ = editor.send(bytes);
                }
            }
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
            Event::EditorClosed | Event::AgentClosed | Event::Signal(_) | Event::Grace => {}
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
}
