//! Telegram front end: MarkdownV2 helpers and typed callback data.

pub mod callback;
pub mod markdown;
pub mod markdown_check;
