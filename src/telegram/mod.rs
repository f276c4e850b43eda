//! Telegram front end: MarkdownV2 helpers, typed callback data and the views.

pub mod callback;
pub mod markdown;
pub mod markdown_check;
pub mod views;
