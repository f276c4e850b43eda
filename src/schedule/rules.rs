//! The clock's look at `<queue>/rules.json`, once per tick and only when the file changed: a file that does not
//! read, rules in it without their audit line, or active in it but paused or revoked on the record, are said to
//! every member once per version of the file; a rule that paused itself is told to its maker once (`told`, the
//! daemon's bookkeeping in the file).

use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;

use tokio::sync::mpsc;

use crate::actions::rules::results;
use crate::bot::Ctx;
use crate::bot::notice::Notice;
use crate::queue::rules::{self, State};

/// What the last look saw.
#[derive(Debug, Default)]
pub struct Watch {
    /// The file's (inode, size, modification time in ns) at the last look; `None`: no file.
    version: Option<(u64, u64, i128)>,
    /// The rules without their line already warned of.
    off_record: BTreeSet<String>,
    /// The rules active in the file but not on the record already warned of (`id (state)`).
    revived: BTreeSet<String>,
}

/// Looks at the rules if their file changed since `watch`'s last look, and queues what the members must hear.
/// Blocking (small reads), like the digest's check on the same tick.
pub fn check(ctx: &Ctx, watch: &mut Watch, notices: &mpsc::UnboundedSender<Notice>) {
    let root = ctx.queue().root();
    let path = rules::path(root);
    let version = std::fs::metadata(&path).ok().map(|m| {
        let ns = i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec());
        (m.ino(), m.size(), ns)
    });
    if version == watch.version {
        return;
    }
    watch.version = version;
    if version.is_none() {
        return;
    }
    let all = match rules::read(root) {
        Ok(all) => all,
        Err(e) => {
            tracing::warn!(error = %e, "rules.json does not read: no rule answers anything");
            let _ = notices.send(Notice::RulesWarning(e.to_string()));
            return;
        }
    };
    let off: BTreeSet<String> = all
        .rules
        .iter()
        .filter(|r| matches!(r.state, State::Active | State::Paused) && !r.is_on_record(root))
        .map(|r| r.id.clone())
        .collect();
    if !off.is_empty() && off != watch.off_record {
        let ids: Vec<&str> = off.iter().map(String::as_str).collect();
        tracing::warn!(rules = ?ids, "standing rules without their audit line are ignored");
        let _ = notices.send(Notice::RulesWarning(format!(
            "{} in {} {} no line in the audit trail (written behind Arbiter's back?): {} nothing.",
            if ids.len() == 1 { "Rule" } else { "Rules" },
            path.display(),
            if ids.len() == 1 {
                format!("{} has", ids[0])
            } else {
                format!("{} have", ids.join(", "))
            },
            if ids.len() == 1 {
                "it answers"
            } else {
                "they answer"
            },
        )));
    }
    watch.off_record = off;
    // Rules active in the file but paused or revoked on the record (set back by hand): one read of the trail.
    let active: Vec<&rules::Rule> = all
        .rules
        .iter()
        .filter(|r| r.state == State::Active && !watch.off_record.contains(&r.id))
        .collect();
    let revived: BTreeSet<String> = match rules::states_on_record(root, &active) {
        Ok(states) => states
            .into_iter()
            .filter(|(_, state)| *state != State::Active)
            .map(|(id, state)| format!("{id} ({})", state.as_str()))
            .collect(),
        Err(error) => {
            tracing::warn!(%error, "can't read the audit trail for the standing rules' states");
            BTreeSet::new()
        }
    };
    if !revived.is_empty() && revived != watch.revived {
        let ids: Vec<&str> = revived.iter().map(String::as_str).collect();
        tracing::warn!(rules = ?ids, "standing rules set active behind Arbiter's back are ignored");
        let _ = notices.send(Notice::RulesWarning(format!(
            "{} {} {} active in {} but paused or revoked in the audit trail (changed behind Arbiter's back?): {} nothing.",
            if ids.len() == 1 { "Rule" } else { "Rules" },
            ids.join(", "),
            if ids.len() == 1 { "is" } else { "are" },
            path.display(),
            if ids.len() == 1 {
                "it answers"
            } else {
                "they answer"
            },
        )));
    }
    watch.revived = revived;
    let untold: Vec<_> = all
        .rules
        .into_iter()
        .filter(|r| {
            r.state == State::Paused
                && r.change
                    .as_ref()
                    .is_some_and(|c| !c.told && c.by.starts_with("rule:"))
        })
        .collect();
    if untold.is_empty() {
        return;
    }
    let ids: Vec<String> = untold.iter().map(|r| r.id.clone()).collect();
    for rule in untold {
        let _ = notices.send(Notice::RulePaused(Box::new(rule)));
    }
    if let Err(error) = results::told(ctx.queue(), &ids, &crate::clock::now()) {
        tracing::warn!(%error, "can't note that the owner was told of a paused rule");
    }
}
