//! `arbiter init`'s pairing: the owner is found by a code the bot shows, not by a user id looked up elsewhere.
//! init reads the bot's name (getMe), prints `https://t.me/<bot>?start=pair-<code>`, and reads updates
//! (getUpdates) until the first private chat sends `/start pair-<code>`; that chat's user is the owner. Everything
//! else sent meanwhile is read past and changes nothing (the daemon drops what is left at its start anyway).

use std::time::{Duration, Instant};

use teloxide::prelude::*;
use teloxide::types::{Update, UpdateKind};
use teloxide::{ApiError, RequestError};

use crate::config::BotToken;

/// How long a pairing code is valid.
pub const DEFAULT_TTL: Duration = Duration::from_secs(10 * 60);
/// Shortens [`DEFAULT_TTL`], in seconds or as `30s`/`2m`: for tests, so an expired code needs no 10-minute wait.
pub const ENV_PAIR_TTL: &str = "ARBITER_PAIR_TTL";
/// Characters of a code: Crockford's base 32 (no i, l, o, u), so each random byte's low 5 bits pick one evenly.
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
/// 10 characters: 50 random bits.
const CODE_LEN: usize = 10;
/// The longest single long poll (the HTTP client waits a little longer).
const LONG_POLL: Duration = Duration::from_secs(10);

/// What pairing needs: the bot and how long its code holds.
#[derive(Debug, Clone)]
pub struct PairRequest {
    pub token: BotToken,
    /// The Bot API base URL, as config.json holds it.
    pub api_url: String,
    pub ttl: Duration,
}

/// The user who sent the right code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paired {
    pub id: u64,
    /// Their name as Telegram gives it, with `@username` when they have one: `Ada Lovelace (@ada)`.
    pub name: String,
}

/// Why nobody was paired. Each is one sentence; nothing has been written when one is returned.
#[derive(Debug, thiserror::Error)]
pub enum PairError {
    #[error(
        "Telegram refused the bot token: copy it again from @BotFather (/mybots → API Token); nothing was written"
    )]
    TokenRefused,
    #[error(
        "the pairing code expired after {} with no `/start pair-<code>` from a private chat; nothing was written: \
         run `arbiter init` again",
        say_duration(*ttl)
    )]
    Expired { ttl: Duration },
    #[error(
        "another program reads this bot's updates (a daemon on another machine, or a webhook): stop it, or pass \
         --user ID instead of pairing; nothing was written"
    )]
    Conflict,
    #[error("cannot reach the Bot API at {url}: {reason}; nothing was written")]
    Unreachable { url: String, reason: String },
    #[error("cannot make a pairing code: {0}")]
    Random(String),
    #[error("cannot start the HTTP client: {0}")]
    Client(String),
}

/// A fresh random code.
pub fn new_code() -> Result<String, PairError> {
    let mut bytes = [0u8; CODE_LEN];
    getrandom::fill(&mut bytes).map_err(|e| PairError::Random(e.to_string()))?;
    Ok(bytes
        .iter()
        .map(|b| char::from(ALPHABET[usize::from(b & 31)]))
        .collect())
}

/// The deep link that opens the bot's chat and sends `/start pair-<code>` when Start is pressed.
#[must_use]
pub fn link(bot: &str, code: &str) -> String {
    format!("https://t.me/{bot}?start=pair-{code}")
}

/// The user an update pairs: a message in a private chat, from a person, whose text is `/start pair-<code>`
/// (`/start@bot` too, as a client may send it).
#[must_use]
pub fn pairs(update: &Update, code: &str) -> Option<Paired> {
    let UpdateKind::Message(message) = &update.kind else {
        return None;
    };
    let from = message.from.as_ref()?;
    if !message.chat.is_private() || from.is_bot {
        return None;
    }
    let mut words = message.text()?.split_whitespace();
    let command = words.next()?;
    let payload = words.next()?;
    let is_start = command == "/start" || command.starts_with("/start@");
    if !is_start || payload != format!("pair-{code}") || words.next().is_some() {
        return None;
    }
    let name = match &from.username {
        Some(username) => format!("{} (@{username})", from.full_name()),
        None => from.full_name(),
    };
    Some(Paired {
        id: from.id.0,
        name,
    })
}

/// Pairs against the Bot API of `request`, telling the user what to do through `tell`. Blocks until the right
/// code arrives or the code expires.
pub fn pair(request: &PairRequest, tell: &mut dyn FnMut(&str)) -> Result<Paired, PairError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| PairError::Client(e.to_string()))?;
    runtime.block_on(pair_async(request, tell))
}

async fn pair_async(
    request: &PairRequest,
    tell: &mut dyn FnMut(&str),
) -> Result<Paired, PairError> {
    let unreachable = |e: &dyn std::fmt::Display| PairError::Unreachable {
        url: request.api_url.clone(),
        reason: e.to_string(),
    };
    let url = url::Url::parse(&request.api_url).map_err(|e| unreachable(&e))?;
    let client = teloxide::net::default_reqwest_settings()
        .timeout(LONG_POLL + Duration::from_secs(10))
        .build()
        .map_err(|e| PairError::Client(e.to_string()))?;
    let bot = Bot::with_client(request.token.expose(), client).set_api_url(url);

    let me = bot.get_me().send().await.map_err(|e| match e {
        RequestError::Api(ApiError::InvalidToken) => PairError::TokenRefused,
        e => unreachable(&e),
    })?;
    let bot_name = me.user.username.clone().unwrap_or_default();
    let code = new_code()?;
    tell(&format!(
        "To make yourself the owner, open this link on your phone and press Start:\n\n    {}\n\n\
         (or send @{bot_name} the message `/start pair-{code}`). The code is valid for {}. Waiting…\n",
        link(&bot_name, &code),
        say_duration(request.ttl)
    ));

    let deadline = Instant::now() + request.ttl;
    let mut offset: i32 = 0;
    let mut backoff = Duration::from_millis(200);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(PairError::Expired { ttl: request.ttl });
        }
        // Whole seconds, at least one (a zero timeout would spin), never past the deadline by more than one.
        let wait = u32::try_from(left.min(LONG_POLL).as_secs().max(1)).unwrap_or(1);
        match bot.get_updates().offset(offset).timeout(wait).send().await {
            Ok(updates) => {
                backoff = Duration::from_millis(200);
                for update in &updates {
                    offset = i32::try_from(update.id.0).map_or(i32::MAX, |id| id.saturating_add(1));
                    if let Some(paired) = pairs(update, &code) {
                        welcome(&bot, &paired).await;
                        return Ok(paired);
                    }
                }
            }
            Err(RequestError::Api(ApiError::InvalidToken)) => return Err(PairError::TokenRefused),
            Err(RequestError::Api(ApiError::TerminatedByOtherGetUpdates)) => {
                return Err(PairError::Conflict);
            }
            Err(RequestError::Api(ApiError::Unknown(text))) if text.starts_with("Conflict") => {
                return Err(PairError::Conflict);
            }
            // Rate limits, server and network trouble: try again until the code expires.
            Err(e) => {
                let pause = match &e {
                    RequestError::RetryAfter(after) => after.duration(),
                    _ => backoff,
                };
                tracing::warn!(error = %e, "getUpdates failed while pairing; trying again");
                tokio::time::sleep(pause.min(left)).await;
                backoff = (backoff * 2).min(Duration::from_secs(5));
            }
        }
    }
}

/// Tells the new owner on the phone that it worked. A failure is only logged: the pairing itself holds.
async fn welcome(bot: &Bot, paired: &Paired) {
    let text = "✅ Paired: this chat is where Arbiter will ask you for decisions once `arbiter run` starts.";
    let chat = ChatId(i64::try_from(paired.id).unwrap_or(i64::MAX));
    if let Err(error) = bot.send_message(chat, text).send().await {
        tracing::warn!(%error, "could not tell the new owner on Telegram");
    }
}

/// `10 minutes`, `1 minute`, `90 seconds`.
fn say_duration(d: Duration) -> String {
    crate::plan::duration::say(d, crate::plan::duration::Style::Words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Parsed from text, as teloxide parses getUpdates (from a `Value` it yields `UpdateKind::Error`).
    fn update(chat: serde_json::Value, from: i64, is_bot: bool, text: &str) -> Update {
        let update = json!({
            "update_id": 7,
            "message": {
                "message_id": 1, "date": 1, "chat": chat, "text": text,
                "from": {"id": from, "is_bot": is_bot, "first_name": "Ada", "last_name": "Lovelace",
                         "username": "ada"},
            }
        });
        serde_json::from_str(&update.to_string()).unwrap()
    }

    fn private(id: i64) -> serde_json::Value {
        json!({"id": id, "type": "private", "first_name": "Ada"})
    }

    #[test]
    fn only_the_right_code_from_a_person_in_a_private_chat_pairs() {
        let ada = Some(Paired {
            id: 42,
            name: "Ada Lovelace (@ada)".to_owned(),
        });
        assert_eq!(
            pairs(&update(private(42), 42, false, "/start pair-abc"), "abc"),
            ada
        );
        assert_eq!(
            pairs(
                &update(private(42), 42, false, "/start@my_bot pair-abc"),
                "abc"
            ),
            ada
        );
        let group = json!({"id": -100, "type": "supergroup", "title": "Team"});
        for (chat, is_bot, text) in [
            (private(42), false, "/start pair-abd"),
            (private(42), false, "/start pair-ABC"),
            (private(42), false, "/start"),
            (private(42), false, "pair-abc"),
            (private(42), false, "/start pair-abc extra"),
            (private(42), false, "/startx pair-abc"),
            (private(42), true, "/start pair-abc"),
            (group, false, "/start pair-abc"),
        ] {
            assert_eq!(
                pairs(&update(chat, 42, is_bot, text), "abc"),
                None,
                "{text}"
            );
        }
    }

    #[test]
    fn codes_are_ten_characters_of_the_alphabet_and_differ() {
        let a = new_code().unwrap();
        let b = new_code().unwrap();
        assert_eq!(a.len(), CODE_LEN);
        assert!(a.bytes().all(|c| ALPHABET.contains(&c)), "{a}");
        assert_ne!(a, b);
        assert_eq!(link("bot", &a), format!("https://t.me/bot?start=pair-{a}"));
    }

    #[test]
    fn durations_read_as_words() {
        assert_eq!(say_duration(DEFAULT_TTL), "10 minutes");
        assert_eq!(say_duration(Duration::from_secs(60)), "1 minute");
        assert_eq!(say_duration(Duration::from_secs(90)), "90 seconds");
        assert_eq!(say_duration(Duration::from_secs(1)), "1 second");
    }
}
