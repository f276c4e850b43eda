//! The bot's commands: what `/start`, `/queue`, … parse to, and the list Telegram's command menu shows
//! (setMyCommands). Pure: the bot adapter reads both from here.

/// A command the bot understands; `/start@botname` forms included.
#[derive(Debug, PartialEq, Eq)]
pub enum Command<'a> {
    Start(Option<&'a str>),
    Queue,
    Help,
    Cancel,
    Stats,
    Web,
    Rules,
    Unknown(&'a str),
}

/// Every command the bot understands, with what Telegram's command menu says of it: the parser and
/// setMyCommands both read this list.
pub const COMMANDS: [(&str, &str, Word); 7] = [
    ("start", "Show the decision queue", Word::Start),
    ("queue", "Show the decision queue", Word::Queue),
    (
        "stats",
        "Figures of the last 30 days and a chart",
        Word::Stats,
    ),
    ("help", "How this bot works", Word::Help),
    ("cancel", "Leave custom-answer or note mode", Word::Cancel),
    ("web", "A login link for the web dashboard", Word::Web),
    (
        "rules",
        "Standing rules: what is answered without asking",
        Word::Rules,
    ),
];

/// A command's word, before its argument is looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    Start,
    Queue,
    Help,
    Cancel,
    Stats,
    Web,
    Rules,
}

#[must_use]
pub fn parse_command(text: &str) -> Option<Command<'_>> {
    let text = text.trim();
    let rest = text.strip_prefix('/')?;
    let (word, arg) = rest
        .split_once(char::is_whitespace)
        .map_or((rest, ""), |(w, a)| (w, a.trim()));
    let word = word.split('@').next().unwrap_or(word);
    let known = COMMANDS.iter().find(|(name, ..)| *name == word);
    Some(match known.map(|(.., w)| *w) {
        Some(Word::Start) => Command::Start((!arg.is_empty()).then_some(arg)),
        Some(Word::Queue) => Command::Queue,
        Some(Word::Help) => Command::Help,
        Some(Word::Cancel) => Command::Cancel,
        Some(Word::Stats) => Command::Stats,
        Some(Word::Web) => Command::Web,
        Some(Word::Rules) => Command::Rules,
        None => Command::Unknown(word),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(parse_command("/start"), Some(Command::Start(None)));
        assert_eq!(
            parse_command("/start plan_abc"),
            Some(Command::Start(Some("plan_abc")))
        );
        assert_eq!(parse_command("/queue@arbiter_bot"), Some(Command::Queue));
        assert_eq!(parse_command(" /cancel "), Some(Command::Cancel));
        assert_eq!(parse_command("/stats@arbiter_bot"), Some(Command::Stats));
        assert_eq!(parse_command("hello"), None);
        assert_eq!(parse_command("/nope"), Some(Command::Unknown("nope")));
        assert_eq!(parse_command("/web"), Some(Command::Web));
        assert_eq!(parse_command("/rules@arbiter_bot"), Some(Command::Rules));
    }
}
