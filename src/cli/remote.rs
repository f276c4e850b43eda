//! The agent commands against a daemon on another machine (`--server URL`, `ARBITER_SERVER`): each calls the
//! daemon's MCP tools and prints what the local command prints, with the same exit codes.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::CliError;
use crate::agent::AgentError;
use crate::agent::notifications::Notification;
use crate::agent::report::{AnswersReport, StatusReport};
use crate::mcp::server::MAX_AWAIT;
use crate::remote::{RemoteError, Server, Session};

/// The daemon the command line or the environment name, if any.
pub fn server(at: super::At<'_>) -> Result<Option<Server>, CliError> {
    Ok(Server::from(at.remote, &crate::remote::process_env)?)
}

/// Runs `work` with a session of the daemon, on a runtime of its own, and ends the session.
fn with_session<T>(
    server: &Server,
    work: impl AsyncFnOnce(&Session) -> Result<T, CliError>,
) -> Result<T, CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| AgentError::Io {
            path: "tokio runtime".into(),
            source,
        })?;
    runtime.block_on(async {
        let session = Session::open(server).await?;
        let done = work(&session).await;
        session.close().await;
        done
    })
}

fn read<T: serde::de::DeserializeOwned>(value: Value, what: &str) -> Result<T, CliError> {
    serde_json::from_value(value).map_err(|e| {
        CliError::Remote(RemoteError::Said(format!(
            "the daemon's {what} does not read: {e}"
        )))
    })
}

/// `push`: the plan's text as the daemon's `arbiter_push` takes it (a JSON spec as its keys, Markdown whole).
pub fn push(server: &Server, text: &str, json: bool, revise: Option<&str>) -> Result<(), CliError> {
    let mut args = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(spec)) if text.trim_start().starts_with('{') => spec,
        _ => serde_json::Map::from_iter([("markdown".to_owned(), Value::String(text.to_owned()))]),
    };
    if let Some(id) = revise {
        args.insert("revise".into(), Value::String(id.to_owned()));
    }
    let pushed = with_session(server, async |s| {
        Ok(s.call("arbiter_push", Value::Object(args), Duration::ZERO)
            .await?)
    })?;
    if json {
        super::print_json(&pushed)?;
    } else {
        println!(
            "{}",
            pushed.get("id").and_then(Value::as_str).unwrap_or_default()
        );
    }
    Ok(())
}

pub fn status(server: &Server, id: &str, json: bool) -> Result<(), CliError> {
    let value = with_session(server, async |s| {
        Ok(s.call("arbiter_status", json!({"id": id}), Duration::ZERO)
            .await?)
    })?;
    let report: StatusReport = read(value, "status")?;
    if json {
        super::print_json(&report)?;
    } else {
        print!("{}", report.text());
    }
    Ok(())
}

pub fn get(server: &Server, id: &str, json: bool) -> Result<(), CliError> {
    let value = with_session(server, async |s| {
        Ok(s.call("arbiter_get", json!({"id": id}), Duration::ZERO)
            .await?)
    })?;
    super::show::print_answers(&read(value, "answers")?, json)?;
    Ok(())
}

/// `await`: `arbiter_await` again and again (each at most ten minutes) until the plan is done or `timeout` passed.
pub fn wait(
    server: &Server,
    id: &str,
    timeout: Option<Duration>,
    json: bool,
) -> Result<(), CliError> {
    let start = Instant::now();
    let last = with_session(server, async |s| {
        loop {
            let left = timeout.map_or(MAX_AWAIT, |t| t.saturating_sub(start.elapsed()));
            let wait = left.min(MAX_AWAIT).max(Duration::from_secs(1));
            let value = s
                .call(
                    "arbiter_await",
                    json!({"id": id, "timeout_seconds": wait.as_secs()}),
                    wait,
                )
                .await?;
            let status = value
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let done = matches!(status, "completed" | "changes_requested" | "withdrawn");
            if done || timeout.is_some_and(|t| start.elapsed() >= t) {
                return Ok(value);
            }
        }
    })?;
    let status = last
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    match status.as_str() {
        "completed" | "changes_requested" | "withdrawn" => {
            let report: AnswersReport = read(last, "answers")?;
            super::show::print_answers(&report, json)?;
            let p = &report.plan;
            match status.as_str() {
                "changes_requested" => Err(CliError::ChangesRequested(format!(
                    "changes requested on plan `{id}`: {}",
                    p.feedback
                        .as_deref()
                        .unwrap_or("")
                        .replace(['\n', '\r'], " ")
                ))),
                "withdrawn" => Err(CliError::Withdrawn(super::withdraw::withdrawn_line(
                    &p.id,
                    p.withdrawn_by.as_deref(),
                    p.withdraw_reason.as_deref(),
                ))),
                _ => Ok(()),
            }
        }
        _ => {
            let p: StatusReport = read(last, "status")?;
            Err(CliError::TimedOut(format!(
                "timed out: plan `{id}` is not completed after {} ({}, {}/{} answered, {} remaining)",
                crate::plan::duration::say(
                    timeout.unwrap_or_default(),
                    crate::plan::duration::Style::Written,
                ),
                p.status,
                p.answered,
                p.total,
                p.remaining
            )))
        }
    }
}

pub fn withdraw(
    server: &Server,
    id: &str,
    reason: Option<&str>,
    json: bool,
) -> Result<(), CliError> {
    let value = with_session(server, async |s| {
        Ok(s.call(
            "arbiter_withdraw",
            json!({"id": id, "reason": reason}),
            Duration::ZERO,
        )
        .await?)
    })?;
    let report: StatusReport = read(value, "status")?;
    if json {
        super::print_json(&report)?;
    } else {
        println!(
            "{}",
            super::withdraw::withdrawn_line(
                &report.id,
                report.withdrawn_by.as_deref(),
                report.withdraw_reason.as_deref()
            )
        );
    }
    Ok(())
}

pub fn notifications(
    server: &Server,
    session: Option<&str>,
    ack: bool,
    json: bool,
) -> Result<(), CliError> {
    let value = with_session(server, async |s| {
        Ok(s.call(
            "arbiter_notifications",
            json!({"session": session, "ack": ack}),
            Duration::ZERO,
        )
        .await?)
    })?;
    let files: Vec<crate::mcp::server::NotifyFile> = read(
        value.get("notifications").cloned().unwrap_or_default(),
        "notifications",
    )?;
    let found: Vec<Notification> = files
        .into_iter()
        .map(|f| Notification {
            file: f.file,
            path: f.path,
            content: f.content,
        })
        .collect();
    super::notifications::print(&found, json)?;
    Ok(())
}

pub fn list(server: &Server, json: bool) -> Result<(), CliError> {
    let value = with_session(server, async |s| {
        Ok(s.call("arbiter_list", json!({}), Duration::ZERO).await?)
    })?;
    let plans: Vec<StatusReport> = read(value.get("plans").cloned().unwrap_or_default(), "plans")?;
    if json {
        super::print_json(&plans)?;
    } else {
        print!("{}", super::list::table(&plans, chrono::Utc::now()));
    }
    Ok(())
}
