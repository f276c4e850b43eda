//! sendDocument: a real `teloxide::Bot` uploads a file, and the fake refuses what Telegram refuses.

#![allow(clippy::unwrap_used)] // main has clippy.toml allow-unwrap-in-tests; this branch predates it

use teloxide::prelude::*;
use teloxide::types::{InputFile, MessageEntityKind, ParseMode};
use teloxide::{ApiError, RequestError};

use super::tests::{OWNER, raw_post, setup};

const PLAN: &[u8] = b"---\nid: x\n---\n\n# Plan \xe2\x9c\x85\n\nContext.\n";

/// A multipart body with text fields and optionally one file field `document`.
fn multipart(fields: &[(&str, &str)], file: Option<(&str, &str)>) -> String {
    let mut body = String::new();
    for (name, value) in fields {
        body.push_str(&format!(
            "--XyZ\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
        ));
    }
    if let Some((file_name, content)) = file {
        body.push_str(&format!(
            "--XyZ\r\nContent-Disposition: form-data; name=\"document\"; filename=\"{file_name}\"\r\n\
             Content-Type: text/markdown\r\n\r\n{content}\r\n"
        ));
    }
    body.push_str("--XyZ--\r\n");
    body
}

async fn post(fake: &super::FakeBot, body: &str) -> (u16, serde_json::Value) {
    let path = format!("/bot{}/sendDocument", fake.token());
    raw_post(fake, &path, "multipart/form-data; boundary=XyZ", body).await
}

#[tokio::test]
async fn an_uploaded_document_arrives_with_its_bytes_and_name() {
    let (fake, bot) = setup().await;
    let sent = bot
        .send_document(ChatId(OWNER), InputFile::memory(PLAN).file_name("plan.md"))
        .caption("📄 *Plan* file\\.")
        .parse_mode(ParseMode::MarkdownV2)
        .await
        .unwrap();
    let doc = sent.document().unwrap();
    assert_eq!(doc.file_name.as_deref(), Some("plan.md"));
    assert_eq!(doc.file.size as usize, PLAN.len());
    assert_eq!(sent.caption(), Some("📄 Plan file."));
    let entities = sent.caption_entities().unwrap();
    assert_eq!(entities[0].kind, MessageEntityKind::Bold);

    let stored = fake.last_message(OWNER).unwrap();
    let file = stored.document.as_ref().unwrap();
    assert_eq!(file.bytes, PLAN);
    assert_eq!(file.file_name.as_deref(), Some("plan.md"));
    assert_eq!(
        stored.render(),
        format!("📎 plan.md ({} bytes)\n📄 Plan file.", PLAN.len())
    );
    // teloxide sends `document=attach://<part>` and the file as that part.
    let call = &fake.calls_of("sendDocument")[0];
    let part = call.params["document"].as_str().unwrap();
    let part = part.strip_prefix("attach://").unwrap();
    assert_eq!(call.params[part]["file_name"], "plan.md");
    assert_eq!(call.params[part]["size"], PLAN.len());

    // Its file id sends it again; a document has no text to edit.
    let again = bot
        .send_document(ChatId(OWNER), InputFile::file_id(doc.file.id.clone()))
        .await
        .unwrap();
    assert_eq!(again.document().unwrap().file.id, doc.file.id);
    let edit = bot
        .edit_message_text(ChatId(OWNER), sent.id, "text")
        .await
        .unwrap_err();
    assert!(
        edit.to_string().contains("no text in the message to edit"),
        "{edit}"
    );
}

#[tokio::test]
async fn documents_are_refused_like_telegram_does() {
    let (fake, bot) = setup().await;
    let plan = Some(("plan.md", "# Plan"));
    let chat = ("chat_id", "42");
    let cases = [
        (
            multipart(&[chat], None),
            "there is no document in the request",
        ),
        (multipart(&[], plan), "chat not found"),
        (
            multipart(&[chat], Some(("empty.md", ""))),
            "file must be non-empty",
        ),
        (
            multipart(&[chat, ("document", "doc999")], None),
            "wrong file identifier/HTTP URL specified",
        ),
        (
            multipart(&[chat, ("caption", &"x".repeat(1025))], plan),
            "message caption is too long",
        ),
        (
            multipart(
                &[chat, ("caption", "v1.2"), ("parse_mode", "MarkdownV2")],
                plan,
            ),
            "can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'",
        ),
    ];
    for (body, want) in cases {
        let (status, json) = post(&fake, &body).await;
        assert_eq!(status, 400, "{json}");
        assert_eq!(json["description"], format!("Bad Request: {want}"));
    }
    assert!(fake.messages(OWNER).is_empty());

    // A caption of exactly 1024 characters (after entity parsing) is fine.
    let caption = format!("*{}*", "é".repeat(1024));
    let (status, json) = post(
        &fake,
        &multipart(
            &[chat, ("caption", &caption), ("parse_mode", "MarkdownV2")],
            plan,
        ),
    )
    .await;
    assert_eq!(status, 200, "{json}");

    let err = bot
        .send_document(ChatId(OWNER), InputFile::memory("x").file_name("a.md"))
        .caption("*unclosed")
        .parse_mode(ParseMode::MarkdownV2)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, RequestError::Api(ApiError::CantParseEntities(_)))
            || err.to_string().contains("can't parse entities"),
        "{err}"
    );
}

#[tokio::test]
async fn a_photo_arrives_as_a_photo_with_its_size_and_anything_but_a_png_is_refused() {
    let (fake, bot) = setup().await;
    let days = [crate::stats::Day {
        date: chrono::NaiveDate::from_ymd_opt(2026, 2, 1).unwrap(),
        answered: 2,
        p50_seconds: Some(600),
    }];
    let png = crate::stats::chart::png(&days).unwrap();
    let sent = bot
        .send_photo(
            ChatId(OWNER),
            InputFile::memory(png.clone()).file_name("stats.png"),
        )
        .caption("📈 chart")
        .await
        .unwrap();
    let sizes = sent.photo().unwrap();
    assert_eq!(
        (sizes[0].width, sizes[0].height),
        crate::stats::chart::PNG_SIZE
    );
    assert_eq!(sent.caption(), Some("📈 chart"));
    let stored = fake.last_message(OWNER).unwrap();
    let file = stored.document.as_ref().unwrap();
    assert_eq!(file.bytes, png);
    assert_eq!(file.photo, Some(crate::stats::chart::PNG_SIZE));
    assert_eq!(
        stored.render(),
        format!("🖼 stats.png ({} bytes)\n📈 chart", png.len())
    );
    // A photo's file id sends it again as a photo; a document's does not.
    let again = bot
        .send_photo(ChatId(OWNER), InputFile::file_id(sizes[0].file.id.clone()))
        .await
        .unwrap();
    assert!(again.photo().is_some());
    let err = bot
        .send_photo(ChatId(OWNER), InputFile::memory(PLAN).file_name("plan.png"))
        .await
        .unwrap_err();
    // Telegram's own description, which teloxide knows by name.
    assert!(
        matches!(err, RequestError::Api(ApiError::ImageProcessFailed)),
        "{err:?}"
    );
}
