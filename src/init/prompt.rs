//! Asking the user for what `arbiter init` was not given.

use std::io::{self, BufRead, IsTerminal, Write};

use super::InitError;
use super::pair::{self, PairError, PairRequest, Paired};
use crate::config;

/// Tries before a bad answer becomes an error (a script piping garbage should not loop forever).
const ATTEMPTS: usize = 3;

/// The world as `init` sees it: the terminal, and Telegram for pairing; tests pass a scripted one.
pub trait InitIo {
    /// Whether questions can be asked (stdin is a terminal).
    fn interactive(&self) -> bool;
    /// Shows `question` and reads one line, without its line ending; `None` at end of input.
    fn ask(&mut self, question: &str) -> io::Result<Option<String>>;
    /// Finds the owner by a code the bot shows (see [`pair::pair`]), telling the user what to do.
    fn pair(&mut self, request: &PairRequest) -> Result<Paired, PairError>;
}

/// Questions on stderr (stdout stays for the report), answers from stdin.
#[derive(Debug, Default)]
pub struct TerminalIo;

impl InitIo for TerminalIo {
    fn interactive(&self) -> bool {
        io::stdin().is_terminal()
    }

    fn ask(&mut self, question: &str) -> io::Result<Option<String>> {
        let mut stderr = io::stderr();
        stderr.write_all(question.as_bytes())?;
        stderr.flush()?;
        let mut line = String::new();
        if io::stdin().lock().read_line(&mut line)? == 0 {
            return Ok(None);
        }
        Ok(Some(line.trim_end_matches(['\n', '\r']).to_owned()))
    }

    /// The link and the code go to stderr with the questions: stdout may be redirected, the user must see them.
    fn pair(&mut self, request: &PairRequest) -> Result<Paired, PairError> {
        pair::pair(request, &mut |text| {
            let mut stderr = io::stderr();
            let _ = stderr
                .write_all(text.as_bytes())
                .and_then(|()| stderr.flush());
        })
    }
}

/// The bot token, or `""` for "use ARBITER_TELEGRAM_TOKEN". End of input counts as empty.
pub(super) fn ask_token(io: &mut dyn InitIo) -> Result<String, InitError> {
    let question = "Bot token from @BotFather (empty: use ARBITER_TELEGRAM_TOKEN instead): ";
    let mut prefix = "";
    for _ in 0..ATTEMPTS {
        let full = format!("{prefix}{question}");
        let Some(answer) = io.ask(&full).map_err(InitError::Prompt)? else {
            return Ok(String::new());
        };
        let answer = answer.trim();
        if answer.is_empty() || config::looks_like_token(answer) {
            return Ok(answer.to_owned());
        }
        prefix = "That does not look like a bot token (123456:ABC-DEF...). ";
    }
    Err(InitError::InvalidToken)
}

/// One or more user ids, separated by spaces or commas.
pub(super) fn ask_users(io: &mut dyn InitIo) -> Result<Vec<u64>, InitError> {
    let question = "Your Telegram user id (several: 1 2 3): ";
    let mut prefix = String::new();
    let mut last_bad = String::new();
    for _ in 0..ATTEMPTS {
        let full = format!("{prefix}{question}");
        let Some(answer) = io.ask(&full).map_err(InitError::Prompt)? else {
            break;
        };
        match parse_users(&answer) {
            Ok(users) if !users.is_empty() => return Ok(users),
            Ok(_) => prefix = "At least one id is needed. ".to_owned(),
            Err(bad) => {
                prefix = format!("{bad:?} is not a user id (a positive whole number). ");
                last_bad = bad;
            }
        }
    }
    match last_bad.is_empty() {
        true => Err(InitError::NoUsers),
        false => Err(InitError::InvalidUser(last_bad)),
    }
}

/// Parses `"1, 2 3"`; the first word that is not a positive id is the error.
fn parse_users(answer: &str) -> Result<Vec<u64>, String> {
    answer
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|word| !word.is_empty())
        .map(|word| {
            word.parse::<u64>()
                .ok()
                .filter(|id| *id > 0)
                .ok_or_else(|| word.to_owned())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_lists() {
        assert_eq!(parse_users("1, 2 3"), Ok(vec![1, 2, 3]));
        assert_eq!(parse_users("  "), Ok(vec![]));
        assert_eq!(parse_users("1 @bob"), Err("@bob".to_owned()));
        assert_eq!(parse_users("0"), Err("0".to_owned()));
        assert_eq!(parse_users("-4"), Err("-4".to_owned()));
    }
}
