//! The demo's conversation as the owner's phone shows it: one HTML page (its style embedded) drawn from the
//! messages the daemon sent the fake Bot API — their text with its formatting entities, their buttons — and the
//! owner's taps. `arbiter demo --html FILE` writes it; `tests/demo_phone.rs` checks that the committed
//! `docs/phone.html` is what the demo draws today, and renders it to `docs/screenshots/phone.png` in Chromium.

use std::fmt::Write as _;

use crate::fakebot::{Markup, SentMessage};
use crate::telegram::entity::EntityKind;

/// One step of the conversation.
pub enum Item {
    /// A message of the bot's, as it stood when the demo showed it.
    View(Box<SentMessage>),
    /// The owner taps a button.
    Tap(String),
    /// The owner sends a message.
    Sent(String),
}

const STYLE: &str = "body{margin:0;background:#d7e3ec;font:15px/1.35 -apple-system,'Segoe UI',Roboto,sans-serif}\
.chat{max-width:420px;margin:0 auto;padding:12px 10px}\
.bot{background:#fff;border-radius:12px 12px 12px 4px;padding:8px 11px;margin:8px 40px 2px 0;white-space:pre-wrap;word-wrap:break-word;box-shadow:0 1px 1px rgba(0,0,0,.12)}\
.kb{margin:0 40px 10px 0}.row{display:flex;gap:4px;margin-top:4px}\
.btn{flex:1;text-align:center;background:rgba(80,110,140,.35);color:#fff;border-radius:8px;padding:7px 4px;font-size:14px}\
.me{background:#e1fec6;border-radius:12px 12px 4px 12px;padding:7px 11px;margin:10px 0 10px 80px;text-align:right;box-shadow:0 1px 1px rgba(0,0,0,.12)}\
code,pre{font-family:Menlo,Consolas,monospace;font-size:13px;background:#f1f3f5;border-radius:4px}pre{padding:6px;margin:4px 0;white-space:pre-wrap}\
blockquote{border-left:3px solid #4a90d9;margin:4px 0;padding-left:8px}a{color:#2a7ab8}";

/// The page.
#[must_use]
pub fn page(items: &[Item]) -> String {
    let mut out = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Arbiter Zebu on the phone</title>\
         <style>{STYLE}</style></head>\n<body><div class=\"chat\">\n"
    );
    for item in items {
        match item {
            Item::View(m) => {
                let _ = writeln!(out, "<div class=\"bot\">{}</div>", formatted(m));
                if let Some(Markup::Inline(rows)) = &m.reply_markup {
                    out.push_str("<div class=\"kb\">");
                    for row in rows {
                        out.push_str("<div class=\"row\">");
                        for b in row {
                            let _ = write!(out, "<div class=\"btn\">{}</div>", escape(&b.text));
                        }
                        out.push_str("</div>");
                    }
                    out.push_str("</div>\n");
                }
            }
            Item::Tap(label) => {
                let _ = writeln!(out, "<div class=\"me\">👆 {}</div>", escape(label));
            }
            Item::Sent(text) => {
                let _ = writeln!(out, "<div class=\"me\">{}</div>", escape(text));
            }
        }
    }
    out.push_str("</div></body></html>\n");
    out
}

/// The message's text with its entities as HTML (their offsets count UTF-16 units, as Telegram's do).
fn formatted(m: &SentMessage) -> String {
    let mut opens: Vec<(usize, String)> = Vec::new();
    let mut closes: Vec<(usize, String)> = Vec::new();
    for e in &m.entities {
        let (open, close) = match &e.kind {
            EntityKind::Bold => ("<b>".to_owned(), "</b>"),
            EntityKind::Italic => ("<i>".to_owned(), "</i>"),
            EntityKind::Underline => ("<u>".to_owned(), "</u>"),
            EntityKind::Strikethrough => ("<s>".to_owned(), "</s>"),
            EntityKind::Code => ("<code>".to_owned(), "</code>"),
            EntityKind::Pre { .. } => ("<pre>".to_owned(), "</pre>"),
            EntityKind::TextLink { url } => (format!("<a href=\"{}\">", escape(url)), "</a>"),
            EntityKind::Blockquote | EntityKind::ExpandableBlockquote => {
                ("<blockquote>".to_owned(), "</blockquote>")
            }
            EntityKind::Spoiler | EntityKind::CustomEmoji { .. } => continue,
        };
        opens.push((e.offset, open));
        closes.push((e.offset + e.length, close.to_owned()));
    }
    let mut out = String::new();
    let mut at = 0;
    for c in m.plain.chars() {
        tags(&mut out, &mut closes, &mut opens, at);
        out.push_str(&escape(&c.to_string()));
        at += c.len_utf16();
    }
    tags(&mut out, &mut closes, &mut opens, at);
    for (_, close) in closes.drain(..).rev() {
        out.push_str(&close);
    }
    out
}

/// Writes the tags that close, then those that open, at UTF-16 position `at`.
fn tags(
    out: &mut String,
    closes: &mut Vec<(usize, String)>,
    opens: &mut Vec<(usize, String)>,
    at: usize,
) {
    while let Some(i) = closes.iter().rposition(|(pos, _)| *pos == at) {
        out.push_str(&closes.remove(i).1);
    }
    while let Some(i) = opens.iter().position(|(pos, _)| *pos == at) {
        out.push_str(&opens.remove(i).1);
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
