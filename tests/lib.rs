//! Integration tests, compiled as one binary: each module drives a part of the product through its public
//! surface (the queue folder, the real `arbiter` binary, the daemon against a fake Bot API).
#![allow(clippy::unwrap_used)]

mod support;

mod architecture;
mod claude_code;
mod cli;
mod cli_audit;
mod cli_await;
mod cli_config;
mod cli_history;
mod cli_hook;
mod cli_hook_agents;
mod cli_hook_prompts;
mod cli_init;
mod cli_kinds;
mod cli_notifications;
mod cli_pair;
mod cli_rules;
mod cli_stats;
mod cli_support;
mod coding_agents;
mod coding_agents_next;
mod coding_agents_rules;
mod crash;
mod daemon;
mod daemon_audit;
mod daemon_concurrency;
mod daemon_dashboard;
mod daemon_deadlines;
mod daemon_documents;
mod daemon_edges;
mod daemon_faults;
mod daemon_groups;
mod daemon_kinds;
mod daemon_people;
mod daemon_revise;
mod daemon_rules;
mod daemon_stats;
mod daemon_withdraw;
mod examples;
mod frameworks;
mod mcp;
mod mcp_conformance;
mod mcp_http;
mod mcp_python;
mod pyyaml;
mod store;
mod web_browser;
mod web_login;
mod web_pages;
mod web_rebinding;
mod web_revise;
mod web_rules;
mod web_security;
mod web_wiring;
