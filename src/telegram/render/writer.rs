//! Writes one rendered block as MarkdownV2, keeping the plain text the owner will see beside it and
//! noting where the block may be cut.
//!
//! Inline entities are opened lazily: a span is written only once text inside it is, and adjacent spans
//! of the same kind merge. So no entity is ever empty, and a closing `_` is never followed by an
//! opening `_` (which Telegram would read as `__`, underline).

use crate::telegram::markdown::{escape, escape_code, escape_url};

use super::Block;

/// An inline entity the writer can open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Span {
    Bold,
    Italic,
    Strike,
    /// A text link to an already checked URL.
    Link(String),
}

impl Span {
    fn same_kind(&self, other: &Span) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }

    fn opening(&self) -> &'static str {
        match self {
            Span::Bold => "*",
            Span::Italic => "_",
            Span::Strike => "~",
            Span::Link(_) => "[",
        }
    }

    fn closing(&self) -> String {
        match self {
            Span::Bold => "*".to_owned(),
            Span::Italic => "_".to_owned(),
            Span::Strike => "~".to_owned(),
            Span::Link(url) => format!("]({})", escape_url(url)),
        }
    }
}

/// What separates the next content from what is already written in the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Gap {
    None,
    Line,
    Blank,
}

/// A place where the block may be cut: `text[..at]` followed by `close` is valid MarkdownV2 on its own
/// and shows `units` UTF-16 units of plain text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cut {
    pub at: usize,
    pub units: usize,
    pub close: &'static str,
}

/// One block being written.
pub(super) struct Writer {
    out: String,
    plain: String,
    /// Cut points, with plain offsets in bytes until [`Writer::finish`] turns them into UTF-16 units.
    cuts: Vec<Cut>,
    /// Spans the current text belongs to, outermost first; `None` stands for a span left out (a bold
    /// inside a bold, a link inside a link) so that every end still pops its own start.
    wanted: Vec<Option<Span>>,
    /// Spans actually opened in `out`, outermost first.
    open: Vec<Span>,
    /// Inside a block quote: every line starts with `>`.
    quote: bool,
    /// Spaces at the start of every new line (list items).
    pub indent: usize,
    gap: Gap,
    /// Nothing written since a list marker: what follows goes on the marker's line.
    after_marker: bool,
}

impl Writer {
    pub fn new(quote: bool) -> Writer {
        Writer {
            out: if quote { ">".to_owned() } else { String::new() },
            plain: String::new(),
            cuts: Vec::new(),
            wanted: Vec::new(),
            open: Vec::new(),
            quote,
            indent: 0,
            gap: Gap::None,
            after_marker: false,
        }
    }

    /// Starts a span; a second span of a kind already wanted (bold in bold, link in link) is left out.
    pub fn push_span(&mut self, span: Span) {
        let nested = self.wanted.iter().flatten().any(|s| s.same_kind(&span));
        self.wanted.push((!nested).then_some(span));
    }

    /// A span that shows nothing itself (a link that is shown as text), so its end has one to pop.
    pub fn push_nothing(&mut self) {
        self.wanted.push(None);
    }

    pub fn pop_span(&mut self) {
        self.wanted.pop();
    }

    /// Whether the text written now would be part of a link.
    pub fn in_link(&self) -> bool {
        self.wanted
            .iter()
            .flatten()
            .any(|s| matches!(s, Span::Link(_)))
    }

    /// Asks for at least `gap` before the next content (nothing at the start of the block or of a
    /// list item).
    pub fn gap(&mut self, gap: Gap) {
        if !self.plain.is_empty() && !self.after_marker {
            self.gap = self.gap.max(gap);
        }
    }

    /// Text: escaped, inside the wanted spans; `\n` starts a new line.
    pub fn text(&mut self, s: &str) {
        for (i, line) in s.split('\n').enumerate() {
            if i > 0 {
                self.newline();
            }
            self.line(line);
        }
    }

    /// Inline code: a `code` entity, which Telegram allows in no other entity but a quote. Inside a
    /// link it is shown as link text; inside bold, italic or strikethrough those are closed around it.
    pub fn code(&mut self, s: &str) {
        let s = s.replace('\n', " ");
        if s.is_empty() {
            return;
        }
        if self.in_link() {
            self.line(&s);
            return;
        }
        self.flush_gap();
        self.close_all();
        self.mark("");
        self.out.push('`');
        self.out.push_str(&escape_code(&s));
        self.out.push('`');
        self.plain.push_str(&s);
    }

    /// A `pre` block on lines of its own (no `>` or indent inside it: `pre` keeps every character).
    /// It may be cut at the end of any of its lines, closing the fence there.
    pub fn pre(&mut self, code: &str, language: Option<&str>) {
        let code = code.trim_end_matches('\n');
        if code.is_empty() {
            return;
        }
        self.flush_gap();
        self.close_all();
        self.out.push_str("```");
        self.out.push_str(language.unwrap_or_default());
        self.out.push('\n');
        for (i, line) in code.split('\n').enumerate() {
            if i > 0 {
                self.mark("```");
                self.out.push('\n');
                self.plain.push('\n');
            }
            self.out.push_str(&escape_code(line));
            self.plain.push_str(line);
        }
        self.out.push_str("```");
    }

    /// A list marker (`• `, `2. `, `☑ `): plain text outside any span.
    pub fn marker(&mut self, s: &str) {
        self.flush_gap();
        self.close_all();
        self.out.push_str(&escape(s));
        self.plain.push_str(s);
        self.after_marker = true;
    }

    /// Closes every span and hands over the block.
    pub fn finish(mut self) -> Block {
        self.close_all();
        // A cut must leave something to read.
        let shown_from = self
            .plain
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(self.plain.len());
        let mut cuts = Vec::with_capacity(self.cuts.len());
        let mut units = 0;
        let mut counted = 0;
        for cut in self.cuts.into_iter().filter(|c| c.units > shown_from) {
            units += self.plain[counted..cut.units].encode_utf16().count();
            counted = cut.units;
            cuts.push(Cut { units, ..cut });
        }
        Block::new(self.out, self.plain, cuts)
    }

    /// One line of text (no `\n`), breaking it into cut points at its spaces when no span is open.
    fn line(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        self.flush_gap();
        self.sync();
        for (i, word) in s.split(' ').enumerate() {
            if i > 0 {
                self.mark("");
                self.out.push(' ');
                self.plain.push(' ');
            }
            self.out.push_str(&escape(word));
            self.plain.push_str(word);
        }
    }

    /// A line break inside the block; the new line gets the quote's `>` and the indent.
    fn newline(&mut self) {
        self.mark("");
        self.out.push('\n');
        self.plain.push('\n');
        if self.quote {
            self.out.push('>');
        }
        let indent = " ".repeat(self.indent);
        self.out.push_str(&indent);
        self.plain.push_str(&indent);
    }

    fn flush_gap(&mut self) {
        self.after_marker = false;
        let gap = std::mem::replace(&mut self.gap, Gap::None);
        if gap == Gap::None {
            return;
        }
        self.close_all();
        self.newline();
        if gap == Gap::Blank {
            self.newline();
        }
    }

    /// Opens and closes spans so that exactly the wanted ones are open.
    fn sync(&mut self) {
        let wanted: Vec<Span> = self.wanted.iter().flatten().cloned().collect();
        let common = self
            .open
            .iter()
            .zip(&wanted)
            .take_while(|(open, want)| open == want)
            .count();
        while self.open.len() > common {
            self.close_last();
        }
        for span in wanted.into_iter().skip(common) {
            self.out.push_str(span.opening());
            self.open.push(span);
        }
    }

    fn close_all(&mut self) {
        while !self.open.is_empty() {
            self.close_last();
        }
    }

    fn close_last(&mut self) {
        if let Some(span) = self.open.pop() {
            self.out.push_str(&span.closing());
        }
    }

    /// Notes the current position as a cut point when no span is open there.
    fn mark(&mut self, close: &'static str) {
        if self.open.is_empty() {
            self.cuts.push(Cut {
                at: self.out.len(),
                units: self.plain.len(),
                close,
            });
        }
    }
}
