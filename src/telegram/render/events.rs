//! The walk over pulldown-cmark's events: which Markdown becomes which MarkdownV2 (see the module
//! documentation of [`super`]), one [`Writer`] per top-level block.

use pulldown_cmark::{CodeBlockKind, Event, Tag, TagEnd};

use super::Block;
use super::writer::{Gap, Span, Writer};

/// Whether Telegram should get `url` as a text link: http, https and tg only, and nothing that would
/// not survive as one (spaces).
fn linkable(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    let scheme = ["http://", "https://", "tg://"]
        .iter()
        .find(|s| lower.starts_with(**s));
    scheme.is_some_and(|s| url.len() > s.len()) && !url.chars().any(char::is_whitespace)
}

/// A link or image being rendered.
struct Link {
    url: String,
    /// Rendered as a text link (else as text).
    linked: bool,
    /// Its text so far.
    shown: String,
}

/// A table being collected: rows of cells of plain text.
#[derive(Default)]
struct Table {
    rows: Vec<Vec<String>>,
    row: Vec<String>,
    cell: String,
}

/// Turns a stream of events into blocks.
#[derive(Default)]
pub(super) struct Renderer {
    pub blocks: Vec<Block>,
    writer: Option<Writer>,
    /// Block-level elements open; 0 between top-level blocks.
    depth: usize,
    /// Open lists, with the next number of ordered ones.
    lists: Vec<Option<u64>>,
    links: Vec<Link>,
    /// Inside a code block: its language and text so far.
    code: Option<(Option<String>, String)>,
    table: Option<Table>,
}

impl Renderer {
    fn writer(&mut self) -> &mut Writer {
        self.writer.get_or_insert_with(|| Writer::new(false))
    }

    pub fn end_block(&mut self) {
        if let Some(writer) = self.writer.take() {
            let block = writer.finish();
            if !block.plain.trim().is_empty() {
                self.blocks.push(block);
            }
        }
    }

    /// The gap between block-level elements inside a list (a line) or a quote (a blank line).
    fn separate(&mut self) {
        let gap = if self.lists.is_empty() {
            Gap::Blank
        } else {
            Gap::Line
        };
        self.writer().gap(gap);
    }

    pub fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => self.code(&code),
            Event::Html(html) => {
                let line = html.strip_suffix('\n');
                self.text(line.unwrap_or(&html));
                if line.is_some() {
                    self.writer().gap(Gap::Line);
                }
            }
            Event::InlineHtml(text) | Event::InlineMath(text) | Event::DisplayMath(text) => {
                self.text(&text);
            }
            Event::FootnoteReference(name) => self.text(&format!("[^{name}]")),
            Event::SoftBreak | Event::HardBreak => self.text("\n"),
            Event::Rule => {
                if self.depth == 0 {
                    self.end_block();
                    self.writer().text("———");
                    self.end_block();
                } else {
                    self.writer().gap(Gap::Line);
                    self.writer().text("———");
                    self.separate();
                }
            }
            Event::TaskListMarker(done) => self.writer().marker(if done { "☑ " } else { "☐ " }),
        }
    }

    fn text(&mut self, text: &str) {
        if let Some((_, code)) = &mut self.code {
            code.push_str(text);
        } else {
            for link in &mut self.links {
                link.shown.push_str(text);
            }
            match &mut self.table {
                Some(table) => table.cell.push_str(&text.replace('\n', " ")),
                None => self.writer().text(text),
            }
        }
    }

    fn code(&mut self, code: &str) {
        for link in &mut self.links {
            link.shown.push_str(code);
        }
        match &mut self.table {
            Some(table) => table.cell.push_str(code),
            None => self.writer().code(code),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        if is_block(&tag) {
            if self.depth == 0 {
                self.end_block();
                self.writer = Some(Writer::new(matches!(tag, Tag::BlockQuote(_))));
            } else {
                self.writer().gap(Gap::Line);
            }
            self.depth += 1;
        }
        match tag {
            Tag::Heading { .. } => self.writer().push_span(Span::Bold),
            Tag::Strong => self.writer().push_span(Span::Bold),
            Tag::Emphasis => self.writer().push_span(Span::Italic),
            Tag::Strikethrough => self.writer().push_span(Span::Strike),
            Tag::Superscript | Tag::Subscript => self.writer().push_nothing(),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                let url = dest_url.to_string();
                // A table is one `pre` block: its links are shown as text.
                let linked = linkable(&url) && self.table.is_none() && !self.writer().in_link();
                if linked {
                    self.writer().push_span(Span::Link(url.clone()));
                } else {
                    self.writer().push_nothing();
                }
                self.links.push(Link {
                    url,
                    linked,
                    shown: String::new(),
                });
            }
            Tag::CodeBlock(kind) => {
                let language = match kind {
                    CodeBlockKind::Fenced(info) => language(&info),
                    CodeBlockKind::Indented => None,
                };
                self.code = Some((language, String::new()));
            }
            Tag::Table(_) => self.table = Some(Table::default()),
            Tag::List(first) => self.lists.push(first),
            Tag::Item => self.item(),
            _ => {}
        }
    }

    fn item(&mut self) {
        let depth = self.lists.len();
        let marker = match self.lists.last_mut() {
            Some(Some(n)) => {
                let marker = format!("{n}. ");
                *n += 1;
                marker
            }
            _ if depth > 1 => "◦ ".to_owned(),
            _ => "• ".to_owned(),
        };
        let writer = self.writer();
        writer.gap(Gap::Line);
        writer.indent = 2 * depth.saturating_sub(1);
        writer.marker(&marker);
        writer.indent = 2 * depth;
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_)
            | TagEnd::Strong
            | TagEnd::Emphasis
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript => self.writer().pop_span(),
            TagEnd::Link | TagEnd::Image => self.end_link(),
            TagEnd::CodeBlock => {
                if let Some((language, code)) = self.code.take() {
                    self.writer().pre(&code, language.as_deref());
                }
            }
            TagEnd::TableCell => {
                if let Some(table) = &mut self.table {
                    let cell = std::mem::take(&mut table.cell);
                    table.row.push(cell.trim().to_owned());
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(table) = &mut self.table {
                    let row = std::mem::take(&mut table.row);
                    table.rows.push(row);
                }
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.writer().pre(&table_text(&table.rows), None);
                }
            }
            TagEnd::List(_) => {
                self.lists.pop();
                let indent = 2 * self.lists.len();
                self.writer().indent = indent;
            }
            _ => {}
        }
        if is_block_end(tag) {
            self.depth = self.depth.saturating_sub(1);
            if self.depth == 0 {
                self.end_block();
            } else if !matches!(tag, TagEnd::Item | TagEnd::List(_)) {
                self.separate();
            } else {
                self.writer().gap(Gap::Line);
            }
        }
    }

    fn end_link(&mut self) {
        let Some(link) = self.links.pop() else {
            return;
        };
        if link.shown.trim().is_empty() {
            // Nothing to click on: show where it goes.
            self.text(&link.url);
        } else if !link.linked && !link.url.is_empty() && !shows(&link.shown, &link.url) {
            self.text(&format!(" ({})", link.url));
        }
        self.writer().pop_span();
    }
}

/// Whether a link's text already shows its target (autolinks, e-mail addresses).
fn shows(text: &str, url: &str) -> bool {
    text.contains(url)
        || url
            .strip_prefix("mailto:")
            .is_some_and(|m| text.contains(m))
}

fn is_block(tag: &Tag<'_>) -> bool {
    !matches!(
        tag,
        Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Link { .. }
            | Tag::Image { .. }
            | Tag::TableHead
            | Tag::TableRow
            | Tag::TableCell
    )
}

fn is_block_end(tag: TagEnd) -> bool {
    !matches!(
        tag,
        TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Link
            | TagEnd::Image
            | TagEnd::TableHead
            | TagEnd::TableRow
            | TagEnd::TableCell
    )
}

/// The language of a fenced block: the info string's first word, when it is a plain name.
fn language(info: &str) -> Option<String> {
    let word = info.split_whitespace().next()?;
    let plain = word.len() <= 32
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-_#.".contains(c));
    plain.then(|| word.to_owned())
}

/// A table as aligned text: cells padded to their column's width, a rule under the header row.
fn table_text(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width = |c: usize| {
        rows.iter()
            .filter_map(|row| row.get(c))
            .map(|cell| cell.chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..columns).map(width).collect();
    let mut lines = Vec::with_capacity(rows.len() + 1);
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<String> = widths
            .iter()
            .enumerate()
            .map(|(c, &w)| {
                let cell = row.get(c).map_or("", String::as_str);
                format!("{cell}{}", " ".repeat(w - cell.chars().count()))
            })
            .collect();
        lines.push(cells.join(" | ").trim_end().to_owned());
        if i == 0 && rows.len() > 1 {
            let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w.max(1))).collect();
            lines.push(rule.join("-+-"));
        }
    }
    lines.join("\n")
}
