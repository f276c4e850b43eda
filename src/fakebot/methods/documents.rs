//! sendDocument and sendPhoto: a file uploaded in a multipart request (or sent again by its file id),
//! with an optional caption checked like a message text.

use serde_json::Value;

use super::{ApiFailure, Reply, chat_id, parse_entities, store_sent, str_param};
use crate::fakebot::state::{Document, Files, MAX_UPLOAD_BYTES, State};
use crate::telegram::markdown_check::telegram_length;

const MAX_CAPTION_UTF16: usize = 1024;

/// A document: an uploaded file (multipart, directly or `attach://`), or the file id of one sent
/// before. URLs are refused, since the fake cannot download them.
pub(super) fn send_document(state: &mut State, params: &Value, files: &Files) -> Reply {
    let chat_id = chat_id(params)?;
    let document = file(state, params, files, "document")?;
    send_with_caption(state, chat_id, params, document)
}

/// A photo: like a document, but only a PNG (the fake reads its size from the IHDR chunk, as Telegram
/// reads an image; anything else is refused as Telegram refuses a file that is no image).
pub(super) fn send_photo(state: &mut State, params: &Value, files: &Files) -> Reply {
    let chat_id = chat_id(params)?;
    let photo = file(state, params, files, "photo")?;
    send_with_caption(state, chat_id, params, photo)
}

/// Width and height of a PNG, from its signature and IHDR chunk.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let be = |at: usize| Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    let ok = bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.get(12..16) == Some(b"IHDR");
    let (w, h) = (be(16)?, be(20)?);
    (ok && w > 0 && h > 0).then_some((w, h))
}

/// The file of a sendDocument or sendPhoto: the `field` part, the part `attach://<name>` names (as
/// teloxide sends it), or a file id sent before. A `photo` is a PNG whose size is read (or refused).
fn file(
    state: &mut State,
    params: &Value,
    files: &Files,
    field: &str,
) -> Result<Document, ApiFailure> {
    let image = field == "photo";
    let named = str_param(params, field);
    let attached = named
        .as_deref()
        .and_then(|n| n.strip_prefix("attach://"))
        .map_or(files.get(field), |part| files.get(part));
    match (attached, named) {
        (Some(upload), _) => {
            if upload.bytes.is_empty() {
                return Err(ApiFailure::bad("file must be non-empty"));
            }
            if upload.bytes.len() > MAX_UPLOAD_BYTES {
                return Err(ApiFailure::new(413, "Request Entity Too Large"));
            }
            let photo = if image {
                let size = png_size(&upload.bytes);
                Some(size.ok_or_else(|| ApiFailure::bad("IMAGE_PROCESS_FAILED"))?)
            } else {
                None
            };
            state.next_file_id += 1;
            Ok(Document {
                file_id: format!("doc{}", state.next_file_id),
                file_name: upload.file_name.clone(),
                mime_type: upload.content_type.clone(),
                bytes: upload.bytes.clone(),
                photo,
            })
        }
        (None, Some(id)) if !id.is_empty() => state
            .chats
            .values()
            .flat_map(|c| &c.messages)
            .filter_map(|m| m.document.clone())
            .find(|d| d.file_id == id && d.photo.is_some() == image)
            .ok_or_else(|| ApiFailure::bad("wrong file identifier/HTTP URL specified")),
        _ => Err(ApiFailure::bad(&format!(
            "there is no {field} in the request"
        ))),
    }
}

/// Stores the message with its optional caption, checked like a message text.
fn send_with_caption(state: &mut State, chat_id: i64, params: &Value, file: Document) -> Reply {
    let caption = str_param(params, "caption").unwrap_or_default();
    let rendered = parse_entities(params, caption)?;
    // `rendered.2` is the caption as the user reads it (entities parsed).
    if telegram_length(&rendered.2) > MAX_CAPTION_UTF16 {
        return Err(ApiFailure::bad("message caption is too long"));
    }
    store_sent(state, chat_id, params, rendered, Some(file))
}
