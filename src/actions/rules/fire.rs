//! A rule answers a prompt, in the asking process itself (the hook, `arbiter push`), with no daemon: the plan is
//! written straight into completed/ answered `answered_by: rule:<id>`, its notify file beside it (for a push: a
//! hook reads its answer itself, as after any answer, so none is left for it), its audit line (actor `rule:<id>`)
//! after them, then the rule's `fired` and `last_fired` move. Nobody is asked.
//!
//! Cheap by design (a hook answers within 20 ms): `rules.json` is read once, only the matching rule's line of
//! the trail is read back, nothing is listed, and four fsyncs make it durable (the plan file and its folder, the
//! audit line, the count's file).

use std::path::PathBuf;

use crate::plan::{self, AnswerValue, DecisionStatus, Edit, Kind, Plan};
use crate::queue::audit::{self, Change};
use crate::queue::rules::{self, Ask, Awaiting, Locked, Rule, Rules, Shape, State};
use crate::queue::{Loaded, Location, Queue, stem};

/// The plan a rule answers, as the asking side made it: its file name in completed/ and its Markdown (id, agent
/// and timestamps filled, as a push would write it into pending/).
#[derive(Debug, Clone)]
pub struct Ruled {
    pub name: String,
    pub text: String,
    /// The asking process reads the answer itself (a hook, which deletes its notify file after any answer): no
    /// notify file is written for it.
    pub read_here: bool,
}

/// A prompt a rule answered.
#[derive(Debug)]
pub struct Fired {
    /// The rule, as it was when it answered.
    pub rule: Rule,
    /// The plan, completed.
    pub plan: Loaded,
    pub notify: Option<PathBuf>,
}

/// What the rules said of a prompt: the answer, if one answered, and what the asking side should report (on
/// stderr: a file that does not read, a rule without its audit line).
#[derive(Debug, Default)]
pub struct Looked {
    pub fired: Option<Fired>,
    pub warnings: Vec<String>,
}

/// Answers the permission prompt `ask` by the first rule that answers it and is on record, making the plan with
/// `make` (called only then). Nothing is written when no rule answers.
pub fn answer_permission(
    queue: &Queue,
    ask: &Ask,
    make: impl FnOnce() -> Ruled,
    now: &str,
) -> Looked {
    let root = queue.root();
    let all = match read(root) {
        Ok(all) => all,
        Err(looked) => return *looked,
    };
    let mut looked = Looked::default();
    let Some(rule) = on_record(all.answering(ask, now), root, &mut looked) else {
        return looked;
    };
    let awaiting = Awaiting {
        session: ask.session.map(str::to_owned),
        tool: ask.tool.to_owned(),
        what: rules::digest(ask.command),
    };
    finish(queue, rule, make(), Some(awaiting), now, looked)
}

/// Answers the pushed plan `plan` (written as `ruled`) by the first rule that answers its shape, is on record and
/// whose maker is among the plan's approvers (`resolve` names people by user id: the config's `people`).
pub fn answer_pushed(
    queue: &Queue,
    plan: &Plan,
    ruled: Ruled,
    resolve: &dyn Fn(&str) -> Option<u64>,
    now: &str,
) -> Looked {
    let Some(shape) = Shape::of(plan) else {
        return Looked::default();
    };
    if plan.ruling.is_some() {
        return Looked::default();
    }
    let root = queue.root();
    // No file: no rule, and nothing to read for most pushes.
    if !rules::path(root).exists() {
        return Looked::default();
    }
    let all = match read(root) {
        Ok(all) => all,
        Err(looked) => return *looked,
    };
    let mut looked = Looked::default();
    let approves = |r: &&Rule| {
        let listed = &plan.approval.approvers;
        listed.is_empty()
            || listed
                .iter()
                .any(|p| p.trim().parse::<u64>().ok().or_else(|| resolve(p)) == Some(r.created_by))
    };
    let candidates = all.answering_shape(&shape, now).filter(approves);
    let Some(rule) = on_record(candidates, root, &mut looked) else {
        return looked;
    };
    finish(queue, rule, ruled, None, now, looked)
}

/// `rules.json`, or the [`Looked`] of a file that does not read (no rule, a warning).
fn read(root: &std::path::Path) -> Result<Rules, Box<Looked>> {
    rules::read(root).map_err(|e| {
        Box::new(Looked {
            fired: None,
            warnings: vec![format!("{e}; asking")],
        })
    })
}

/// The first of `candidates` whose making line is in the trail; each one that is not is a warning.
fn on_record<'a>(
    candidates: impl Iterator<Item = &'a Rule>,
    root: &std::path::Path,
    looked: &mut Looked,
) -> Option<Rule> {
    for rule in candidates {
        if !rule.is_on_record(root) {
            tracing::warn!(rule = %rule.id, "a standing rule without its audit line is ignored");
            looked.warnings.push(format!(
                "rule {} is not in the audit trail (written behind Arbiter's back?): ignored",
                rule.id
            ));
            continue;
        }
        // Only now, for the rule about to answer: its state as the trail has it (a revoked or paused rule set
        // `active` by hand answers nothing).
        match rule.state_on_record(root) {
            Ok(State::Active) => return Some(rule.clone()),
            Ok(state) => {
                tracing::warn!(rule = %rule.id, state = state.as_str(), "a standing rule active in the file but not on the record is ignored");
                looked.warnings.push(format!(
                    "rule {} is {} in the audit trail but active in rules.json (changed behind Arbiter's back?): ignored",
                    rule.id,
                    state.as_str()
                ));
            }
            Err(e) => {
                tracing::warn!(rule = %rule.id, error = %e, "can't read the audit trail for a standing rule");
                looked.warnings.push(format!(
                    "rule {}'s record can't be read ({e}): ignored",
                    rule.id
                ));
            }
        }
    }
    None
}

/// Writes the answered plan and counts the rule's use; a plan that can't be answered is a warning (and the owner
/// is asked as usual).
fn finish(
    queue: &Queue,
    rule: Rule,
    ruled: Ruled,
    awaiting: Option<Awaiting>,
    now: &str,
    mut looked: Looked,
) -> Looked {
    match fire(queue, &rule, &ruled, now) {
        Ok((plan, notify)) => {
            count(queue, &rule.id, awaiting, now);
            tracing::info!(rule = %rule.id, plan = %plan.plan.id, "answered by a standing rule");
            looked.fired = Some(Fired { rule, plan, notify });
        }
        Err(why) => {
            tracing::warn!(rule = %rule.id, %why, "a standing rule could not answer");
            looked
                .warnings
                .push(format!("rule {} could not answer ({why}); asking", rule.id));
        }
    }
    looked
}

/// The plan answered by `rule` and submitted, into completed/ (notify file first, as a submit writes them), with
/// its audit line.
fn fire(
    queue: &Queue,
    rule: &Rule,
    ruled: &Ruled,
    now: &str,
) -> Result<(Loaded, Option<PathBuf>), String> {
    let by = format!("rule:{}", rule.id);
    let file_stem = stem(std::path::Path::new(&ruled.name));
    let parsed = plan::Parsed::parse(&ruled.text, &file_stem).map_err(|d| d.to_string())?;
    let edit = answer_edit(&parsed.plan, &rule.answer)
        .ok_or_else(|| format!("`{}` is no answer of this plan", rule.answer))?;
    let (answered, _) = plan::apply_to(&ruled.text, &parsed, &file_stem, &edit, Some(&by), now)
        .map_err(|e| e.to_string())?;
    let (text, plan) = plan::apply_parsed(&answered, &file_stem, &Edit::Submit, Some(&by), now)
        .map_err(|e| e.to_string())?;
    let decision = plan
        .decisions
        .first()
        .map(|d| (d.id.clone(), d.answer.clone()));
    let staged = Loaded {
        path: queue.completed_dir().join(&ruled.name),
        plan,
        location: Location::Completed,
    };
    let notify = if ruled.read_here {
        None
    } else {
        queue.write_notify(&staged).map_err(|e| e.to_string())?
    };
    let path = queue
        .add_completed(&ruled.name, &text)
        .map_err(|e| e.to_string())?;
    let loaded = Loaded { path, ..staged };
    let (decision, value) = decision.unzip();
    let value = value.flatten();
    let change = Change {
        at: now,
        actor: &by,
        action: "answer",
        plan: &loaded.plan.id,
        revision: loaded.plan.revision,
        decision: decision.as_deref(),
        value: value.as_deref(),
        seen: None,
        file: text.as_bytes(),
    };
    audit::append(queue.root(), &change)
        .map_err(|e| format!("its audit line could not be written ({e})"))?;
    Ok((loaded, notify))
}

/// The edit that gives the plan's one decision the rule's `answer`: its option of that key; an `edit` decision's
/// proposal as it stands, for `allow`; yes or no.
fn answer_edit(plan: &Plan, answer: &str) -> Option<Edit> {
    let [d] = plan.decisions.as_slice() else {
        return None;
    };
    if d.status != DecisionStatus::Pending {
        return None;
    }
    if let Some(o) = d.options.iter().find(|o| o.key == answer) {
        return Some(Edit::Answer {
            decision: d.id.clone(),
            key: o.key.clone(),
            label: o.label.clone(),
        });
    }
    match (&d.kind, answer) {
        (Kind::Edit { proposal, .. }, rules::ALLOW) => Some(Edit::Value {
            decision: d.id.clone(),
            value: AnswerValue::Text(proposal.text.clone()),
            edited: Some(false),
        }),
        (Kind::Boolean, "true" | "false") => Some(Edit::Value {
            decision: d.id.clone(),
            value: AnswerValue::Bool(answer == "true"),
            edited: None,
        }),
        _ => None,
    }
}

/// One more use of rule `id` (and the call it allowed, awaiting its result), under the rules' lock: parallel
/// hooks lose no count. The file is fsynced before it is renamed in, not its folder: a power cut may lose the
/// latest counts, never the rules. A count that can't be written is logged; the answer stands.
fn count(queue: &Queue, id: &str, awaiting: Option<Awaiting>, now: &str) {
    let counted = Locked::take(queue.root()).and_then(|locked| {
        let mut all = locked.read()?;
        if let Some(rule) = all.get_mut(id) {
            rule.fired += 1;
            rule.last_fired = Some(now.to_owned());
            if let Some(awaiting) = awaiting {
                rule.awaiting.retain(|a| *a != awaiting);
                rule.awaiting.push(awaiting);
                let over = rule.awaiting.len().saturating_sub(rules::AWAITING);
                rule.awaiting.drain(..over);
            }
        }
        locked.write_count(&mut all, now)
    });
    if let Err(error) = counted {
        tracing::warn!(rule = id, %error, "can't count a standing rule's answer");
    }
}
