//! A strict validator of Telegram's MarkdownV2, modelled on tdlib's `parse_markdown_v2`.
//!
//! Used by the fake Bot API and by property tests of every view, so it rejects everything Telegram
//! rejects, and a little more where Telegram's leniency hides a bug in our escaping:
//! - a `\` that does not escape a character with code 1–126 (including one at the very end) is an
//!   error here; Telegram would keep it as a literal backslash.
//! - `__` is read greedily from left to right as underline, exactly like Telegram: `___a___` is
//!   underline + italic that never closes, so it is rejected. Write `___a_**__` (empty bold separator).
//!
//! - nesting Telegram does not allow is an error here; Telegram would silently drop or split one of the
//!   entities: `code`/`pre` inside any entity but a block quote (they cannot contain any either, which
//!   their syntax already ensures), and a link (or custom emoji) inside a link.
//!
//! Empty entities (`**`) are accepted and dropped, like Telegram does. Links are accepted with any
//! URL; Telegram silently drops links whose URL it cannot parse.

pub use super::entity::{Entity, EntityKind, Parsed};
use super::markdown::RESERVED;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Bold,
    Italic,
    Underline,
    Strikethrough,
    Spoiler,
    Code,
    Pre,
    TextUrl,
    CustomEmoji,
}

impl Open {
    /// tdlib's name, used in "Can't find end of … entity".
    fn name(self) -> &'static str {
        match self {
            Self::Bold => "Bold",
            Self::Italic => "Italic",
            Self::Underline => "Underline",
            Self::Strikethrough => "Strikethrough",
            Self::Spoiler => "Spoiler",
            Self::Code => "Code",
            Self::Pre => "Pre",
            Self::TextUrl => "TextUrl",
            Self::CustomEmoji => "CustomEmoji",
        }
    }
}

struct OpenEntity {
    kind: Open,
    language: Option<String>,
    byte_offset: usize,
    utf16_start: usize,
    plain_start: usize,
}

struct Quote {
    expandable: bool,
    utf16_start: usize,
}

/// Parses MarkdownV2 `text` like Telegram; returns the plain text or a Telegram-like error
/// (`can't parse entities: …`).
pub fn parse_markdown_v2(text: &str) -> Result<String, String> {
    parse_markdown_v2_entities(text).map(|parsed| parsed.plain)
}

/// Number of UTF-16 code units in `plain`: the unit of Telegram's 4096 limit and entity offsets.
#[must_use]
pub fn telegram_length(plain: &str) -> usize {
    plain.encode_utf16().count()
}

/// Like [`parse_markdown_v2`], also returning the entities.
pub fn parse_markdown_v2_entities(text: &str) -> Result<Parsed, String> {
    Parser::new(text)
        .run()
        .map_err(|e| format!("can't parse entities: {e}"))
}

struct Parser {
    text_len: usize,
    chars: Vec<(usize, char)>,
    plain: String,
    utf16: usize,
    stack: Vec<OpenEntity>,
    quote: Option<Quote>,
    entities: Vec<Entity>,
}

fn reserved_error(c: char) -> String {
    format!("Character '{c}' is reserved and must be escaped with the preceding '\\'")
}

impl Parser {
    fn new(text: &str) -> Self {
        Self {
            text_len: text.len(),
            chars: text.char_indices().collect(),
            plain: String::with_capacity(text.len()),
            utf16: 0,
            stack: Vec::new(),
            quote: None,
            entities: Vec::new(),
        }
    }

    fn at(&self, i: usize) -> Option<char> {
        self.chars.get(i).map(|&(_, c)| c)
    }

    fn byte(&self, i: usize) -> usize {
        self.chars.get(i).map_or(usize::MAX, |&(b, _)| b)
    }

    fn push(&mut self, c: char) {
        self.plain.push(c);
        self.utf16 += c.len_utf16();
    }

    fn add(&mut self, kind: EntityKind, start: usize) {
        if self.utf16 > start {
            self.entities.push(Entity {
                kind,
                offset: start,
                length: self.utf16 - start,
            });
        }
    }

    fn top(&self) -> Option<Open> {
        self.stack.last().map(|e| e.kind)
    }

    fn unclosed_error(&self) -> Option<String> {
        self.stack.last().map(|e| {
            format!(
                "Can't find end of {} entity at byte offset {}",
                e.kind.name(),
                e.byte_offset
            )
        })
    }

    fn close_quote(&mut self) -> Result<(), String> {
        if let Some(err) = self.unclosed_error() {
            return Err(err);
        }
        if let Some(quote) = self.quote.take() {
            let kind = if quote.expandable {
                EntityKind::ExpandableBlockquote
            } else {
                EntityKind::Blockquote
            };
            // The newline that ended the last quoted line is not part of the quote.
            let end = self.utf16 - usize::from(self.plain.ends_with('\n'));
            if end > quote.utf16_start {
                let length = end - quote.utf16_start;
                self.entities.push(Entity {
                    kind,
                    offset: quote.utf16_start,
                    length,
                });
            }
        }
        Ok(())
    }

    /// Handles `>` / `**>` at the start of a line; returns how many chars were consumed.
    fn line_start(&mut self, i: usize) -> Result<usize, String> {
        let c = self.at(i);
        if c == Some('>') && (self.quote.is_some() || self.stack.is_empty()) {
            if self.quote.is_none() {
                self.quote = Some(Quote {
                    expandable: false,
                    utf16_start: self.utf16,
                });
            }
            return Ok(1);
        }
        let expandable_start =
            c == Some('*') && self.at(i + 1) == Some('*') && self.at(i + 2) == Some('>');
        if expandable_start && self.quote.is_none() && self.stack.is_empty() {
            self.quote = Some(Quote {
                expandable: true,
                utf16_start: self.utf16,
            });
            return Ok(3);
        }
        if self.quote.is_some() {
            self.close_quote()?;
        }
        Ok(0)
    }

    fn is_end(&self, i: usize, c: char) -> bool {
        let next = self.at(i + 1);
        match self.top() {
            None => false,
            Some(Open::Bold) => c == '*',
            Some(Open::Italic) => c == '_' && next != Some('_'),
            Some(Open::Underline) => c == '_' && next == Some('_'),
            Some(Open::Strikethrough) => c == '~',
            Some(Open::Spoiler) => c == '|' && next == Some('|'),
            Some(Open::Code) => c == '`',
            Some(Open::Pre) => c == '`' && next == Some('`') && self.at(i + 2) == Some('`'),
            Some(Open::TextUrl | Open::CustomEmoji) => c == ']',
        }
    }

    fn run(mut self) -> Result<Parsed, String> {
        let mut i = 0;
        while i < self.chars.len() {
            let in_code = matches!(self.top(), Some(Open::Code | Open::Pre));
            if !in_code && (i == 0 || self.at(i - 1) == Some('\n')) {
                let used = self.line_start(i)?;
                if used > 0 {
                    i += used;
                    continue;
                }
            }
            let Some(c) = self.at(i) else { break };
            if c == '\\' {
                match self.at(i + 1) {
                    Some(next) if (1..=126).contains(&u32::from(next)) => {
                        self.push(next);
                        i += 2;
                        continue;
                    }
                    _ => return Err(reserved_error('\\')),
                }
            }
            let reserved = if in_code { "`" } else { RESERVED };
            if !reserved.contains(c) {
                self.push(c);
                i += 1;
                continue;
            }
            if self.is_end(i, c) {
                i = self.end_entity(i)?;
                continue;
            }
            let line_end = matches!(self.at(i + 2), None | Some('\n'));
            // `||` closing the last line of a quote marks it expandable.
            if c == '|'
                && self.at(i + 1) == Some('|')
                && line_end
                && let Some(quote) = self.quote.as_mut()
            {
                quote.expandable = true;
                i += 2;
                continue;
            }
            i = self.begin_entity(i, c)?;
        }
        self.close_quote()?;
        Ok(Parsed {
            plain: self.plain,
            entities: self.entities,
        })
    }

    /// Refuses nesting Telegram does not keep (see the module documentation).
    fn check_nesting(&self, kind: Open, byte_offset: usize) -> Result<(), String> {
        let is_link = |k: Open| matches!(k, Open::TextUrl | Open::CustomEmoji);
        let refused = match kind {
            Open::Code | Open::Pre => !self.stack.is_empty(),
            k if is_link(k) => self.stack.iter().any(|e| is_link(e.kind)),
            _ => false,
        };
        if refused {
            return Err(format!(
                "{} entity at byte offset {byte_offset} can't be part of the {} entity around it",
                kind.name(),
                self.stack.last().map_or("", |e| e.kind.name())
            ));
        }
        Ok(())
    }

    /// Opens the entity starting at `i`; returns the index after its opening marker.
    fn begin_entity(&mut self, mut i: usize, c: char) -> Result<usize, String> {
        let byte_offset = self.byte(i);
        let next = self.at(i + 1);
        let mut language = None;
        let kind = match c {
            '_' if next == Some('_') => {
                i += 1;
                Open::Underline
            }
            '_' => Open::Italic,
            '*' => Open::Bold,
            '~' => Open::Strikethrough,
            '|' if next == Some('|') => {
                i += 1;
                Open::Spoiler
            }
            '[' => Open::TextUrl,
            '!' if next == Some('[') => {
                i += 1;
                Open::CustomEmoji
            }
            '`' if next == Some('`') && self.at(i + 2) == Some('`') => {
                self.check_nesting(Open::Pre, byte_offset)?;
                i += 3;
                let mut end = i;
                while let Some(ch) = self.at(end) {
                    if ch.is_whitespace() || ch == '`' {
                        break;
                    }
                    end += 1;
                }
                if end != i && self.at(end).is_some_and(|ch| ch != '`') {
                    language = Some(self.chars[i..end].iter().map(|&(_, ch)| ch).collect());
                    i = end;
                }
                // One line break right after the opening fence is not part of the code.
                match (self.at(i), self.at(i + 1)) {
                    (Some('\r'), Some('\n')) | (Some('\n'), Some('\r')) => i += 2,
                    (Some('\n' | '\r'), _) => i += 1,
                    _ => {}
                }
                self.stack.push(OpenEntity {
                    kind: Open::Pre,
                    language,
                    byte_offset,
                    utf16_start: self.utf16,
                    plain_start: self.plain.len(),
                });
                return Ok(i);
            }
            '`' => Open::Code,
            _ => return Err(reserved_error(c)),
        };
        self.check_nesting(kind, byte_offset)?;
        self.stack.push(OpenEntity {
            kind,
            language,
            byte_offset,
            utf16_start: self.utf16,
            plain_start: self.plain.len(),
        });
        Ok(i + 1)
    }

    /// Closes the innermost entity whose end marker is at `i`; returns the index after it.
    fn end_entity(&mut self, mut i: usize) -> Result<usize, String> {
        let Some(open) = self.stack.pop() else {
            return Ok(i + 1);
        };
        let start = open.utf16_start;
        let kind = match open.kind {
            Open::Bold => EntityKind::Bold,
            Open::Italic => EntityKind::Italic,
            Open::Strikethrough => EntityKind::Strikethrough,
            Open::Code => EntityKind::Code,
            Open::Underline => {
                i += 1;
                EntityKind::Underline
            }
            Open::Spoiler => {
                i += 1;
                EntityKind::Spoiler
            }
            Open::Pre => {
                i += 2;
                EntityKind::Pre {
                    language: open.language,
                }
            }
            Open::TextUrl => {
                let url = if self.at(i + 1) == Some('(') {
                    let (url, after) = self.url(i + 2)?;
                    i = after - 1;
                    url
                } else {
                    self.plain[open.plain_start..].to_owned()
                };
                EntityKind::TextLink { url }
            }
            Open::CustomEmoji => {
                if self.at(i + 1) != Some('(') {
                    return Err("Custom emoji entity must contain a tg://emoji URL".to_owned());
                }
                let (url, after) = self.url(i + 2)?;
                i = after - 1;
                let id = url.strip_prefix("tg://emoji?id=").unwrap_or_default();
                if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
                    return Err("Invalid custom emoji identifier specified".to_owned());
                }
                EntityKind::CustomEmoji { id: id.to_owned() }
            }
        };
        self.add(kind, start);
        Ok(i + 1)
    }

    /// Reads a link target starting at `i` up to an unescaped `)`; returns it and the index after `)`.
    fn url(&self, start: usize) -> Result<(String, usize), String> {
        let mut url = String::new();
        let mut i = start;
        loop {
            match self.at(i) {
                None => {
                    let offset = self.byte(start).min(self.text_len);
                    return Err(format!("Can't find end of a URL at byte offset {offset}"));
                }
                Some(')') => return Ok((url, i + 1)),
                Some('\\') => match self.at(i + 1) {
                    Some(next) if (1..=126).contains(&u32::from(next)) => {
                        url.push(next);
                        i += 2;
                    }
                    _ => return Err(reserved_error('\\')),
                },
                Some(c) => {
                    url.push(c);
                    i += 1;
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "markdown_check_tests.rs"]
mod tests;
