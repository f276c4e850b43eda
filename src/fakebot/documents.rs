//! sendDocument: a file uploaded in a multipart request (or sent again by its file id), with an
//! optional caption checked like a message text.

use serde_json::Value;

use super::methods::{ApiFailure, Reply, chat_id, parse_entities, store_sent, str_param};
use super::server::Files;
use super::state::{Document, State};
use crate::telegram::markdown_check::telegram_length;

const MAX_CAPTION_UTF16: usize = 1024;
/// Telegram's limit on a file a bot uploads.
pub(crate) const MAX_UPLOAD_BYTES: usize = 50 * 1024 * 1024;

/// A document: an uploaded file (multipart, directly or `attach://`), or the file id of one sent
/// before. URLs are refused, since the fake cannot download them.
pub(super) fn send_document(state: &mut State, params: &Value, files: &Files) -> Reply {
    let chat_id = chat_id(params)?;
    // The file is the `document` part, or the part `attach://<name>` names (as teloxide sends it).
    let named = str_param(params, "document");
    let attached = named
        .as_deref()
        .and_then(|n| n.strip_prefix("attach://"))
        .map_or(files.get("document"), |part| files.get(part));
    let document = match (attached, named) {
        (Some(upload), _) => {
            if upload.bytes.is_empty() {
                return Err(ApiFailure::bad("file must be non-empty"));
            }
            if upload.bytes.len() > MAX_UPLOAD_BYTES {
                return Err(ApiFailure::new(413, "Request Entity Too Large"));
            }
            state.next_file_id += 1;
            Document {
                file_id: format!("doc{}", state.next_file_id),
                file_name: upload.file_name.clone(),
                mime_type: upload.content_type.clone(),
                bytes: upload.bytes.clone(),
            }
        }
        (None, Some(id)) if !id.is_empty() => state
            .chats
            .values()
            .flat_map(|c| &c.messages)
            .filter_map(|m| m.document.clone())
            .find(|d| d.file_id == id)
            .ok_or_else(|| ApiFailure::bad("wrong file identifier/HTTP URL specified"))?,
        _ => return Err(ApiFailure::bad("there is no document in the request")),
    };
    let caption = str_param(params, "caption").unwrap_or_default();
    let rendered = parse_entities(params, caption)?;
    // `rendered.2` is the caption as the user reads it (entities parsed).
    if telegram_length(&rendered.2) > MAX_CAPTION_UTF16 {
        return Err(ApiFailure::bad("message caption is too long"));
    }
    store_sent(state, chat_id, params, rendered, Some(document))
}
