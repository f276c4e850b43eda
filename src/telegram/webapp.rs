//! Telegram Mini App sign-in: the check of the `initData` string Telegram hands a Mini App, which the dashboard
//! page posts back to prove who opened it.
//!
//! Telegram's rule ("Validating data received via the Mini App"): the string is a query string; every field but
//! `hash`, URL-decoded, sorted by key and written `key=value`, joined by `\n`, is the data-check-string;
//! `hash` is the hex of HMAC-SHA-256 over it, keyed with HMAC-SHA-256(key "WebAppData", message bot token).
//! Membership is not decided here: the caller asks `Access::is_member` with the user id this returns.

use std::collections::BTreeMap;

use hmac::{Hmac, KeyInit, Mac};
use serde::Deserialize;
use sha2::Sha256;

/// How old signed data may be: a day, as Telegram suggests.
pub const MAX_AGE_SECONDS: i64 = 24 * 60 * 60;
/// How far in the future `auth_date` may lie (clocks drift a little; more is not Telegram's doing).
pub const MAX_CLOCK_SKEW_SECONDS: i64 = 5 * 60;

type HmacSha256 = Hmac<Sha256>;

/// Why an `initData` string does not sign anyone in. The text is for the log, never for the client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InitDataError {
    #[error("initData has no hash")]
    MissingHash,
    #[error("initData has the field `{0}` more than once")]
    DuplicateField(String),
    #[error("initData's hash does not match its fields and the bot token")]
    BadSignature,
    #[error("initData has no valid auth_date")]
    BadAuthDate,
    #[error("initData is {0} s old (at most {MAX_AGE_SECONDS} s)")]
    TooOld(i64),
    #[error("initData's auth_date is {0} s in the future")]
    FromTheFuture(i64),
    #[error("initData has no user with an id")]
    MissingUser,
}

/// The part of the `user` field this needs.
#[derive(Deserialize)]
struct User {
    id: u64,
}

/// Checks a Mini App's `initData` against the bot token at unix time `now`; returns the Telegram user id it
/// was issued to. The signature is checked before anything in the data is believed.
pub fn verify_init_data(init_data: &str, bot_token: &str, now: i64) -> Result<u64, InitDataError> {
    let mut fields: BTreeMap<String, String> = BTreeMap::new();
    for (key, value) in url::form_urlencoded::parse(init_data.as_bytes()) {
        if fields.insert(key.to_string(), value.into_owned()).is_some() {
            return Err(InitDataError::DuplicateField(key.into_owned()));
        }
    }
    let hash = fields.remove("hash").ok_or(InitDataError::MissingHash)?;
    let hash = hex::decode(hash).map_err(|_| InitDataError::BadSignature)?;
    signature(&fields, bot_token)
        .verify_slice(&hash)
        .map_err(|_| InitDataError::BadSignature)?;

    let auth_date: i64 = fields
        .get("auth_date")
        .and_then(|date| date.parse().ok())
        .ok_or(InitDataError::BadAuthDate)?;
    let age = now.saturating_sub(auth_date);
    if age > MAX_AGE_SECONDS {
        return Err(InitDataError::TooOld(age));
    }
    if -age > MAX_CLOCK_SKEW_SECONDS {
        return Err(InitDataError::FromTheFuture(-age));
    }
    let user = fields.get("user").ok_or(InitDataError::MissingUser)?;
    let user: User = serde_json::from_str(user).map_err(|_| InitDataError::MissingUser)?;
    Ok(user.id)
}

/// The MAC over the data-check-string of `fields` (every field but `hash`, in key order).
fn signature(fields: &BTreeMap<String, String>, bot_token: &str) -> HmacSha256 {
    let mut secret = <HmacSha256 as KeyInit>::new_from_slice(b"WebAppData")
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    secret.update(bot_token.as_bytes());
    let secret = secret.finalize().into_bytes();
    let mut mac = <HmacSha256 as KeyInit>::new_from_slice(&secret)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            mac.update(b"\n");
        }
        mac.update(key.as_bytes());
        mac.update(b"=");
        mac.update(value.as_bytes());
    }
    mac
}

#[cfg(test)]
#[path = "webapp_tests.rs"]
mod tests;
