//! Telegram's checks on the chat of a call: a group the bot is still in, and a forum topic that exists.

use serde_json::Value;

use super::{ApiFailure, int_param};
use crate::fakebot::state::{KICKED, State};

/// The bot may act in `chat_id`: a private chat, or a group it is still in. An unknown negative id is no chat.
pub(crate) fn check_member(state: &State, chat_id: i64) -> Result<(), ApiFailure> {
    match state.groups.get(&chat_id) {
        Some(group) if group.kicked => Err(ApiFailure::new(403, KICKED)),
        Some(_) => Ok(()),
        None if chat_id < 0 => Err(ApiFailure::bad("chat not found")),
        None => Ok(()),
    }
}

/// Checks a send like Telegram: the bot is in the chat, and `message_thread_id` names a topic of a forum
/// supergroup (the General topic, 1, is reached without it). Returns the topic.
pub(crate) fn check_send(
    state: &State,
    chat_id: i64,
    params: &Value,
) -> Result<Option<i32>, ApiFailure> {
    check_member(state, chat_id)?;
    let Some(thread) = int_param(params, "message_thread_id") else {
        return Ok(None);
    };
    let topic = state
        .groups
        .get(&chat_id)
        .filter(|g| g.forum)
        .and_then(|g| {
            let id = i32::try_from(thread).ok()?;
            g.topics.contains_key(&id).then_some(id)
        });
    topic
        .map(Some)
        .ok_or_else(|| ApiFailure::bad("message thread not found"))
}
