//! A long-lived task that must not die of one bad item: run again after a panic (logged), until it returns.

use std::future::Future;
use std::time::Duration;

/// Aborts the task it holds when dropped: a supervisor (or the daemon) that ends takes its tasks down with it.
pub struct AbortOnDrop(pub tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Runs `run()` as a task, and again after `pause` whenever it panics (logged as `what`); returns when a run
/// returns. Whatever a run must keep across a panic (a channel's receiver) is shared through what `run` captures.
pub async fn restarting<F, Fut>(what: &'static str, pause: Duration, run: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    loop {
        let mut task = AbortOnDrop(tokio::spawn(run()));
        match (&mut task.0).await {
            Err(e) if e.is_panic() => {
                tracing::error!(task = what, error = %e, "a daemon task panicked; starting it again");
                tokio::time::sleep(pause).await;
            }
            Ok(()) | Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn a_task_that_panics_runs_again_and_one_that_returns_is_done() {
        let runs = Arc::new(AtomicUsize::new(0));
        let counted = runs.clone();
        restarting("test", Duration::from_millis(1), move || {
            let n = counted.fetch_add(1, Ordering::SeqCst);
            async move {
                assert!(n >= 2, "run {n} panics");
            }
        })
        .await;
        assert_eq!(runs.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn an_aborted_supervisor_takes_its_task_down() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<()>();
        let supervisor = tokio::spawn(restarting("test", Duration::from_millis(1), move || {
            let tx = tx.clone();
            async move {
                let _alive = tx;
                std::future::pending::<()>().await;
            }
        }));
        tokio::time::sleep(Duration::from_millis(50)).await;
        supervisor.abort();
        // Every sender is gone once the task is dropped: the channel closes.
        let closed = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await;
        assert_eq!(closed, Ok(None));
    }
}
