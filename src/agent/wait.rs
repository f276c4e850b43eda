//! `arbiter await` / `arbiter_await`: block until a plan is completed (or sent back for changes), woken by file events with polling as
//! the fallback.

use std::time::Duration;

use tokio::time::Instant;

use crate::plan::PlanStatus;
use crate::queue::watcher::{self, Mode};
use crate::queue::{Loaded, Location, Queue, StoreError};

use super::AgentError;

/// How often the queue is rescanned when no file event comes (network filesystems send none).
pub const POLL: Duration = Duration::from_millis(500);

/// How long a plan may be missing from both folders before it counts as gone (a rename in flight, a writer
/// that is not atomic).
const GRACE: Duration = Duration::from_millis(300);

/// How a wait ended.
#[derive(Debug, Clone)]
pub enum WaitOutcome {
    /// The plan is completed; its final state.
    Completed(Loaded),
    /// The owner sent the plan back with feedback (`status: changes_requested`): the agent revises it.
    ChangesRequested(Loaded),
    /// The timeout came first; the plan as last seen.
    TimedOut(Loaded),
    /// Its agent took the plan back unanswered (`arbiter withdraw`): in completed/ with `status: withdrawn`.
    Withdrawn(Loaded),
}

/// Waits until plan `id` is completed, at most `timeout` (`None`: forever). An unknown id fails at once; a plan
/// that disappears from both folders while waiting fails with [`AgentError::Vanished`]. Needs a tokio runtime.
pub async fn wait_for_completion(
    queue: &Queue,
    id: &str,
    timeout: Option<Duration>,
) -> Result<WaitOutcome, AgentError> {
    let deadline = timeout.map(|t| Instant::now() + t);
    // Watch first, then look: a completion between the two still wakes us.
    let dirs = [
        queue.pending_dir(),
        queue.completed_dir(),
        queue.returned_dir(),
    ];
    let (_watch, mut wake) = watcher::watch(&dirs, Mode::Events { poll: POLL });
    let mut last = find(queue, id).await?;
    loop {
        if last.plan.status == PlanStatus::Withdrawn {
            return Ok(WaitOutcome::Withdrawn(last));
        }
        if last.location == Location::Completed {
            return Ok(WaitOutcome::Completed(last));
        }
        if last.location == Location::Returned || last.plan.status == PlanStatus::ChangesRequested {
            return Ok(WaitOutcome::ChangesRequested(last));
        }
        if last.plan.status == PlanStatus::Completed {
            return Ok(WaitOutcome::Completed(settle(queue, id, last).await));
        }
        let signal = async {
            if wake.next().await.is_none() {
                tokio::time::sleep(POLL).await;
            }
        };
        match deadline {
            Some(deadline) => {
                if tokio::time::timeout_at(deadline, signal).await.is_err() {
                    return Ok(WaitOutcome::TimedOut(last));
                }
            }
            None => signal.await,
        }
        last = match find_again(queue, id).await? {
            Some(found) => found,
            None => return Err(AgentError::Vanished(id.to_owned())),
        };
    }
}

/// A submit writes `status: completed`, then the notify file, then moves the plan into completed/. The answers
/// are final at the first step; the move usually follows within milliseconds, and waiting for it (briefly: a
/// daemon that crashed mid-submit finishes only at its next start) makes the reported path the lasting one.
async fn settle(queue: &Queue, id: &str, mut last: Loaded) -> Loaded {
    for _ in 0..10 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if let Ok(found) = find(queue, id).await {
            last = found;
            if last.location == Location::Completed {
                break;
            }
        }
    }
    last
}

/// [`Queue::find`] off the async threads (it reads files).
async fn find(queue: &Queue, id: &str) -> Result<Loaded, StoreError> {
    let (root, queue, id) = (queue.root().to_owned(), queue.clone(), id.to_owned());
    tokio::task::spawn_blocking(move || queue.find(&id))
        .await
        .unwrap_or_else(|e| {
            Err(StoreError::Io {
                path: root,
                source: std::io::Error::other(e.to_string()),
            })
        })
}

async fn find_again(queue: &Queue, id: &str) -> Result<Option<Loaded>, AgentError> {
    match find(queue, id).await {
        Ok(found) => return Ok(Some(found)),
        Err(StoreError::NotFound(_)) => {}
        Err(e) => return Err(e.into()),
    }
    tokio::time::sleep(GRACE).await;
    match find(queue, id).await {
        Ok(found) => Ok(Some(found)),
        Err(StoreError::NotFound(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}
