//! Test support: arbitrary (and hostile) Markdown, and what the owner must be able to read of it.

use proptest::prelude::*;
use pulldown_cmark::{Event, Parser};

use super::{options, sanitize};

/// Markdown built from the pieces that break renderers: unbalanced emphasis and fences, `**` in code,
/// links with parentheses and backslashes, quotes, lists, tables, HTML, emoji and Cyrillic; or any
/// string at all.
pub(crate) fn markdown(max_pieces: usize) -> BoxedStrategy<String> {
    let piece = prop_oneof![
        3 => "[a-zA-Zа-я0-9]{1,8}".boxed(),
        3 => Just(" ".to_owned()).boxed(),
        2 => Just("\n".to_owned()).boxed(),
        1 => Just("\n\n".to_owned()).boxed(),
        5 => prop::sample::select(vec![
            "**", "*", "_", "__", "~~", "~", "`", "``", "```", "```rust\n", "\n```\n", "~~~\n",
            "> ", ">", "- ", "* ", "1. ", "3) ", "  ", "    ", "# ", "### ", "- [ ] ", "- [x] ",
            "---\n", "| a | b |\n|---|:-:|\n| `c|d` | **e** |\n", "|", "[", "]", "(", ")", "](",
            "[link](", "![img](", "http://ex.com/a_(b)\\c", "https://ex.com/?q=a)b", "tg://resolve?domain=x",
            "mailto:a@b.c", "javascript:x()", "<https://ex.com>", "<a@b.c>", "\\", "\\*", "\\`", "<b>",
            "</b>", "<div>\n", "&amp;", "&#0;", "🎉", "👩‍👩‍👧", "é", ".", "!", "#", "+", "=", "{", "}", "-",
            "\t", "\r", "\u{0}", "\u{202e}",
        ])
        .prop_map(str::to_owned)
        .boxed(),
    ];
    prop_oneof![
        4 => prop::collection::vec(piece, 0..max_pieces).prop_map(|pieces| pieces.concat()),
        1 => any::<String>(),
    ]
    .boxed()
}

/// The words of `markdown` as CommonMark reads it (text, code, HTML; not link targets or markup),
/// split at white space and wherever markup separates them.
pub(crate) fn words(markdown: &str) -> Vec<String> {
    let source = sanitize(markdown);
    let mut text = String::new();
    for event in Parser::new_ext(&source, options()) {
        match event {
            Event::Text(t) | Event::Code(t) | Event::Html(t) | Event::InlineHtml(t) => {
                text.push_str(&t);
            }
            // Markup separates words here; the renderer may join them ("a*b*" shows "ab"), which
            // `holds_in_order` accepts.
            _ => text.push(' '),
        }
    }
    text.split_whitespace().map(str::to_owned).collect()
}

/// Checks that `plain` shows every one of `words`, in order (each found after the previous one).
pub(crate) fn holds_in_order(plain: &str, words: &[String]) -> Result<(), String> {
    let mut rest = plain;
    for (i, word) in words.iter().enumerate() {
        match rest.find(word.as_str()) {
            Some(at) => rest = &rest[at + word.len()..],
            None => {
                return Err(format!(
                    "word {i} {word:?} is missing (or out of order) in:\n{plain}"
                ));
            }
        }
    }
    Ok(())
}
