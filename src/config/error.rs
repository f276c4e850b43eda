//! What goes wrong with a config file, as one line naming the file and the key; serde's messages turned
//! into that line.

use std::path::{Path, PathBuf};

use serde_path_to_error::Segment;

use super::suggest::did_you_mean;
use crate::serde_message::without_position;

/// Why the configuration could not be used. The display text is the whole one-line message the user reads.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot find the arbiter home: set ARBITER_HOME or HOME")]
    NoHome,
    #[error("{}: config file not found; run `arbiter init` to create it", path.display())]
    NotFound { path: PathBuf },
    /// The owner's config file is not where it was looked for; `looked` says how that place was chosen.
    #[error(
        "no config file at {} ({looked}): run `arbiter init`, or point at the daemon's config with --config FILE \
         or ARBITER_CONFIG",
        path.display()
    )]
    Missing { path: PathBuf, looked: &'static str },
    #[error("{}: cannot read config file: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}:{column}: invalid JSON: {message}", path.display())]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// A key is missing, unknown, of the wrong type or out of range. `key` is dotted: `telegram.allowedUsers`.
    #[error("{}: {key}: {problem}", path.display())]
    Invalid {
        path: PathBuf,
        key: String,
        problem: String,
    },
}

impl ConfigError {
    pub(super) fn invalid(path: &Path, key: &str, problem: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            path: path.into(),
            key: key.to_owned(),
            problem: problem.into(),
        }
    }

    /// A JSON syntax error at its line and column, or a value serde refused, named by the key it is at.
    pub(super) fn from_serde(
        path: &Path,
        at: Option<&serde_path_to_error::Path>,
        error: &serde_json::Error,
    ) -> ConfigError {
        let message = error.to_string();
        let message = without_position(&message);
        if !error.is_data() {
            return ConfigError::Syntax {
                path: path.into(),
                line: error.line(),
                column: error.column(),
                message: message.to_owned(),
            };
        }
        let mut key = at.map(dotted).unwrap_or_default();
        // serde names a missing or repeated key in its message, at the path of the object holding it.
        for (serde_words, problem) in [
            ("missing field `", "missing"),
            ("duplicate field `", "appears twice; keep one"),
        ] {
            if let Some(name) = message
                .strip_prefix(serde_words)
                .and_then(|rest| rest.split('`').next())
            {
                return ConfigError::invalid(path, &join(&key, name), problem);
            }
        }
        if key.is_empty() {
            key = "top level".to_owned();
        }
        ConfigError::invalid(path, &key, problem(message))
    }
}

/// `telegram.allowedUsers[1]`; empty for the top level. (serde_path_to_error's own display writes `.` for
/// the top level and `?` for places it could not name.)
fn dotted(path: &serde_path_to_error::Path) -> String {
    path.iter()
        .fold(String::new(), |key, segment| match segment {
            Segment::Seq { index } => format!("{key}[{index}]"),
            Segment::Map { key: name } | Segment::Enum { variant: name } => join(&key, name),
            Segment::Unknown => key,
        })
}

/// `telegram` + `token` = `telegram.token`.
fn join(key: &str, name: &str) -> String {
    if key.is_empty() {
        name.to_owned()
    } else {
        format!("{key}.{name}")
    }
}

/// serde's sentence about a value, in the words the rest of the config errors use. The unknown key itself
/// is already the last part of the path; an `expected` text is the value type's own.
fn problem(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let known: Vec<&str> = rest.split('`').skip(2).step_by(2).collect();
        let unknown = rest.split('`').next().unwrap_or_default();
        return match did_you_mean(unknown, &known) {
            Some(known) => format!("unknown key; did you mean {known}?"),
            None if known.is_empty() => "unknown key".to_owned(),
            None => format!("unknown key; expected one of {}", known.join(", ")),
        };
    }
    let wrong = |prefix: &str| {
        let rest = message.strip_prefix(prefix)?;
        // The expected text is ours and has no ", expected "; the value (a string) might.
        rest.rsplit_once(", expected ")
    };
    if let Some((found, expected)) = wrong("invalid type: ") {
        return format!("expected {expected}, found {}", kind(found));
    }
    if let Some((found, expected)) = wrong("invalid value: ") {
        return format!("expected {expected}, found {}", value(found));
    }
    message.to_owned()
}

/// `a string` for serde's `string "x"`: what kind of JSON value it was.
fn kind(unexpected: &str) -> &str {
    let kinds = [
        ("boolean", "a boolean"),
        ("integer", "a number"),
        ("floating point", "a number"),
        ("string", "a string"),
        ("null", "null"),
        ("sequence", "a list"),
        ("map", "an object"),
    ];
    kinds
        .iter()
        .find(|(serde_word, _)| unexpected.starts_with(serde_word))
        .map_or(unexpected, |(_, ours)| ours)
}

/// `-5` for serde's ``integer `-5` ``, `"loud"` for `string "loud"`: the value as it was written.
fn value(unexpected: &str) -> &str {
    if let Some(quoted) = unexpected.strip_prefix("string ") {
        return quoted;
    }
    match unexpected.split('`').collect::<Vec<_>>().as_slice() {
        [_, value, ""] => value,
        _ => unexpected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_sentences_in_our_words() {
        let cases = [
            (
                "unknown field `alowedUsers`, expected one of `token`, `allowedUsers`, `apiUrl`",
                "unknown key; did you mean allowedUsers?",
            ),
            (
                "unknown field `proxy`, expected one of `token`, `allowedUsers`, `apiUrl`",
                "unknown key; expected one of token, allowedUsers, apiUrl",
            ),
            (
                "unknown field `x`, expected `enabled`",
                "unknown key; expected one of enabled",
            ),
            ("unknown field `x`, there are no fields", "unknown key"),
            (
                "invalid type: string \"1s\", expected a number of milliseconds",
                "expected a number of milliseconds, found a string",
            ),
            (
                "invalid type: string \"a, expected b\", expected a list",
                "expected a list, found a string",
            ),
            (
                "invalid type: null, expected an object ({ ... })",
                "expected an object ({ ... }), found null",
            ),
            (
                "invalid type: sequence, expected an object",
                "expected an object, found a list",
            ),
            (
                "invalid value: integer `-5`, expected a positive id",
                "expected a positive id, found -5",
            ),
            (
                "invalid value: floating point `1.5`, expected a positive id",
                "expected a positive id, found 1.5",
            ),
            ("something else entirely", "something else entirely"),
        ];
        for (message, expected) in cases {
            assert_eq!(problem(message), expected, "{message}");
        }
    }

    #[test]
    fn a_missing_required_key_is_named_by_its_path() {
        // No key of config.json is required by its type today; a later section's may be.
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Digest {
            #[allow(dead_code)]
            at: String,
        }
        #[derive(Debug, serde::Deserialize)]
        struct Root {
            #[allow(dead_code)]
            #[serde(deserialize_with = "crate::config::values::section")]
            digest: Digest,
        }
        let path = Path::new("/c.json");
        let error = crate::config::file::parse::<Root>(path, r#"{"digest": {}}"#).unwrap_err();
        assert_eq!(error.to_string(), "/c.json: digest.at: missing");
    }
}
