//! Standing rules: `<queue>/rules.json`, the answers the owner gave once for every prompt of a kind.
//!
//! A rule answers a prompt before anyone sees it: a tool permission of one agent (that exact command in that
//! project, or for a grant every call of one session until it expires), or a pushed plan's one decision of a
//! shape (agent, decision id, option keys and labels). The file is read whole on every prompt (it is small) and
//! written whole, atomically, under `<queue>/.rules.lock`, so parallel hooks lose no `fired` count.
//!
//! A rule is honoured only if the audit trail still holds the line that made it: each rule keeps where that line
//! is ([`Located`]) and the line names the rule's id and everything it binds ([`Rule::binding`]). One line is read
//! per prompt, not the trail. A file that does not read is no rule at all (and a warning), never an allow.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::atomic::{Options, hold_lock, write_atomic, write_with};
use super::audit::{self, Located};

mod matching;
mod streaks;

pub use matching::{Ask, Shape};
pub use streaks::{STREAK, Streak, Streaks};

/// The file in the queue root.
pub const FILE: &str = "rules.json";
/// The lock every writer of `rules.json` (and of the streaks beside it) holds.
const LOCK: &str = ".rules.lock";
/// The schema version this code writes and reads.
pub const VERSION: u32 = 1;
/// What a permission rule answers.
pub const ALLOW: &str = "allow";
/// What the audit trail calls the line that makes a rule.
pub const MADE: &str = "rule";
/// Longest `rules.json` read (a rule is a few hundred bytes).
const MAX_BYTES: u64 = 4 * 1024 * 1024;

/// `rules.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    pub version: u32,
    pub rules: Vec<Rule>,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            version: VERSION,
            rules: Vec::new(),
        }
    }
}

/// One standing rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// `r` and 7 letters or digits.
    pub id: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    /// The Telegram user id of the approver whose tap made it.
    pub created_by: u64,
    /// The agent whose prompts it answers (the plan's `agent`).
    pub agent: String,
    /// The project folder (absolute), or null for prompts that name none.
    pub project: Option<String>,
    /// For a grant: the one agent session it covers; else null.
    pub session: Option<String>,
    /// Which prompts it answers.
    #[serde(rename = "match")]
    pub matches: Match,
    /// What it answers: `allow` for a permission, an option key (or `true`/`false`) for a decision.
    pub answer: String,
    /// How many prompts it answered.
    pub fired: u64,
    pub last_fired: Option<String>,
    pub state: State,
    /// When a grant ends (RFC 3339); null for a rule that does not expire.
    pub expires_at: Option<String>,
    /// The plan whose answer made it.
    pub plan: String,
    /// Where the audit line that made it is.
    pub audit: Located,
    /// Failures in a row of what it allowed (a tool result reporting an error); two pause it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failures: u32,
    /// Calls it allowed whose result has not come back yet (at most [`AWAITING`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub awaiting: Vec<Awaiting>,
    /// Why and when it was last paused, resumed or revoked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<StateChange>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Calls remembered per rule while their results are awaited.
pub const AWAITING: usize = 16;
/// Failures in a row that pause a rule.
pub const FAILURES_TO_PAUSE: u32 = 2;

/// Which prompts a rule answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Match {
    /// A tool permission: the agent's tool name and the exact command (the files an edit changes, the input of
    /// any other call). Both null for a grant: every call.
    Permission(Permission),
    /// A pushed plan's one decision: its id and its options exactly as shown.
    Decision(DecisionShape),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Permission {
    pub tool: Option<String>,
    pub command: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionShape {
    pub decision: String,
    /// `choice` or `boolean`.
    #[serde(default = "choice")]
    pub kind: String,
    pub options: Vec<OptionShape>,
}

fn choice() -> String {
    "choice".to_owned()
}

/// One option as the owner saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionShape {
    pub key: String,
    pub label: String,
}

/// Where a rule stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Active,
    Paused,
    Revoked,
    Expired,
}

impl State {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            State::Active => "active",
            State::Paused => "paused",
            State::Revoked => "revoked",
            State::Expired => "expired",
        }
    }
}

/// A call a rule allowed, until its result comes back (the failures that pause a rule are counted on these).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Awaiting {
    pub session: Option<String>,
    pub tool: String,
    /// SHA-256 (hex, first 16) of the command as allowed.
    pub what: String,
}

/// The last pause, resume or revocation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateChange {
    pub at: String,
    /// A user id, or `rule:<id>` when it paused itself.
    pub by: String,
    /// Why, when it paused itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The daemon told the owner of a pause the rule made itself.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub told: bool,
}

/// Why `rules.json` can't be used. A file that does not read means no rule at all.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("{} does not read ({reason}): no rule answers anything until it is fixed or removed", path.display())]
    Invalid { path: PathBuf, reason: String },
    #[error("{} is version {found}; this arbiter reads version {VERSION}", path.display())]
    Version { path: PathBuf, found: u32 },
}

impl Rule {
    /// The state at `now`: an active grant past `expires_at` is expired.
    #[must_use]
    pub fn state_at(&self, now: &str) -> State {
        match (&self.state, &self.expires_at) {
            (State::Active, Some(until)) if expired(until, now) => State::Expired,
            (state, _) => *state,
        }
    }

    /// True for a grant (every call of one session until it expires).
    #[must_use]
    pub fn is_grant(&self) -> bool {
        matches!(
            &self.matches,
            Match::Permission(Permission {
                tool: None,
                command: None
            })
        )
    }

    /// What the line that makes a rule records as its value: every field that says what the rule answers, in a
    /// fixed order, so the rule in the file can be compared with its line.
    #[must_use]
    pub fn binding(&self) -> String {
        #[derive(Serialize)]
        struct Binding<'a> {
            rule: &'a str,
            created_at: &'a str,
            created_by: u64,
            agent: &'a str,
            project: &'a Option<String>,
            session: &'a Option<String>,
            #[serde(rename = "match")]
            matches: &'a Match,
            answer: &'a str,
            expires_at: &'a Option<String>,
            plan: &'a str,
        }
        serde_json::to_string(&Binding {
            rule: &self.id,
            created_at: &self.created_at,
            created_by: self.created_by,
            agent: &self.agent,
            project: &self.project,
            session: &self.session,
            matches: &self.matches,
            answer: &self.answer,
            expires_at: &self.expires_at,
            plan: &self.plan,
        })
        .unwrap_or_default()
    }

    /// True when the audit trail under `queue_root` holds the line that made this rule, at the place the rule
    /// says, naming exactly this rule. A rule written behind Arbiter's back (or whose line was changed) is not
    /// honoured.
    #[must_use]
    pub fn is_on_record(&self, queue_root: &Path) -> bool {
        match audit::line_at(queue_root, &self.audit) {
            Ok(Some(line)) => {
                line.action == MADE
                    && line.actor == self.created_by.to_string()
                    && line.value.as_deref() == Some(self.binding().as_str())
            }
            Ok(None) | Err(_) => false,
        }
    }

    /// The state the audit trail gives the rule (see [`states_on_record`]). Reads the trail from the line that
    /// made it on.
    pub fn state_on_record(&self, queue_root: &Path) -> std::io::Result<State> {
        let states = states_on_record(queue_root, &[self])?;
        Ok(states.get(&self.id).copied().unwrap_or(State::Active))
    }

    /// One line saying what the rule answers, for lists: `Bash \`npm test\``, `every call (grant)`, `db → pg`.
    #[must_use]
    pub fn what(&self) -> String {
        match &self.matches {
            Match::Permission(Permission { tool, command }) => match (tool, command) {
                (None, None) => "every permission prompt of the session".to_owned(),
                (Some(tool), Some(command)) => format!("{tool}: {command}"),
                (Some(tool), None) => format!("{tool}: any"),
                (None, Some(command)) => command.clone(),
            },
            Match::Decision(shape) => {
                let label = shape
                    .options
                    .iter()
                    .find(|o| o.key == self.answer)
                    .map_or(self.answer.as_str(), |o| o.label.as_str());
                format!("{} → {label}", shape.decision)
            }
        }
    }
}

/// The state the audit trail gives each of `rules`, by id: `Revoked` once a `rule_revoke` line names it, else
/// `Paused` or `Active` by the last `rule_pause` (its maker's, a person's, or its own after failures: `<id>:
/// <reason>`) or `rule_resume` line after the one that made it (`Active` when there is none). A state edited in
/// `rules.json` by hand (a revoked rule set `active` again) does not change it. One read of the trail from the
/// earliest of their making lines on, parsing only the lines of the rules' state changes.
pub fn states_on_record(
    queue_root: &Path,
    rules: &[&Rule],
) -> std::io::Result<std::collections::HashMap<String, State>> {
    let mut states: std::collections::HashMap<String, State> = rules
        .iter()
        .map(|r| (r.id.clone(), State::Active))
        .collect();
    let Some(first) = rules
        .iter()
        .map(|r| &r.audit)
        .min_by(|a, b| (&a.file, a.offset).cmp(&(&b.file, b.offset)))
    else {
        return Ok(states);
    };
    for line in audit::later_naming(queue_root, first, "\"action\":\"rule_")? {
        let value = line.value.as_deref().unwrap_or_default();
        let id = value.split_once(": ").map_or(value, |(id, _)| id);
        let Some(state) = states.get_mut(id) else {
            continue;
        };
        match line.action.as_str() {
            "rule_revoke" => *state = State::Revoked,
            "rule_pause" if *state != State::Revoked => *state = State::Paused,
            "rule_resume" if *state != State::Revoked => *state = State::Active,
            _ => {}
        }
    }
    Ok(states)
}

/// True when the RFC 3339 time `until` is at or before `now` (an unreadable time counts as passed: a grant whose
/// end can't be read allows nothing).
#[must_use]
pub fn expired(until: &str, now: &str) -> bool {
    let parse = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok();
    match (parse(until), parse(now)) {
        (Some(until), Some(now)) => until <= now,
        _ => true,
    }
}

/// The path of `rules.json` in the queue at `root`.
#[must_use]
pub fn path(root: &Path) -> PathBuf {
    root.join(FILE)
}

/// Reads `rules.json` (no file: no rules). An error means no rule may answer anything.
pub fn read(root: &Path) -> Result<Rules, RulesError> {
    let path = path(root);
    let bytes = match fs::metadata(&path) {
        Ok(meta) if meta.len() > MAX_BYTES => {
            return Err(RulesError::Invalid {
                path,
                reason: format!("over {MAX_BYTES} bytes"),
            });
        }
        Ok(_) => match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Rules::default()),
            Err(source) => return Err(RulesError::Io { path, source }),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Rules::default()),
        Err(source) => return Err(RulesError::Io { path, source }),
    };
    parse(&path, &bytes)
}

/// `rules.json`'s bytes as rules.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Rules, RulesError> {
    // A version this code does not know is said as such, whatever else the file holds.
    if let Ok(head) = serde_json::from_slice::<serde_json::Value>(bytes)
        && let Some(found) = head.get("version").and_then(serde_json::Value::as_u64)
        && found != u64::from(VERSION)
    {
        return Err(RulesError::Version {
            path: path.to_owned(),
            found: u32::try_from(found).unwrap_or(u32::MAX),
        });
    }
    let rules: Rules = serde_json::from_slice(bytes).map_err(|e| RulesError::Invalid {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    let mut ids = std::collections::HashSet::new();
    if let Some(twice) = rules.rules.iter().find(|r| !ids.insert(r.id.as_str())) {
        return Err(RulesError::Invalid {
            path: path.to_owned(),
            reason: format!("rule id `{}` is used twice", twice.id),
        });
    }
    Ok(rules)
}

/// `rules.json` locked for a change: read once the lock is held, written back atomically by [`Locked::write`].
pub struct Locked {
    root: PathBuf,
    _lock: fs::File,
}

impl Locked {
    /// Takes the lock of the rules of the queue at `root` (waiting for another writer).
    pub fn take(root: &Path) -> Result<Locked, RulesError> {
        let lock = hold_lock(&root.join(LOCK)).map_err(|source| RulesError::Io {
            path: root.join(LOCK),
            source,
        })?;
        Ok(Locked {
            root: root.to_owned(),
            _lock: lock,
        })
    }

    /// The rules as the file holds them now. A file that does not read is an error: it is never overwritten
    /// (the owner's warning says to fix or remove it).
    pub fn read(&self) -> Result<Rules, RulesError> {
        read(&self.root)
    }

    /// Writes `rules` atomically (temp file, fsync, rename, folder fsync), a grant past its end written as expired.
    pub fn write(&self, rules: &mut Rules, now: &str) -> Result<(), RulesError> {
        let (path, bytes) = self.serialized(rules, now)?;
        write_atomic(&path, &bytes).map_err(|source| RulesError::Io { path, source })
    }

    /// [`Locked::write`] without the folder's fsync, for a rule's count: the new file is whole on disk before it
    /// is renamed in, so a power cut leaves the old rules or the new ones, and may only lose the last counts.
    pub fn write_count(&self, rules: &mut Rules, now: &str) -> Result<(), RulesError> {
        let (path, bytes) = self.serialized(rules, now)?;
        let unsynced_folder = Options {
            sync_folder: false,
            ..Options::default()
        };
        write_with(&path, unsynced_folder, |f| f.write_all(&bytes))
            .map(drop)
            .map_err(|source| RulesError::Io { path, source })
    }

    /// The file's path and bytes for `rules` at `now`.
    fn serialized(&self, rules: &mut Rules, now: &str) -> Result<(PathBuf, Vec<u8>), RulesError> {
        for rule in &mut rules.rules {
            rule.state = rule.state_at(now);
        }
        let path = path(&self.root);
        let mut bytes = serde_json::to_vec_pretty(rules).map_err(|e| RulesError::Invalid {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        bytes.push(b'\n');
        Ok((path, bytes))
    }

    /// The queue root.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// A fresh rule id not in `rules`: `r` and 7 lowercase letters or digits.
#[must_use]
pub fn fresh_id(rules: &Rules) -> String {
    use std::hash::{BuildHasher, Hasher};
    const DIGITS: &[u8] = b"0123456789abcdefghjkmnpqrstvwxyz";
    loop {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        h.write_u32(std::process::id());
        let mut bits = h.finish();
        let mut id = String::from("r");
        for _ in 0..7 {
            id.push(char::from(DIGITS[(bits & 31) as usize]));
            bits >>= 5;
        }
        if !rules.rules.iter().any(|r| r.id == id) {
            return id;
        }
    }
}

/// A short digest of a command, for [`Awaiting::what`].
#[must_use]
pub fn digest(what: &str) -> String {
    audit::sha256_hex(what.as_bytes())[..16].to_owned()
}

#[cfg(test)]
mod tests;
