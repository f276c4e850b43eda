//! Wakes a consumer when queue folders may have changed: file-system events as hints, polling as the fallback.
//!
//! Events are never trusted for content (inotify's pitfalls: a write is Create → Modify → Close, renames come as
//! `Name(To)`, overflow only sets a flag, network filesystems send nothing). Every signal just means "rescan
//! soon"; the consumer rescans the folder itself.

use std::path::PathBuf;
use std::time::Duration;

use notify::{Event, EventKind, RecursiveMode, Watcher as _};
use tokio::sync::mpsc;

/// How the watcher notices changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// inotify (or the platform's equivalent) plus polling every interval.
    Events { poll: Duration },
    /// Polling only, every interval (no events): for filesystems that send none, and for benchmarks.
    Polling { poll: Duration },
}

/// Keeps the watch alive; dropping it stops the signals.
pub struct Watch {
    _watcher: Option<notify::RecommendedWatcher>,
    ticker: tokio::task::JoinHandle<()>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.ticker.abort();
    }
}

/// Starts watching `dirs`. The receiver gets a `()` whenever something may have changed; signals coalesce (the
/// channel holds one), so a burst of events is one rescan. Must be called inside a tokio runtime.
pub fn watch(dirs: &[PathBuf], mode: Mode) -> (Watch, mpsc::Receiver<()>) {
    let (tx, rx) = mpsc::channel(1);
    let poll = match mode {
        Mode::Events { poll } | Mode::Polling { poll } => poll.max(Duration::from_millis(10)),
    };
    let watcher = match mode {
        Mode::Events { .. } => start_events(dirs, tx.clone()),
        Mode::Polling { .. } => None,
    };
    let ticker = tokio::spawn(async move {
        let mut interval = tokio::time::interval(poll);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            interval.tick().await;
            if tx.is_closed() {
                break;
            }
            let _ = tx.try_send(());
        }
    });
    (
        Watch {
            _watcher: watcher,
            ticker,
        },
        rx,
    )
}

fn start_events(dirs: &[PathBuf], tx: mpsc::Sender<()>) -> Option<notify::RecommendedWatcher> {
    let handler = move |res: notify::Result<Event>| {
        // The callback only classifies and signals; the consumer does the work.
        if res.as_ref().map_or(true, is_relevant) {
            let _ = tx.try_send(());
        }
    };
    let mut watcher = match notify::recommended_watcher(handler) {
        Ok(w) => w,
        Err(e) => {
            tracing::warn!(error = %e, "file events unavailable; polling only");
            return None;
        }
    };
    for dir in dirs {
        if let Err(e) = watcher.watch(dir, RecursiveMode::NonRecursive) {
            tracing::warn!(dir = %dir.display(), error = %e, "can't watch folder; polling only for it");
        }
    }
    Some(watcher)
}

/// Events that can mean a plan appeared, changed or went away. Access events (reads) are not.
#[must_use]
pub fn is_relevant(event: &Event) -> bool {
    !matches!(
        event.kind,
        EventKind::Access(notify::event::AccessKind::Open(_) | notify::event::AccessKind::Read)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_not_changes() {
        use notify::event::{AccessKind, AccessMode, CreateKind, ModifyKind, RenameMode};
        assert!(!is_relevant(&Event::new(EventKind::Access(
            AccessKind::Open(AccessMode::Any)
        ))));
        assert!(is_relevant(&Event::new(EventKind::Access(
            AccessKind::Close(AccessMode::Write)
        ))));
        assert!(is_relevant(&Event::new(EventKind::Create(
            CreateKind::File
        ))));
        assert!(is_relevant(&Event::new(EventKind::Modify(
            ModifyKind::Name(RenameMode::To)
        ))));
    }

    #[tokio::test]
    async fn a_rename_into_the_folder_wakes_the_consumer() {
        let dir = tempfile::tempdir().unwrap();
        let (_watch, mut rx) = watch(
            &[dir.path().to_owned()],
            Mode::Events {
                poll: Duration::from_secs(3600),
            },
        );
        let _ = rx.recv().await; // the interval's first immediate tick
        std::fs::write(dir.path().join(".x"), "plan").unwrap();
        std::fs::rename(dir.path().join(".x"), dir.path().join("x.md")).unwrap();
        let woke = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await;
        assert!(matches!(woke, Ok(Some(()))));
    }

    #[tokio::test]
    async fn polling_ticks_without_events() {
        let dir = tempfile::tempdir().unwrap();
        let (_watch, mut rx) = watch(
            &[dir.path().to_owned()],
            Mode::Polling {
                poll: Duration::from_millis(20),
            },
        );
        for _ in 0..3 {
            assert!(
                tokio::time::timeout(Duration::from_secs(10), rx.recv())
                    .await
                    .is_ok()
            );
        }
    }
}
