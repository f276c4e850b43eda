//! Arbiter Zebu: AI agents ask a human for decisions over Telegram; answers are written into the plan file.
//!
//! ARCHITECTURE.md (at the repository's root) is the map: what each module owns, what it may import, and the
//! invariants that hold everywhere (pure layers do no I/O, only actions change plans, every write is atomic,
//! permissions are decided once by user id) with the tests that check them. In short, dependencies point down:
//! - [`plan`]: the pure core (parse, diagnose, edit decision files). No I/O.
//! - [`queue`]: the files on disk (scan, atomic writes, completion, notify files, watcher).
//! - [`actions`]: what an owner action means and who may take it; the only way a front end changes a plan.
//! - [`telegram`]: pure Telegram pieces (views, navigation, callback data, MarkdownV2).
//! - adapters: the bot (`bot`), the schedule (`schedule`), the dashboard ([`web`]), the agent commands
//!   ([`agent`], [`cli`]) and the MCP server ([`mcp`]); [`daemon`] wires them together for `arbiter run`.
//!
//! `serde_message`, `sync` and `clock` are leaves every layer may use.

pub mod actions;
pub mod agent;
pub(crate) mod bot;
pub mod cli;
pub(crate) mod clock;
pub mod config;
pub mod daemon;
pub(crate) mod demo;
pub mod digest;
pub mod fakebot;
pub(crate) mod init;
pub mod mcp;
pub mod plan;
pub mod queue;
pub mod quiet;
pub mod remote;
pub(crate) mod schedule;
mod serde_message;
pub mod stats;
pub(crate) mod sync;
pub mod telegram;
pub mod web;
