//! Arbiter Zebu: AI agents ask a human for decisions over Telegram; answers are written into the plan file.
//!
//! Three layers, dependencies pointing inward only:
//! - [`plan`]: the pure core (parse, diagnose, edit decision files). No I/O.
//! - [`queue`]: the files on disk (scan, atomic writes, completion, notify files, watcher).
//! - front ends: the Telegram daemon, the agent CLI and the MCP server.
//!
//! `serde_message` is a leaf every layer may use: serde's error messages without their position.

pub mod actions;
pub mod agent;
pub mod cli;
pub mod clock;
pub mod config;
pub mod daemon;
pub mod demo;
pub mod digest;
pub mod fakebot;
pub mod init;
pub mod mcp;
pub mod plan;
pub mod queue;
pub mod quiet;
mod serde_message;
pub mod stats;
pub mod sync;
pub mod telegram;
pub mod web;
