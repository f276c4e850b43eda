//! Machine tokens: the bearer tokens of agents on other machines (`arbiter token add|list|revoke`).
//!
//! They live in `<config folder>/web/machines.json`, each as its name and the SHA-256 of the token (the token
//! itself is printed once, by `add`, and kept nowhere here). The daemon reads the file on every request, so a
//! token added is in force, and a token revoked refused, from the next request on, without a restart. The file
//! is replaced atomically: a request reads the old list or the new one, never a mix.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::queue::atomic;

/// The file's name in the dashboard's state folder.
pub const FILE: &str = "machines.json";

/// What a new token starts with (secret scanners and people can tell it apart), then 64 hex digits.
pub const PREFIX: &str = "arbiter_";

/// One machine's token, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    pub name: String,
    /// SHA-256 of the token, in hex.
    pub sha256: String,
    pub created_at: String,
    /// When `token revoke` refused it from then on; a revoked machine stays listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_at: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    machines: Vec<Machine>,
}

/// Why a token command changed nothing.
#[derive(Debug, thiserror::Error)]
pub enum MachinesError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("{}: not a machine token file ({reason}); fix or remove it", path.display())]
    Unreadable { path: PathBuf, reason: String },
    #[error(
        "`{0}` is not a machine name: use 1 to 40 lowercase letters, digits, `.`, `-` or `_`, starting with a \
         letter or digit"
    )]
    BadName(String),
    #[error("machine `{0}` has a token already; revoke it first (`arbiter token revoke {0}`)")]
    Taken(String),
    #[error("no machine `{0}` has a token in force (`arbiter token list`)")]
    Unknown(String),
}

/// The token file of a dashboard's state folder.
#[derive(Debug, Clone)]
pub struct Machines {
    path: PathBuf,
}

impl Machines {
    /// The token file in the state folder `state_dir` (`<config folder>/web`).
    #[must_use]
    pub fn in_state_dir(state_dir: &Path) -> Machines {
        Machines {
            path: state_dir.join(FILE),
        }
    }

    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every machine, revoked ones too, in the order they were added. No file: none.
    pub fn list(&self) -> Result<Vec<Machine>, MachinesError> {
        Ok(self.read()?.machines)
    }

    /// Makes a token for machine `name` and returns it (the one time it is seen); a revoked machine of that name
    /// is replaced.
    pub fn add(&self, name: &str, now: &str) -> Result<String, MachinesError> {
        if !valid_name(name) {
            return Err(MachinesError::BadName(name.to_owned()));
        }
        let mut stored = self.read()?;
        if stored
            .machines
            .iter()
            .any(|m| m.name == name && m.revoked_at.is_none())
        {
            return Err(MachinesError::Taken(name.to_owned()));
        }
        let token = random_token().map_err(|source| self.io(source))?;
        stored.machines.retain(|m| m.name != name);
        stored.machines.push(Machine {
            name: name.to_owned(),
            sha256: hex(&digest(token.as_bytes())),
            created_at: now.to_owned(),
            revoked_at: None,
        });
        self.write(&stored)?;
        Ok(token)
    }

    /// Refuses machine `name`'s token from the next request on.
    pub fn revoke(&self, name: &str, now: &str) -> Result<(), MachinesError> {
        let mut stored = self.read()?;
        let Some(machine) = stored
            .machines
            .iter_mut()
            .find(|m| m.name == name && m.revoked_at.is_none())
        else {
            return Err(MachinesError::Unknown(name.to_owned()));
        };
        machine.revoked_at = Some(now.to_owned());
        self.write(&stored)
    }

    /// The machine whose token in force this is. Every stored digest is compared, in constant time; a file that
    /// can't be read lets no machine in (and says so in the log).
    #[must_use]
    pub fn check(&self, presented: &[u8]) -> Option<String> {
        let stored = match self.read() {
            Ok(stored) => stored,
            Err(e) => {
                tracing::warn!(error = %e, "machine tokens unreadable: every machine token refused");
                return None;
            }
        };
        let presented = hex(&digest(presented));
        let mut found = None;
        for machine in &stored.machines {
            let same = bool::from(machine.sha256.as_bytes().ct_eq(presented.as_bytes()));
            if same && machine.revoked_at.is_none() {
                found = Some(machine.name.clone());
            }
        }
        found
    }

    fn read(&self) -> Result<Stored, MachinesError> {
        let bytes = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Stored::default()),
            Err(source) => return Err(self.io(source)),
        };
        serde_json::from_slice(&bytes).map_err(|e| MachinesError::Unreadable {
            path: self.path.clone(),
            reason: e.to_string(),
        })
    }

    fn write(&self, stored: &Stored) -> Result<(), MachinesError> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| self.io(source))?;
        }
        let mut text = serde_json::to_string_pretty(stored).unwrap_or_default();
        text.push('\n');
        atomic::write_atomic(&self.path, text.as_bytes()).map_err(|source| self.io(source))
    }

    fn io(&self, source: io::Error) -> MachinesError {
        MachinesError::Io {
            path: self.path.clone(),
            source,
        }
    }
}

/// A machine's name: it is shown as `<agent>@<machine>` and written into plans.
#[must_use]
pub fn valid_name(name: &str) -> bool {
    let first = name.bytes().next();
    (1..=40).contains(&name.len())
        && first.is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && name.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'_')
        })
}

fn random_token() -> io::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(format!("{PREFIX}{}", hex(&bytes)))
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-12-02T08:00:00Z";

    #[test]
    fn a_token_is_in_force_from_add_to_revoke_and_stored_only_hashed() {
        let dir = tempfile::tempdir().unwrap();
        let machines = Machines::in_state_dir(dir.path());
        assert_eq!(machines.check(b"anything"), None);
        let token = machines.add("devbox", NOW).unwrap();
        assert!(token.starts_with(PREFIX) && token.len() == PREFIX.len() + 64);
        let file = std::fs::read_to_string(machines.path()).unwrap();
        assert!(!file.contains(&token[PREFIX.len()..]), "{file}");
        assert_eq!(machines.check(token.as_bytes()).as_deref(), Some("devbox"));
        assert_eq!(machines.check(&token.as_bytes()[1..]), None);
        assert!(matches!(
            machines.add("devbox", NOW),
            Err(MachinesError::Taken(_))
        ));
        machines.revoke("devbox", NOW).unwrap();
        assert_eq!(machines.check(token.as_bytes()), None);
        assert!(matches!(
            machines.revoke("devbox", NOW),
            Err(MachinesError::Unknown(_))
        ));
        let again = machines.add("devbox", NOW).unwrap();
        assert_ne!(again, token);
        assert_eq!(machines.check(again.as_bytes()).as_deref(), Some("devbox"));
        assert_eq!(machines.check(token.as_bytes()), None);
        assert_eq!(machines.list().unwrap().len(), 1);
    }

    #[test]
    fn names_are_short_and_plain() {
        for good in ["devbox", "ci-runner-3", "a", "box.local", "x_1"] {
            assert!(valid_name(good), "{good}");
        }
        for bad in ["", "Devbox", "-x", "a b", "a/b", "a@b", &"x".repeat(41)] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn a_broken_file_lets_no_one_in_and_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let machines = Machines::in_state_dir(dir.path());
        std::fs::write(machines.path(), "{not json").unwrap();
        assert_eq!(machines.check(b"arbiter_x"), None);
        let e = machines.add("devbox", NOW).unwrap_err().to_string();
        assert!(
            e.contains("machines.json") && e.contains("not a machine token file"),
            "{e}"
        );
    }
}
