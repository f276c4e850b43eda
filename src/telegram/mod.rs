//! Telegram front end: MarkdownV2 helpers, a strict MarkdownV2 validator and typed callback data.

pub mod callback;
pub mod entity;
pub mod markdown;
pub mod markdown_check;
pub mod views;
