//! The bot token: kept out of logs, and checked for the shape Telegram gives it.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The bot token. Its `Debug` output is redacted and it has no `Display`, so it cannot end up in a log
/// line by accident; [`BotToken::expose`] is the one way to read it.
#[derive(Clone, PartialEq, Eq)]
pub struct BotToken(String);

impl BotToken {
    #[must_use]
    pub fn new(token: impl Into<String>) -> BotToken {
        BotToken(token.into())
    }

    /// The token itself, for building the bot client. Never log it.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for BotToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BotToken(<redacted>)")
    }
}

/// Read from config.json's `telegram.token`.
impl<'de> Deserialize<'de> for BotToken {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        super::values::string(deserializer, "the bot token as a string").map(BotToken)
    }
}

/// Written into config.json by `arbiter init`, the one place that serializes a token.
impl Serialize for BotToken {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

/// A bearer secret from config.json that is not the bot token (`web.agentTokens`): redacted `Debug`, no
/// `Display`; [`SecretToken::expose`] is the one way to read it.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretToken(String);

impl SecretToken {
    #[must_use]
    pub fn new(token: impl Into<String>) -> SecretToken {
        SecretToken(token.into())
    }

    /// The secret itself, to compare with what a client sent. Never log it.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SecretToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretToken(<redacted>)")
    }
}

impl<'de> Deserialize<'de> for SecretToken {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        super::values::string(deserializer, "a token as a string").map(SecretToken)
    }
}

impl Serialize for SecretToken {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

/// A plausible Bot API token: `<bot id digits>:<secret of [A-Za-z0-9_-]>`.
#[must_use]
pub(crate) fn looks_like_token(token: &str) -> bool {
    let Some((id, secret)) = token.split_once(':') else {
        return false;
    };
    let secret_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    !id.is_empty()
        && id.chars().all(|c| c.is_ascii_digit())
        && !secret.is_empty()
        && secret.chars().all(secret_char)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_shape() {
        assert!(looks_like_token(
            "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"
        ));
        assert!(!looks_like_token("BOT_TOKEN_HERE"));
        assert!(!looks_like_token(":abc"));
        assert!(!looks_like_token("12:"));
        assert!(!looks_like_token("12:ab/c"));
        assert!(!looks_like_token("12a:abc"));
    }

    #[test]
    fn debug_is_redacted() {
        let token = BotToken::new("123:secret");
        assert_eq!(format!("{token:?}"), "BotToken(<redacted>)");
        assert_eq!(token.expose(), "123:secret");
    }
}
