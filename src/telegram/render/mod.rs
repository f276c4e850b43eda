//! Agents' Markdown (plan and decision contexts) rendered as Telegram MarkdownV2: pure, no I/O.
//!
//! [`render`] turns Markdown into [`Block`]s, each a complete MarkdownV2 string (every entity it opens,
//! it closes) with the plain text the owner will see; [`excerpt`] joins as many as fit a budget and
//! cuts the rest safely. What becomes what:
//! - paragraphs → lines (a line break in the source stays one); headings → bold lines;
//! - `*em*` → italic, `**strong**` → bold, `~~strike~~` → strikethrough, nested freely, except that a
//!   span inside a span of the same kind is left out (Telegram has no bold-in-bold);
//! - `` `code` `` → code; Telegram allows code in no other entity but a block quote, so code inside a
//!   link is shown as plain link text, and bold/italic/strikethrough are closed around it;
//! - fenced and indented code → `pre` with the fence's language (when it is a plain word); tables →
//!   one `pre` block with aligned columns;
//! - links and images → text links when the URL is http, https or tg (and not inside another link);
//!   otherwise the text followed by ` (url)` unless the text already shows it; an empty text shows
//!   the URL;
//! - lists → `• ` / `◦ ` (nested) or `1. ` lines, nested items indented; task items `☐ ` / `☑ `;
//! - a top-level block quote → a Telegram block quote (`>` lines); Telegram cannot nest quotes, so a
//!   quote inside a quote or a list shows its content at the outer level;
//! - raw HTML → its text, escaped; thematic breaks → `———`.
//!
//! Control characters other than line breaks and tabs become spaces.

mod events;
mod excerpt;
mod writer;

use pulldown_cmark::{Options, Parser};

use events::Renderer;
pub use excerpt::{Excerpt, FULL_CONTEXT, excerpt};
use writer::Cut;

/// One rendered block: a paragraph, a heading, a list, a quote, a code block or a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Self-contained MarkdownV2.
    pub text: String,
    /// What the owner sees: `text` after entity parsing.
    pub plain: String,
    /// Length of `plain` in UTF-16 units (Telegram's unit).
    pub units: usize,
    /// Where the block may be cut, in order.
    cuts: Vec<Cut>,
}

impl Block {
    fn new(text: String, plain: String, cuts: Vec<Cut>) -> Block {
        let units = plain.encode_utf16().count();
        Block {
            text,
            plain,
            units,
            cuts,
        }
    }

    /// The longest safe beginning of the block that shows at most `max` units (and something), as
    /// MarkdownV2 with every entity closed.
    #[must_use]
    pub fn prefix(&self, max: usize) -> Option<String> {
        let fitting = self.cuts.partition_point(|c| c.units <= max);
        let cut = self.cuts[..fitting].last()?;
        Some(format!("{}{}", &self.text[..cut.at], cut.close))
    }
}

/// The blocks of `markdown`, in order; blocks that would show nothing are left out.
#[must_use]
pub fn render(markdown: &str) -> Vec<Block> {
    let source = sanitize(markdown);
    let mut renderer = Renderer::default();
    for event in Parser::new_ext(&source, options()) {
        renderer.event(event);
    }
    renderer.end_block();
    renderer.blocks
}

/// The Markdown extensions agents use: GFM tables, strikethrough and task lists.
pub(crate) fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Line breaks as `\n`, and every other control character but the tab as a space.
pub(crate) fn sanitize(markdown: &str) -> String {
    markdown
        .replace("\r\n", "\n")
        .chars()
        .map(|c| match c {
            '\r' => '\n',
            '\n' | '\t' => c,
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod arbitrary;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
