//! Telegram front end: MarkdownV2 helpers, a strict MarkdownV2 validator, typed callback data and the views.

pub mod callback;
pub mod entity;
pub mod markdown;
pub mod markdown_check;
pub mod views;
