//! The start-up's recovery of the audit trail: a change whose file was written but whose line was not (the
//! daemon, or an agent's command, killed between the two writes) gets its line now, named `recovered`, before
//! anything else can touch the plan. So an answer the file holds always has its line, whatever instant a crash
//! hit, and a tap repeated after the restart (a change of nothing) finds it there.
//!
//! Every line holds the digest of the plan file as its change left it. A plan file whose bytes no line of the
//! recent trail holds may carry a change nobody recorded: the recovery reads it and records what the trail lacks
//! (each answered or skipped decision without its line, a status the plan ended in without its line). A plan an
//! agent dropped into pending/ itself has no line either, and holds nothing to record. Only files written since shortly before the trail's last line are looked at: a
//! change that lost its line was made in the moments before a crash, after every line but the in-flight ones.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::plan::{DecisionStatus, Plan, PlanStatus};
use crate::queue::Queue;
use crate::queue::audit::{self, Change, Entry};

/// The month files read: the trail's last line and everything a month before it.
const MONTHS: usize = 2;
/// Files written this long before the trail's last line are looked at too (changes in flight together).
const MARGIN: Duration = Duration::from_secs(3600);
/// What a recovered line is called.
pub const RECOVERED: &str = "recovered";

/// What the recent trail says of each plan.
#[derive(Default)]
struct Recorded {
    /// Digests of the plan files the lines were written for.
    files: HashSet<String>,
    /// (revision, decision, value) of the lines that set a decision (answers, skips, the deadline's).
    decisions: HashSet<(u32, String, Option<String>)>,
    /// The revisions that have a line ending the plan (submit, decline, deadline, withdraw, request for changes).
    ended: HashSet<u32>,
}

/// Records, as `recovered` lines stamped `now`, every change the plan files in pending/, completed/ and returned/
/// hold without a line in the trail. Returns the lines written. Blocking; run at start-up, before any action.
pub fn recover_unrecorded(queue: &Queue, now: &str) -> io::Result<Vec<Entry>> {
    let entries = audit::recent(queue.root(), MONTHS)?;
    // A queue with no trail yet (new, or older than the trail) has nothing to compare with.
    let Some(last) = entries.last() else {
        return Ok(Vec::new());
    };
    let since = chrono::DateTime::parse_from_rfc3339(&last.at)
        .map(|t| SystemTime::from(t) - MARGIN)
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let mut recorded: HashMap<String, Recorded> = HashMap::new();
    for e in &entries {
        let r = recorded.entry(e.plan.clone()).or_default();
        r.files.insert(e.file_sha256.clone());
        if let Some(d) = &e.decision {
            r.decisions.insert((e.revision, d.clone(), e.value.clone()));
        }
        if matches!(
            e.action.as_str(),
            "submit" | "decline" | "deadline" | "withdraw" | "request_changes"
        ) {
            r.ended.insert(e.revision);
        }
        // A recovered line that names no decision stands for the whole file it was written for.
    }
    let mut written = Vec::new();
    for dir in [
        queue.pending_dir(),
        queue.completed_dir(),
        queue.returned_dir(),
    ] {
        for path in written_since(&dir, since)? {
            let Ok(bytes) = fs::read(&path) else { continue };
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            // A file that does not read as a plan is the daemon's to report, not the trail's.
            let Ok(plan) = crate::plan::parse_bytes(&bytes, &stem) else {
                continue;
            };
            let known = recorded.get(&plan.id);
            if known.is_some_and(|r| r.files.contains(&audit::sha256_hex(&bytes))) {
                continue;
            }
            for change in unrecorded(&plan, known, since) {
                let line = audit::append(
                    queue.root(),
                    &Change {
                        at: now,
                        actor: &change.actor,
                        action: RECOVERED,
                        plan: &plan.id,
                        revision: plan.revision,
                        decision: change.decision.as_deref(),
                        value: change.value.as_deref(),
                        seen: None,
                        file: &bytes,
                    },
                )?;
                tracing::warn!(plan = %plan.id, decision = ?change.decision, "recorded a change a crash left without its audit line");
                written.push(line);
            }
        }
    }
    Ok(written)
}

/// One line to recover.
#[derive(Debug, PartialEq, Eq)]
struct Unrecorded {
    actor: String,
    decision: Option<String>,
    value: Option<String>,
}

/// What `plan` holds that the trail (`known`) lacks: the answers and skips, and the status it ended in, that an
/// action records. Nothing for a plan an agent dropped into pending/ itself (it has no line until someone acts
/// on it, and that is no loss).
fn unrecorded(plan: &Plan, known: Option<&Recorded>, since: SystemTime) -> Vec<Unrecorded> {
    let has = |decision: &str, value: &Option<String>| {
        known.is_some_and(|r| {
            r.decisions
                .contains(&(plan.revision, decision.to_owned(), value.clone()))
        })
    };
    let recent = |at: &Option<String>| {
        at.as_deref()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .is_none_or(|t| SystemTime::from(t) >= since)
    };
    let mut out = Vec::new();
    for d in &plan.decisions {
        let value = match d.status {
            DecisionStatus::Answered => d.answer.clone(),
            DecisionStatus::Skipped => None,
            DecisionStatus::Pending => continue,
        };
        // (A skip's line has no value, as here.)
        if !recent(&d.answered_at) || has(&d.id, &value) {
            continue;
        }
        out.push(Unrecorded {
            actor: d
                .answered_by
                .clone()
                .unwrap_or_else(|| "unknown".to_owned()),
            decision: Some(d.id.clone()),
            value,
        });
    }
    let ended = known.is_some_and(|r| r.ended.contains(&plan.revision));
    let status = plan.status;
    if matches!(
        status,
        PlanStatus::Completed | PlanStatus::Withdrawn | PlanStatus::ChangesRequested
    ) && !ended
    {
        let actor = match status {
            PlanStatus::Withdrawn => plan.withdrawal.as_ref().and_then(|w| w.by.clone()),
            PlanStatus::ChangesRequested => plan.feedback.as_ref().and_then(|f| f.by.clone()),
            _ => None,
        };
        out.push(Unrecorded {
            actor: actor.unwrap_or_else(|| "unknown".to_owned()),
            decision: None,
            value: Some(status.as_str().to_owned()),
        });
    }
    out
}

/// The plan files (`*.md`, no dotfiles) directly in `dir` last written at or after `since`.
fn written_since(dir: &Path, since: SystemTime) -> io::Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        if !name.to_str().is_some_and(crate::queue::is_plan_name) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_file() && meta.modified().is_ok_and(|m| m >= since) {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}
