//! Telegram front end: MarkdownV2 helpers, a strict MarkdownV2 validator, agents' Markdown rendered as
//! MarkdownV2, typed callback data, the commands, what the bot says of an action's outcome (`reply`), the views and the navigation between them, and the check of a Mini App's sign-in data.

pub mod callback;
pub mod commands;
pub mod entity;
pub mod markdown;
pub mod markdown_check;
pub mod render;
pub mod reply;
pub mod views;
pub mod webapp;
