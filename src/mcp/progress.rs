//! `notifications/progress` while `arbiter_await` waits, for a client that asked for them (a `progressToken` in
//! the call's `_meta`): the client can show that the human has not answered yet, and clients that restart their
//! request timeout on progress (the TypeScript SDK's `resetTimeoutOnProgress`) keep a long wait alive.

use std::convert::Infallible;
use std::time::Duration;

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use tokio::time::Instant;

use crate::agent::report::StatusReport;
use crate::queue::Queue;

/// How often a waiting `arbiter_await` reports (the first report comes at once).
pub const EVERY: Duration = Duration::from_secs(15);

/// One wait's reports: where they go and what they are about.
pub struct Reporter {
    pub peer: Peer<RoleServer>,
    pub token: ProgressToken,
    pub queue: Queue,
    pub plan_id: String,
    /// The wait's length: the `total` of every report, whose `progress` is the seconds waited so far (it must
    /// grow with each notification).
    pub timeout: Duration,
}

impl Reporter {
    /// Reports at once and then every [`EVERY`] until the future is dropped (when the wait ends). If the client
    /// is gone, it stops reporting and waits to be dropped.
    pub async fn run(self) -> Infallible {
        let started = Instant::now();
        loop {
            let queue = self.queue.clone();
            let id = self.plan_id.clone();
            let status = tokio::task::spawn_blocking(move || queue.find(&id).ok())
                .await
                .ok()
                .flatten()
                .map(|loaded| StatusReport::of(&loaded));
            let param = ProgressNotificationParam::new(
                self.token.clone(),
                started.elapsed().as_secs_f64().floor(),
            )
            .with_total(self.timeout.as_secs_f64())
            .with_message(message(status.as_ref()));
            if let Err(e) = self.peer.notify_progress(param).await {
                tracing::debug!(plan = %self.plan_id, error = %e, "progress not sent; no more reports for this wait");
                return std::future::pending().await;
            }
            tokio::time::sleep(EVERY).await;
        }
    }
}

/// What a report says: how far the human has got.
fn message(status: Option<&StatusReport>) -> String {
    match status {
        Some(s) => format!(
            "waiting for the human: {} of {} decisions answered, not submitted yet",
            s.answered + s.skipped,
            s.total
        ),
        None => "waiting for the human".to_owned(),
    }
}
