//! Which version of a file was read: what a rescan compares to know whether a file changed.

use std::fs;
use std::time::{Duration, SystemTime};

/// What identifies one version of a file: inode, size, modification and change times (ns).
pub(super) type Version = (u64, u64, i64, i64, i64, i64);

/// The modification time a version records (what `Metadata::modified` gives for it).
pub(super) fn modified_of(version: &Version) -> Option<SystemTime> {
    let (secs, nanos) = (version.2, u32::try_from(version.3).ok()?);
    if secs >= 0 {
        SystemTime::UNIX_EPOCH.checked_add(Duration::new(secs.unsigned_abs(), nanos))
    } else {
        SystemTime::UNIX_EPOCH
            .checked_sub(Duration::from_secs(secs.unsigned_abs()))?
            .checked_add(Duration::from_nanos(u64::from(nanos)))
    }
}

pub(super) fn version_of(meta: &fs::Metadata) -> Version {
    use std::os::unix::fs::MetadataExt;
    (
        meta.ino(),
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
    )
}
