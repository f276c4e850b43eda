//! Login links and sessions, kept on disk so `arbiter web-login` (another process) can create a link the running
//! daemon accepts, and so sessions survive a restart.
//!
//! Layout, under the web state folder (mode 0700):
//! - `logins/<sha256 of the link token>`: `{"user": ID, "expires": UNIX}`. Redeemed by renaming it to a name of
//!   the redeemer's own first (a rename succeeds once, so two requests racing for one link cannot both win), then
//!   reading and removing it: single use even across processes.
//! - `sessions/<sha256 of the cookie>`: `{"user": ID, "expires": UNIX}`. Logout removes it.
//!
//! Only hashes of the secrets are stored: reading the folder does not give anyone a working link or cookie.
//! Every file is written atomically (temp file, fsync, rename). The CSRF token of a session is derived from its
//! cookie (a hash), so it needs no storage and changes with every login.

use std::fs;
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::queue::atomic;

/// How long a login link is valid.
pub const LOGIN_VALIDITY: Duration = Duration::from_secs(10 * 60);

/// Length of every secret token in hex characters (32 random bytes).
const TOKEN_HEX: usize = 64;

/// The logins and sessions folder.
#[derive(Debug, Clone)]
pub struct AuthStore {
    dir: PathBuf,
}

/// A signed-in browser: whose it is, and its CSRF token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub user: u64,
    pub csrf: String,
    /// The cookie value (to end the session).
    pub token: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct Record {
    user: u64,
    expires: u64,
}

impl AuthStore {
    /// The store in `dir` (its `logins/` and `sessions/` are created, private to the user).
    pub fn open(dir: impl Into<PathBuf>) -> io::Result<AuthStore> {
        let store = AuthStore { dir: dir.into() };
        for sub in [store.logins(), store.sessions()] {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&sub)?;
        }
        Ok(store)
    }

    fn logins(&self) -> PathBuf {
        self.dir.join("logins")
    }

    fn sessions(&self) -> PathBuf {
        self.dir.join("sessions")
    }

    /// A new login link token for `user`, valid [`LOGIN_VALIDITY`] from `now`. (Whether `user` may log in is the
    /// caller's to check first, with the owner-action layer's `is_member`.) Expired links are cleared on the way.
    pub fn create_login(&self, user: u64, now: SystemTime) -> io::Result<String> {
        clear_expired(&self.logins(), now);
        let token = random_token()?;
        let record = Record {
            user,
            expires: unix(now) + LOGIN_VALIDITY.as_secs(),
        };
        write_record(&self.logins().join(hash(&token)), &record)?;
        Ok(token)
    }

    /// Is `token` a login link that could be redeemed at `now` (without using it)? The user it is for.
    #[must_use]
    pub fn peek_login(&self, token: &str, now: SystemTime) -> Option<u64> {
        let path = self.logins().join(hash(well_formed(token)?));
        read_record(&path)
            .filter(|r| r.expires > unix(now))
            .map(|r| r.user)
    }

    /// Uses the login link `token`: the user it was for, once; `None` when it is unknown, used or expired.
    #[must_use]
    pub fn redeem_login(&self, token: &str, now: SystemTime) -> Option<u64> {
        let path = self.logins().join(hash(well_formed(token)?));
        let claimed = atomic::temp_path(&path);
        // The rename is the single use: of two racing redeemers, only one finds the file to move.
        fs::rename(&path, &claimed).ok()?;
        let record = read_record(&claimed);
        let _ = fs::remove_file(&claimed);
        let _ = atomic::sync_dir(&path);
        record.filter(|r| r.expires > unix(now)).map(|r| r.user)
    }

    /// A new session for `user`, valid `days` from `now`.
    pub fn create_session(&self, user: u64, days: u32, now: SystemTime) -> io::Result<Session> {
        clear_expired(&self.sessions(), now);
        let token = random_token()?;
        let record = Record {
            user,
            expires: unix(now) + u64::from(days) * 86_400,
        };
        write_record(&self.sessions().join(hash(&token)), &record)?;
        Ok(Session {
            user,
            csrf: csrf_of(&token),
            token,
        })
    }

    /// The live session with cookie `token` at `now`.
    #[must_use]
    pub fn session(&self, token: &str, now: SystemTime) -> Option<Session> {
        let token = well_formed(token)?;
        let path = self.sessions().join(hash(token));
        let record = read_record(&path)?;
        if record.expires <= unix(now) {
            let _ = fs::remove_file(&path);
            return None;
        }
        Some(Session {
            user: record.user,
            csrf: csrf_of(token),
            token: token.to_owned(),
        })
    }

    /// Ends the session with cookie `token` (logout): the cookie is worthless from now on.
    pub fn end_session(&self, token: &str) {
        if let Some(token) = well_formed(token) {
            let path = self.sessions().join(hash(token));
            let _ = fs::remove_file(&path);
            let _ = atomic::sync_dir(&path);
        }
    }
}

/// `token` when it has the shape of one this store issued (so nothing else reaches the file system).
fn well_formed(token: &str) -> Option<&str> {
    (token.len() == TOKEN_HEX
        && token
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
    .then_some(token)
}

fn random_token() -> io::Result<String> {
    let mut bytes = [0u8; TOKEN_HEX / 2];
    getrandom::fill(&mut bytes).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(hex(&bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The file name a secret is stored under.
fn hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// The CSRF token of the session whose cookie is `token`: known to the pages it renders, not guessable without
/// the cookie (which scripts cannot read: HttpOnly).
fn csrf_of(token: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"arbiter-zebu csrf\0");
    h.update(token.as_bytes());
    hex(&h.finalize())
}

fn unix(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn write_record(path: &Path, record: &Record) -> io::Result<()> {
    let json = serde_json::to_vec(record).map_err(io::Error::other)?;
    atomic::write_atomic(path, &json)
}

fn read_record(path: &Path) -> Option<Record> {
    let bytes = fs::read(path).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Removes expired records (and leftovers of interrupted redeems) from `dir`.
fn clear_expired(dir: &Path, now: SystemTime) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let stale_temp = name.to_string_lossy().starts_with('.')
            && entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|m| now.duration_since(m).unwrap_or_default() > LOGIN_VALIDITY);
        let expired = read_record(&path).is_some_and(|r| r.expires <= unix(now));
        if stale_temp || expired {
            let _ = fs::remove_file(&path);
        }
    }
}

/// Compares two secrets in constant time.
#[must_use]
pub fn same_secret(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn store() -> (tempfile::TempDir, AuthStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = AuthStore::open(dir.path().join("web")).unwrap();
        (dir, store)
    }

    #[test]
    fn a_login_link_works_once() {
        let (_dir, store) = store();
        let now = SystemTime::now();
        let token = store.create_login(7, now).unwrap();
        assert_eq!(store.peek_login(&token, now), Some(7));
        assert_eq!(store.redeem_login(&token, now), Some(7));
        assert_eq!(store.redeem_login(&token, now), None);
        assert_eq!(store.peek_login(&token, now), None);
    }

    #[test]
    fn a_login_link_expires_after_ten_minutes() {
        let (_dir, store) = store();
        let now = SystemTime::now();
        let token = store.create_login(7, now).unwrap();
        let later = now + LOGIN_VALIDITY + Duration::from_secs(1);
        assert_eq!(store.peek_login(&token, later), None);
        assert_eq!(store.redeem_login(&token, later), None);
    }

    #[test]
    fn only_hashes_are_stored() {
        let (dir, store) = store();
        let now = SystemTime::now();
        let login = store.create_login(7, now).unwrap();
        let session = store.create_session(7, 30, now).unwrap();
        for sub in ["logins", "sessions"] {
            for entry in fs::read_dir(dir.path().join("web").join(sub)).unwrap() {
                let entry = entry.unwrap();
                let name = entry.file_name().to_string_lossy().into_owned();
                let text = fs::read_to_string(entry.path()).unwrap();
                for secret in [&login, &session.token, &session.csrf] {
                    assert!(!name.contains(secret.as_str()) && !text.contains(secret.as_str()));
                }
            }
        }
    }

    #[test]
    fn sessions_expire_and_end() {
        let (_dir, store) = store();
        let now = SystemTime::now();
        let s = store.create_session(7, 2, now).unwrap();
        assert_eq!(store.session(&s.token, now).map(|s| s.user), Some(7));
        let after = now + Duration::from_secs(2 * 86_400 + 1);
        assert_eq!(store.session(&s.token, after), None);
        let s = store.create_session(7, 2, now).unwrap();
        store.end_session(&s.token);
        assert_eq!(store.session(&s.token, now), None);
    }

    #[test]
    fn malformed_tokens_never_reach_the_disk() {
        let (_dir, store) = store();
        let now = SystemTime::now();
        for bad in ["", "../../etc/passwd", &"A".repeat(64), &"0".repeat(63)] {
            assert_eq!(store.redeem_login(bad, now), None);
            assert_eq!(store.session(bad, now), None);
        }
    }
}
