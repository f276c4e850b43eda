//! Wakes a consumer when queue folders may have changed: file-system events as hints, polling as the fallback.
//!
//! Events are never trusted for content (inotify's pitfalls: a write is Create → Modify → Close, renames come as
//! `Name(To)`, overflow only sets a flag, network filesystems send nothing). A signal means "look again soon":
//! at the files an event named ([`Changed::Paths`]; the consumer re-reads those), or at everything (a poll tick,
//! an event without paths, an overflow: the consumer rescans the folder).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
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

/// What may have changed since the last signal was taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changed {
    /// Only these files (events named them).
    Paths(Vec<PathBuf>),
    /// Anything: look at the whole folder.
    Everything,
}

/// Changes gathered between two takes.
#[derive(Debug, Default)]
struct Gathered {
    paths: BTreeSet<PathBuf>,
    everything: bool,
    /// How many looks at the whole folder were asked so far (never reset): tells a listing made for one request
    /// from a later request.
    asked: u64,
}

impl Gathered {
    fn ask_everything(&mut self) {
        self.everything = true;
        self.asked += 1;
    }
}

impl Changed {
    /// True when there is nothing to look at.
    #[must_use]
    pub fn is_nothing(&self) -> bool {
        matches!(self, Changed::Paths(p) if p.is_empty())
    }
}

/// The consumer's end: wakes when something may have changed.
pub struct Signals {
    rx: mpsc::Receiver<()>,
    changes: Changes,
}

/// What the watcher gathered, for whoever looks next (cloneable: a command may look before the watcher's consumer).
#[derive(Debug, Clone)]
pub struct Changes(Arc<Mutex<Gathered>>);

impl Changes {
    /// Asks the next look to look at the whole folder.
    pub fn everything(&self) {
        crate::sync::lock(&self.0).ask_everything();
    }

    /// What was gathered since the last take, without waiting ([`Changed::is_nothing`]: nothing).
    #[must_use]
    pub fn take(&self) -> Changed {
        let mut g = crate::sync::lock(&self.0);
        let paths = std::mem::take(&mut g.paths);
        if std::mem::take(&mut g.everything) {
            Changed::Everything
        } else {
            Changed::Paths(paths.into_iter().collect())
        }
    }

    /// True when events named files no look has taken yet.
    #[must_use]
    pub fn named_waiting(&self) -> bool {
        !crate::sync::lock(&self.0).paths.is_empty()
    }

    /// The files events named since the last take, leaving a request for a look at the whole folder in place.
    #[must_use]
    pub fn take_paths(&self) -> Vec<PathBuf> {
        std::mem::take(&mut crate::sync::lock(&self.0).paths)
            .into_iter()
            .collect()
    }

    /// The request for a look at the whole folder waiting to be taken, if any: a consumer may list the folder for
    /// it before taking it ([`Changes::take_listed`]), outside its own locks.
    #[must_use]
    pub fn everything_asked(&self) -> Option<u64> {
        let g = crate::sync::lock(&self.0);
        g.everything.then_some(g.asked)
    }

    /// [`Changes::take`] for a consumer that listed the folder after the request `asked`
    /// ([`Changes::everything_asked`]): takes that request and returns the files events named meanwhile (the
    /// listing may have missed them). A look at the whole folder asked again after the listing began stays asked
    /// (the listing can't answer it).
    #[must_use]
    pub fn take_listed(&self, asked: u64) -> Vec<PathBuf> {
        let mut g = crate::sync::lock(&self.0);
        if g.asked == asked {
            g.everything = false;
        }
        std::mem::take(&mut g.paths).into_iter().collect()
    }
}

impl Signals {
    /// Waits until something may have changed; `false` when the watch is gone. Signals coalesce: what arrived
    /// meanwhile is all in [`Signals::changes`].
    pub async fn wait(&mut self) -> bool {
        self.rx.recv().await.is_some()
    }

    /// Waits for the next signal and takes what was gathered; `None` when the watch is gone.
    pub async fn next(&mut self) -> Option<Changed> {
        self.wait().await.then(|| self.changes.take())
    }

    #[must_use]
    pub fn changes(&self) -> &Changes {
        &self.changes
    }
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

/// Starts watching `dirs`. [`Signals::next`] wakes whenever something may have changed; signals coalesce (the
/// channel holds one), so a burst of events is one look. Must be called inside a tokio runtime.
pub fn watch(dirs: &[PathBuf], mode: Mode) -> (Watch, Signals) {
    let (tx, rx) = mpsc::channel(1);
    let gathered = Arc::new(Mutex::new(Gathered {
        everything: true,
        asked: 1,
        ..Gathered::default()
    }));
    let poll = match mode {
        Mode::Events { poll } | Mode::Polling { poll } => poll.max(Duration::from_millis(10)),
    };
    let watcher = match mode {
        Mode::Events { .. } => start_events(dirs, tx.clone(), Arc::clone(&gathered)),
        Mode::Polling { .. } => None,
    };
    let ticks = Arc::clone(&gathered);
    let ticker = tokio::spawn(async move {
        let mut interval = tokio::time::interval(poll);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            interval.tick().await;
            if tx.is_closed() {
                break;
            }
            crate::sync::lock(&ticks).ask_everything();
            let _ = tx.try_send(());
        }
    });
    (
        Watch {
            _watcher: watcher,
            ticker,
        },
        Signals {
            rx,
            changes: Changes(gathered),
        },
    )
}

fn start_events(
    dirs: &[PathBuf],
    tx: mpsc::Sender<()>,
    gathered: Arc<Mutex<Gathered>>,
) -> Option<notify::RecommendedWatcher> {
    let handler = move |res: notify::Result<Event>| {
        // The callback only classifies, notes the paths and signals; the consumer does the work.
        match &res {
            Ok(event) if !is_relevant(event) => return,
            // An event naming its files, and no overflow: only those files need a look.
            Ok(event) if !event.paths.is_empty() && !event.need_rescan() => {
                crate::sync::lock(&gathered)
                    .paths
                    .extend(event.paths.iter().cloned());
            }
            _ => crate::sync::lock(&gathered).ask_everything(),
        }
        let _ = tx.try_send(());
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
        // The interval's first immediate tick: look at everything.
        assert_eq!(rx.next().await, Some(Changed::Everything));
        std::fs::write(dir.path().join(".x"), "plan").unwrap();
        std::fs::rename(dir.path().join(".x"), dir.path().join("x.md")).unwrap();
        // The rename's event names the new file (other events may name the dotfile too).
        let target = dir.path().join("x.md");
        let named = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                match rx.next().await {
                    Some(Changed::Paths(paths)) if paths.contains(&target) => return true,
                    Some(_) => {}
                    None => return false,
                }
            }
        })
        .await;
        assert_eq!(named, Ok(true));
    }

    #[test]
    fn a_listing_answers_the_request_it_was_made_for_not_a_later_one() {
        let changes = Changes(Arc::default());
        assert_eq!(changes.everything_asked(), None);
        changes.everything();
        let asked = changes.everything_asked().unwrap();
        // Listed for that request; an event named a file meanwhile.
        crate::sync::lock(&changes.0)
            .paths
            .insert(PathBuf::from("a.md"));
        assert_eq!(changes.take_listed(asked), [PathBuf::from("a.md")]);
        assert!(changes.take().is_nothing());
        // Asked again while the listing was under way: the listing is too old for it, the request stays.
        changes.everything();
        let asked = changes.everything_asked().unwrap();
        changes.everything();
        assert_eq!(changes.take_listed(asked), Vec::<PathBuf>::new());
        assert_eq!(changes.everything_asked(), Some(asked + 1));
        assert_eq!(changes.take(), Changed::Everything);
        // The files named can be taken on their own, before the listing.
        changes.everything();
        crate::sync::lock(&changes.0)
            .paths
            .insert(PathBuf::from("b.md"));
        let asked = changes.everything_asked().unwrap();
        assert_eq!(changes.take_paths(), [PathBuf::from("b.md")]);
        assert_eq!(changes.everything_asked(), Some(asked));
        assert_eq!(changes.take_listed(asked), Vec::<PathBuf>::new());
        assert_eq!(changes.everything_asked(), None);
        // Taken by another look meanwhile: nothing more to do than the listing.
        changes.everything();
        let asked = changes.everything_asked().unwrap();
        assert_eq!(changes.take(), Changed::Everything);
        assert_eq!(changes.take_listed(asked), Vec::<PathBuf>::new());
        assert_eq!(changes.everything_asked(), None);
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
            let tick = tokio::time::timeout(Duration::from_secs(10), rx.next()).await;
            assert_eq!(tick, Ok(Some(Changed::Everything)));
        }
    }
}
