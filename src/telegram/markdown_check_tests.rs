#![allow(clippy::unwrap_used)] // main has clippy.toml allow-unwrap-in-tests; this branch predates it

use super::*;
use crate::telegram::markdown::{bold, code, escape, italic};
use proptest::prelude::*;

fn ent(kind: EntityKind, offset: usize, length: usize) -> Entity {
    Entity {
        kind,
        offset,
        length,
    }
}

#[test]
fn accepts_valid_text() {
    let cases = [
        ("", ""),
        ("plain", "plain"),
        ("a\\.b", "a.b"),
        (
            "*bold* _it_ __under__ ~strike~ ||spoil||",
            "bold it under strike spoil",
        ),
        ("`co.de_*`", "co.de_*"),
        ("```rust\nfn x() {}\n```", "fn x() {}\n"),
        ("```\nraw . text```", "raw . text"),
        ("[link](https://ex.com/a\\)b)", "link"),
        ("*bold _italic_ bold*", "bold italic bold"),
        ("___a_**__", "a"),
        ("**", ""),
        ("![👍](tg://emoji?id=5368324170671202286)", "👍"),
        (">quote\n>more\nafter", "quote\nmore\nafter"),
        (
            ">*bold\n>still* `code` ```\npre```\n>end",
            "bold\nstill code pre\nend",
        ),
        ("*bold [link _it_](http://x)*", "bold link it"),
        ("**>hidden\n>quote||", "hidden\nquote"),
        ("🎉 \\\\ \\~", "🎉 \\ ~"),
    ];
    for (input, want) in cases {
        assert_eq!(
            parse_markdown_v2(input).as_deref(),
            Ok(want),
            "parse({input:?})"
        );
    }
}

#[test]
fn rejects_invalid_text() {
    let reserved = |c: char| {
        format!(
            "can't parse entities: Character '{c}' is reserved and must be escaped with the preceding '\\'"
        )
    };
    let cases = [
        ("Version 1.2", reserved('.')),
        ("a - b", reserved('-')),
        ("wow!", reserved('!')),
        ("x > y", reserved('>')),
        ("(paren)", reserved('(')),
        ("a|b", reserved('|')),
        ("ends with \\", reserved('\\')),
        ("\\é is not an escape", reserved('\\')),
        (
            "*unclosed",
            "can't parse entities: Can't find end of Bold entity at byte offset 0".to_owned(),
        ),
        (
            "ok _it",
            "can't parse entities: Can't find end of Italic entity at byte offset 3".to_owned(),
        ),
        (
            "___a___",
            "can't parse entities: Can't find end of Italic entity at byte offset 6".to_owned(),
        ),
        (
            "`code",
            "can't parse entities: Can't find end of Code entity at byte offset 0".to_owned(),
        ),
        (
            "```pre",
            "can't parse entities: Can't find end of Pre entity at byte offset 0".to_owned(),
        ),
        (
            "[a](http://x",
            "can't parse entities: Can't find end of a URL at byte offset 4".to_owned(),
        ),
        (
            "[a",
            "can't parse entities: Can't find end of TextUrl entity at byte offset 0".to_owned(),
        ),
        (
            ">*a\nb*",
            "can't parse entities: Can't find end of Bold entity at byte offset 1".to_owned(),
        ),
        (
            "![x](http://a)",
            "can't parse entities: Invalid custom emoji identifier specified".to_owned(),
        ),
        (
            "*a `b` c*",
            "can't parse entities: Code entity at byte offset 3 can't be part of the Bold entity around it"
                .to_owned(),
        ),
        (
            "_a ```\nb```_",
            "can't parse entities: Pre entity at byte offset 3 can't be part of the Italic entity around it"
                .to_owned(),
        ),
        (
            "[a `b`](http://x)",
            "can't parse entities: Code entity at byte offset 3 can't be part of the TextUrl entity around it"
                .to_owned(),
        ),
        (
            "[a [b](http://x) c](http://y)",
            "can't parse entities: TextUrl entity at byte offset 3 can't be part of the TextUrl entity around it"
                .to_owned(),
        ),
        (
            "*[a ![👍](tg://emoji?id=1)](http://y)*",
            "can't parse entities: CustomEmoji entity at byte offset 4 can't be part of the TextUrl entity around it"
                .to_owned(),
        ),
    ];
    for (input, want) in cases {
        assert_eq!(parse_markdown_v2(input), Err(want), "parse({input:?})");
    }
}

#[test]
fn reports_entities_in_utf16_units() {
    let parsed = parse_markdown_v2_entities("🎉 *b* [l](u) ```py\nx```").unwrap();
    assert_eq!(parsed.plain, "🎉 b l x");
    assert_eq!(
        parsed.entities,
        vec![
            ent(EntityKind::Bold, 3, 1),
            ent(EntityKind::TextLink { url: "u".into() }, 5, 1),
            ent(
                EntityKind::Pre {
                    language: Some("py".into())
                },
                7,
                1
            ),
        ]
    );
    let quoted = parse_markdown_v2_entities(">a\n>b\nc").unwrap();
    assert_eq!(quoted.entities, vec![ent(EntityKind::Blockquote, 0, 3)]);
}

#[test]
fn telegram_length_counts_utf16_units() {
    assert_eq!(telegram_length(""), 0);
    assert_eq!(telegram_length("abc"), 3);
    assert_eq!(telegram_length("é"), 1);
    assert_eq!(telegram_length("🎉"), 2);
}

proptest! {
    #[test]
    fn escaped_text_parses_back(s in any::<String>()) {
        prop_assert_eq!(parse_markdown_v2(&escape(&s)), Ok(s));
    }

    #[test]
    fn wrapped_text_parses_back(s in any::<String>()) {
        prop_assert_eq!(parse_markdown_v2(&bold(&s)), Ok(s.clone()));
        prop_assert_eq!(parse_markdown_v2(&italic(&s)), Ok(s.clone()));
        prop_assert_eq!(parse_markdown_v2(&code(&s)), Ok(s));
    }

    #[test]
    fn reserved_heavy_text_parses_back(s in "[_*\\[\\]()~`>#+=|{}.!\\\\\n a-]{0,40}") {
        let joined = format!("{}\n{}{}", escape(&s), bold(&s), code(&s));
        prop_assert_eq!(parse_markdown_v2(&joined), Ok(format!("{s}\n{s}{s}")));
    }

    #[test]
    fn never_panics(s in any::<String>()) {
        let _ = parse_markdown_v2(&s);
    }
}
