//! The daemon's own small JSON files in the queue folder (the group cards it posted, the messages it announced
//! plans with): read leniently — a file that is missing is empty, one that does not read is logged and started
//! afresh — and written atomically (a crash leaves the old file or the new one) off the async threads.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// What `path` holds; `None` when there is no file, or (logged, naming `what`) when it can't be read.
#[must_use]
pub fn read<T: DeserializeOwned>(path: &Path, what: &str) -> Option<T> {
    let read = match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice::<T>(&bytes).map_err(|e| e.to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => Err(e.to_string()),
    };
    read.map_err(|error| {
        tracing::warn!(file = %path.display(), %error, "can't read the {what} file; starting afresh");
    })
    .ok()
}

/// Replaces `path` with `value` as JSON; a failure is logged, naming `what`.
pub async fn write<T: Serialize + Send + 'static>(path: PathBuf, value: T, what: &str) {
    let written = tokio::task::spawn_blocking(move || {
        let bytes = serde_json::to_vec_pretty(&value).map_err(std::io::Error::other)?;
        crate::queue::atomic::write_atomic(&path, &bytes)
    })
    .await;
    match written {
        Ok(Ok(())) => {}
        Ok(Err(error)) => tracing::error!(%error, "can't write the {what} file"),
        Err(error) => tracing::error!(%error, "the {what} file's write failed"),
    }
}
