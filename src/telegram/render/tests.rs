//! Every construct rendered (snapshots in `snapshots/`, reviewed by eye), each block and each cut
//! point checked against the strict validator, and the cut rule on made-up blocks.

use insta::assert_snapshot;

use super::arbitrary::{holds_in_order, words};
use super::*;
use crate::telegram::entity::EntityKind;
use crate::telegram::markdown_check::{parse_markdown_v2, parse_markdown_v2_entities};

/// Checks what every rendering must hold, panicking with the offending block.
pub(super) fn check_blocks(markdown: &str, blocks: &[Block]) {
    for block in blocks {
        let parsed = parse_markdown_v2_entities(&block.text)
            .unwrap_or_else(|e| panic!("{e}\nblock: {:?}\nfrom: {markdown:?}", block.text));
        assert_eq!(parsed.plain, block.plain, "plain of {:?}", block.text);
        assert_eq!(block.units, block.plain.encode_utf16().count());
        assert!(
            !block.plain.trim().is_empty(),
            "blank block {:?}",
            block.text
        );
        let mut last = 0;
        for cut in &block.cuts {
            assert!(cut.units > last, "cuts in order");
            last = cut.units;
            let prefix = format!("{}{}", &block.text[..cut.at], cut.close);
            let plain = parse_markdown_v2(&prefix)
                .unwrap_or_else(|e| panic!("{e}\ncut: {prefix:?}\nof: {:?}", block.text));
            assert_eq!(plain.encode_utf16().count(), cut.units, "cut {prefix:?}");
            assert!(
                block.plain.starts_with(&plain),
                "cut {prefix:?} shows {plain:?}"
            );
        }
    }
    let plain: Vec<&str> = blocks.iter().map(|b| b.plain.as_str()).collect();
    let plain = plain.join("\n\n");
    if let Err(e) = holds_in_order(&plain, &words(markdown)) {
        panic!("{e}\nfrom: {markdown:?}");
    }
}

/// The input, each block's MarkdownV2, what the owner sees and the entities, for a snapshot.
fn show(markdown: &str) -> String {
    let blocks = render(markdown);
    check_blocks(markdown, &blocks);
    let texts: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
    let text = texts.join("\n\n");
    let parsed = parse_markdown_v2_entities(&text).expect("joined blocks parse");
    let entities: Vec<String> = parsed
        .entities
        .iter()
        .map(|e| {
            let units: Vec<u16> = parsed
                .plain
                .encode_utf16()
                .skip(e.offset)
                .take(e.length)
                .collect();
            let shown = String::from_utf16_lossy(&units);
            let extra = match &e.kind {
                EntityKind::TextLink { url } => format!(" → {url}"),
                EntityKind::Pre {
                    language: Some(language),
                } => format!(" ({language})"),
                _ => String::new(),
            };
            format!("{}{extra}: {shown:?}", e.kind.api_name())
        })
        .collect();
    format!(
        "── markdown ──\n{markdown}\n── MarkdownV2 ({} blocks) ──\n{text}\n── owner sees ──\n{}\n── entities ──\n{}",
        blocks.len(),
        parsed.plain,
        entities.join("\n")
    )
}

#[test]
fn paragraphs_and_line_breaks() {
    assert_snapshot!(show(
        "First paragraph, version 1.2 (final)!\nA second line - kept.\n\n\n\nSecond paragraph \
         with a hard  \nbreak and a #hash, a +plus, {braces} and a = sign."
    ));
}

#[test]
fn emphasis() {
    assert_snapshot!(show(
        "Some **bold**, *italic*, _also italic_, ~~struck~~ and ***both***.\n\
         **bold with *italic* inside** and *italic with **bold** inside*.\n\
         **outer **inner** outer** (bold in bold), snake_case_word, 2*3*4, **unclosed and *half"
    ));
}

#[test]
fn inline_code() {
    assert_snapshot!(show(
        "Run `cargo test --lib` now. Code with `` a`tick `` and `C:\\dir\\` and `**not bold**`.\n\
         **bold `code` bold**, *it `code` it*, [link `code` link](https://ex.com)."
    ));
}

#[test]
fn code_blocks() {
    assert_snapshot!(show(
        "```rust\nfn main() {\n    println!(\"`hi` \\\\ {}\", 1_000);\n}\n```\n\n\
         ```weird lang!\nno language kept\n```\n\n    indented code\n    *stays*\n\n\
         ```\n\n```\n\n```diff\n- old\n+ new\n```"
    ));
}

#[test]
fn unclosed_fence_runs_to_the_end() {
    assert_snapshot!(show(
        "Before.\n\n```python\nprint('never closed')\n\nstill code **x**"
    ));
}

#[test]
fn links() {
    assert_snapshot!(show(
        "[Docs](https://ex.com/a_(b)\\c) and [plain http](http://ex.com), [tg](tg://resolve?domain=x), \
         <https://auto.link/x_y>, <someone@ex.com>, [mail](mailto:a@b.c), [relative](docs/x.md), \
         [js](javascript:alert(1)), [](https://empty.text), [**bold** link](https://b.ex), \
         ![an image](https://img.ex/a.png), ![local](a.png), \
         [![nested image](https://img.ex/b.png)](https://outer.ex) and [spaced](<https://ex.com/a b>)."
    ));
}

#[test]
fn lists() {
    assert_snapshot!(show(
        "- one\n- two with **bold**\n  - nested\n    - deeper\n- three\n\n\
         3. third\n4. fourth\n   continued line\n\n\
         - [ ] to do\n- [x] done\n\n\
         - loose item\n\n  second paragraph\n\n  ```sh\n  make\n  ```\n- last"
    ));
}

#[test]
fn block_quotes() {
    assert_snapshot!(show(
        "> A quote with *italic\n> over two lines* and `code`.\n>\n> Second paragraph.\n> > Nested quote.\n\
         > - a list\n> ```js\n> x > 1\n> ```\n\nAfter the quote.\n\n- item\n  > quote in a list"
    ));
}

#[test]
fn headings_and_rules() {
    assert_snapshot!(show(
        "# Title with *italic* and `code`\n\nText.\n\n## Second level\n\n---\n\n### Third\n\nSetext\n======"
    ));
}

#[test]
fn tables() {
    assert_snapshot!(show(
        "| Option | Cost | Notes |\n|:--|--:|:-:|\n| `redis` | 12 € | **fast**, [docs](https://r.io) |\n\
         | Привет | 1 | a \\| b |\n| short |"
    ));
}

#[test]
fn raw_html() {
    assert_snapshot!(show(
        "<div class=\"x\">\n<b>bold?</b>\n</div>\n\nInline <i>html</i> & entities &amp; &copy; <!-- comment -->"
    ));
}

#[test]
fn hostile_snippets_stay_valid() {
    let cases = [
        "**",
        "`**`",
        "***",
        "_*_*_*",
        "*a*_b_",
        "_a__b_",
        "__a__b__",
        "[a](",
        "[a](b",
        "[a](http://x)(y)",
        "[[[[[[",
        ">>>>> deep",
        "> a\n>> b\n>>> c",
        "\\",
        "a\\",
        "`\\`",
        "``` ```",
        "~~~\nfence\n~~~",
        "- ```\n  x\n- y",
        "1.\n2.\n3.",
        "|a|\n|-|\n|`|`|",
        "![](http://x)",
        "[![](http://x)](http://y)",
        "<http://a_b.c>*x*",
        "a\r\nb\rc\u{0}d\u{7}e",
        "🎉**🎉**🎉`🎉`",
        "\u{202e}evil **rtl**",
        "# \n\n##",
        "> ```\n> a\n\nb",
        "* * *",
        "[link](http://x \"title\")",
        "[ref]\n\n[ref]: https://ex.com",
        "*a `b` c*",
        "**a [b `c` d](http://x) e**",
    ];
    for markdown in cases {
        check_blocks(markdown, &render(markdown));
    }
}

fn block(text: &str) -> Block {
    let blocks = render(text);
    assert_eq!(blocks.len(), 1, "{text:?}");
    blocks.into_iter().next().expect("one block")
}

#[test]
fn a_context_that_fits_is_shown_whole() {
    let blocks = render("one\n\ntwo");
    assert_eq!(
        excerpt(&blocks, 8),
        Excerpt {
            text: "one\n\ntwo".into(),
            cut: false
        }
    );
    assert_eq!(
        excerpt(&[], 0),
        Excerpt {
            text: String::new(),
            cut: false
        }
    );
}

#[test]
fn cuts_fall_between_blocks_or_where_no_entity_is_open() {
    let more = "… 📄 Full context";
    let blocks = render("**first block** here\n\nsecond *block with italic* end");
    // Room for the first block (16 units) and the Full context line (1 + 17) only.
    let ex = excerpt(&blocks, 16 + 1 + 17);
    assert!(ex.cut);
    assert_eq!(ex.text, "*first block* here\n… 📄 Full context");
    // A little more room (the whole needs 16 + 2 + 28): the second block is cut, not inside the italic.
    let ex = excerpt(&blocks, 16 + 2 + 8 + 1 + 17);
    assert_eq!(
        parse_markdown_v2(&ex.text).as_deref(),
        Ok(format!("first block here\n\nsecond\n{more}").as_str())
    );
    // No room for anything but the line; then not even for it.
    assert_eq!(excerpt(&blocks, 18).text, "… 📄 Full context");
    assert_eq!(excerpt(&blocks, 3).text, "");
    assert!(excerpt(&blocks, 3).cut);
}

#[test]
fn a_code_block_is_cut_at_a_line_end_and_closed() {
    let code = block("```py\nline_one()\nline_two()\nline_three()\n```");
    assert_eq!(
        code.prefix(25).as_deref(),
        Some("```py\nline_one()\nline_two()```")
    );
    assert_eq!(code.prefix(5), None);
}

#[test]
fn a_first_block_without_a_cut_point_is_shown_as_text() {
    let blocks = render("**one long bold paragraph without any break in its bold**");
    let ex = excerpt(&blocks, 30);
    assert!(ex.cut);
    assert_eq!(
        parse_markdown_v2(&ex.text).as_deref(),
        Ok("one long bo…\n… 📄 Full context")
    );
}
