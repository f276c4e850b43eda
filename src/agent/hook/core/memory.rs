//! What the hooks remember between calls of one agent session, in `<queue>/sessions/<agent>/<session>.json`:
//! the calls the owner allowed for the rest of the session (`✅ Allow for this session` for an agent that keeps no
//! such rule itself), and the session's finished cards (the last one, to send the next as a reply to it and never
//! to push one turn twice; what Gemini's cumulative response had already shown).
//!
//! Every read-modify-write holds `<queue>/sessions/.lock`, so parallel hooks of one session lose nothing; the file
//! is written with the queue's atomic writer. A file that does not read is an empty memory: no allow, ever, from a
//! file that can't be trusted.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::clock::now as now_rfc3339;
use crate::plan::slug::file_component;
use crate::queue::{Queue, atomic, audit};

use super::Dialect;
use super::text::cut;
use super::{Reply, ToolCall, Verdict};

/// One session's memory.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// Calls allowed for the rest of the session.
    #[serde(default)]
    pub allowed: Vec<Allowed>,
    /// The session's last finished card.
    #[serde(default)]
    pub finished: Option<Card>,
}

/// A call the owner allowed for the session: the tool and what it acts on (see [`key`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Allowed {
    pub tool: String,
    pub what: String,
    /// The plan whose answer allowed it (its audit lines name it).
    pub plan: String,
    pub at: String,
}

/// A finished card pushed for the session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Card {
    pub plan: String,
    /// SHA-256 of the last message it shows: the same turn finishing twice reuses the card.
    pub digest: String,
    /// The agent's whole response as it came (Gemini's repeats earlier turns): the next card shows what follows it.
    #[serde(default)]
    pub response: Option<String>,
}

/// One session's memory file, locked while this lives.
pub struct Memory {
    path: PathBuf,
    _lock: File,
}

impl Memory {
    /// Locks the memory of `agent`'s `session` in `queue` (waiting for another hook that holds it).
    pub fn open(queue: &Queue, agent: &str, session: &str) -> io::Result<Memory> {
        let dir = queue.root().join("sessions");
        let folder = dir.join(file_component(agent));
        fs::create_dir_all(&folder)?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(".lock"))?;
        lock.lock()?;
        let digest = hex::encode(Sha256::digest(session.as_bytes()));
        let name = format!(
            "{}-{}.json",
            cut(&file_component(session), 60).trim_end_matches('…'),
            &digest[..8]
        );
        Ok(Memory {
            path: folder.join(name),
            _lock: lock,
        })
    }

    /// What the file holds; empty when there is none or it does not read.
    #[must_use]
    pub fn read(&self) -> Session {
        fs::read(&self.path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    pub fn write(&self, session: &Session) -> io::Result<()> {
        let mut bytes = serde_json::to_vec_pretty(session).map_err(io::Error::other)?;
        bytes.push(b'\n');
        atomic::write_atomic(&self.path, &bytes)
    }
}

/// What an allow for the session covers: the tool and the exact command, the files an edit changes, or the exact
/// input of any other call.
#[must_use]
pub fn key(call: &ToolCall) -> (String, String) {
    call.key()
}

/// The grant as the audit trail records it: `{"tool": …, "what": …}`.
#[must_use]
pub fn describe(call: &ToolCall) -> String {
    let (tool, what) = key(call);
    serde_json::json!({"session": call.origin.session, "tool": tool, "what": what}).to_string()
}

/// Remembers that the owner allowed `call` for the rest of its session (answered on plan `plan`).
pub fn remember(queue: &Queue, call: &ToolCall, plan: &str) -> io::Result<()> {
    let Some(session) = call.origin.session.as_deref() else {
        return Err(io::Error::other("the agent names no session"));
    };
    let memory = Memory::open(queue, call.origin.agent.name, session)?;
    let mut state = memory.read();
    let (tool, what) = key(call);
    if !state
        .allowed
        .iter()
        .any(|a| a.tool == tool && a.what == what)
    {
        state.allowed.push(Allowed {
            tool,
            what,
            plan: plan.to_owned(),
            at: now_rfc3339(),
        });
    }
    memory.write(&state)
}

/// The allow the owner gave this call earlier in its session, as the reply, once its use is in the audit trail.
/// `None` when there is none (or its use can't be audited: then the owner is asked). An allow given to an agent on
/// another machine counts for that machine only (`machine`: the asking hook's, from its token).
#[must_use]
pub fn allowed_before(
    queue: &Queue,
    dialect: &dyn Dialect,
    call: &ToolCall,
    machine: Option<&str>,
) -> Option<Reply> {
    let session = call.origin.session.as_deref()?;
    let (tool, what) = key(call);
    // Most calls get here: a session that never had an allow has no file, and nothing is written for it.
    let allowed = {
        let memory = Memory::open(queue, call.origin.agent.name, session).ok()?;
        if !memory.path.exists() {
            return None;
        }
        memory
            .read()
            .allowed
            .into_iter()
            .find(|a| a.tool == tool && a.what == what)?
    };
    let granting = queue.find(&allowed.plan).ok()?;
    if granting.plan.machine.as_deref() != machine {
        return None;
    }
    let change = audit::Change {
        at: &now_rfc3339(),
        actor: &super::actor(dialect, machine),
        action: "allow-for-session",
        plan: &allowed.plan,
        revision: granting.plan.revision,
        decision: Some(super::permission::DECISION_ID),
        value: Some(&describe(call)),
        ..audit::Change::default()
    };
    queue.audit(&granting.path, change).ok()?;
    let verdict = Verdict::allow(format!(
        "Allowed for this session via Arbiter (plan {})",
        allowed.plan
    ));
    Some(Reply {
        stdout: dialect.render(call.event, &verdict),
        stderr: None,
    })
}
