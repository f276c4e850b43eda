//! `arbiter history`: completed plans, searched through [`crate::queue::history`]'s index.

use chrono::Utc;
use serde::Serialize;

use super::CliError;
use super::table::aligned;
use crate::agent::AgentError;
use crate::plan::timing::parse_time;
use crate::queue::history::{self, Record};

/// What `--json` prints for each plan.
#[derive(Debug, Serialize)]
struct Item<'a> {
    id: &'a str,
    title: &'a str,
    agent: Option<&'a str>,
    tag: Option<&'a str>,
    created_at: Option<&'a str>,
    completed_at: Option<&'a str>,
    /// Set for a plan its agent withdrew unanswered.
    #[serde(skip_serializing_if = "Option::is_none")]
    withdrawn_at: Option<&'a str>,
    file: String,
    answers: serde_json::Map<String, serde_json::Value>,
}

pub fn run(
    queue: super::At<'_>,
    grep: Option<&str>,
    agent: Option<&str>,
    since: Option<&str>,
    json: bool,
) -> Result<(), CliError> {
    let since = since
        .map(|s| super::stats::parse_since(s, Utc::now()))
        .transpose()
        .map_err(AgentError::Invalid)?;
    let queue = super::open_queue(queue)?;
    let found = history::search(&queue, grep).map_err(|source| crate::queue::StoreError::Io {
        path: queue.completed_dir(),
        source,
    })?;
    let mut kept: Vec<&Record> = found
        .iter()
        .filter(|r| agent.is_none_or(|a| r.plan.agent.as_deref() == Some(a)))
        .filter(|r| {
            since.is_none_or(|s| {
                r.plan
                    .completed_at
                    .as_deref()
                    .and_then(parse_time)
                    .is_some_and(|t| t >= s)
            })
        })
        .collect();
    // Newest first.
    kept.sort_by(|a, b| {
        (b.plan.completed_at.cmp(&a.plan.completed_at)).then(a.plan.id.cmp(&b.plan.id))
    });
    if json {
        let dir = queue.completed_dir();
        let items: Vec<Item> = kept
            .iter()
            .map(|r| Item {
                id: &r.plan.id,
                title: &r.plan.title,
                agent: r.plan.agent.as_deref(),
                tag: r.plan.tag.as_deref(),
                created_at: r.plan.created_at.as_deref(),
                completed_at: r.plan.completed_at.as_deref(),
                withdrawn_at: r.plan.withdrawn_at.as_deref(),
                file: dir.join(&r.file).display().to_string(),
                answers: r
                    .answers()
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), serde_json::Value::String(v.to_owned())))
                    .collect(),
            })
            .collect();
        super::print_json(&items)?;
    } else {
        super::print_out(&table(&kept));
    }
    Ok(())
}

fn table(records: &[&Record]) -> String {
    if records.is_empty() {
        return "no completed plans match\n".to_owned();
    }
    let header = ["COMPLETED", "AGENT", "TITLE", "ANSWERS", "ID"].map(str::to_owned);
    let mut rows = vec![header];
    for r in records {
        let answers: Vec<String> = r
            .answers()
            .into_iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        let mut answers = answers.join(", ");
        if answers.chars().count() > 60 {
            answers = answers.chars().take(59).collect::<String>() + "…";
        }
        let title: String = r.plan.title.chars().take(50).collect();
        rows.push([
            match &r.plan.withdrawn_at {
                Some(at) => format!("withdrawn {at}"),
                None => r.plan.completed_at.clone().unwrap_or_default(),
            },
            r.plan.agent.clone().unwrap_or_default(),
            title,
            answers,
            r.plan.id.clone(),
        ]);
    }
    aligned(&rows)
}
