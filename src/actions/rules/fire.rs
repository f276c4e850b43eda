//! A rule answers a prompt, in the asking process itself (the hook, `arbiter push`), with no daemon: the plan is
//! written straight into completed/ answered `answered_by: rule:<id>`, its notify file beside it (for a push: a
//! hook reads its answer itself, as after any answer, so none is left for it), its audit line after them (the
//! line a person's same answer writes, by `rule:<id>`: `actions::audit`), then the rule's `fired` and
//! `last_fired` move. Nobody is asked.
//!
//! A rule answers only for a maker `access` still allows on the plan ([`Access::rule_may_answer`]): a member of
//! the config the queue was opened with ([`Queue::with_members`]), and an approver when the plan names any.
//!
//! Cheap by design (a hook answers within 20 ms): `rules.json` is read once, only the matching rule's line of
//! the trail is read back, nothing is listed, and four fsyncs make it durable (the plan file and its folder, the
//! audit line, the count's file).

use std::path::PathBuf;

use crate::actions::{Access, Action, audit, seen};
use crate::plan::{self, AnswerValue, DecisionStatus, Edit, Kind, Plan};
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

/// Answers the permission prompt `ask` by the first rule that answers it, may answer its plan
/// ([`Access::rule_may_answer`]) and is on record, making the plan with `make` (called only when a rule matches
/// the prompt). Nothing is written when no rule answers.
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
    if all.answering(ask, now).next().is_none() {
        return looked;
    }
    let ruled = make();
    let parsed = match parse(&ruled) {
        Ok(parsed) => parsed,
        Err(why) => {
            looked
                .warnings
                .push(format!("no rule could answer ({why}); asking"));
            return looked;
        }
    };
    let candidates = all
        .answering(ask, now)
        .filter(|r| maker_may_answer(queue, r, &parsed.plan));
    let Some(rule) = on_record(candidates, root, &mut looked) else {
        return looked;
    };
    let awaiting = Awaiting {
        session: ask.session.map(str::to_owned),
        tool: ask.tool.to_owned(),
        what: rules::digest(ask.command),
    };
    finish(queue, rule, (&ruled, parsed), Some(awaiting), now, looked)
}

/// The plan `ruled` holds, parsed for its edits.
fn parse(ruled: &Ruled) -> Result<plan::Parsed, String> {
    let file_stem = stem(std::path::Path::new(&ruled.name));
    plan::Parsed::parse(&ruled.text, &file_stem).map_err(|d| d.to_string())
}

/// May `rule` answer `plan`: its maker still a member of the queue's config, and among the plan's approvers
/// when it names any.
fn maker_may_answer(queue: &Queue, rule: &Rule, plan: &Plan) -> bool {
    let may =
        Access::of_members(queue.members(), rule.created_by).rule_may_answer(rule.created_by, plan);
    if !may {
        tracing::info!(rule = %rule.id, maker = rule.created_by, plan = %plan.id, "a standing rule's maker may not answer this plan: asking");
    }
    may
}

/// Answers the pushed plan `plan` (written as `ruled`) by the first rule that answers its shape, may answer it
/// ([`Access::rule_may_answer`]) and is on record.
pub fn answer_pushed(queue: &Queue, plan: &Plan, ruled: Ruled, now: &str) -> Looked {
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
    let candidates = all
        .answering_shape(&shape, now)
        .filter(|r| maker_may_answer(queue, r, plan));
    let Some(rule) = on_record(candidates, root, &mut looked) else {
        return looked;
    };
    match parse(&ruled) {
        Ok(parsed) => finish(queue, rule, (&ruled, parsed), None, now, looked),
        Err(why) => {
            looked
                .warnings
                .push(format!("rule {} could not answer ({why}); asking", rule.id));
            looked
        }
    }
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
    ruled: (&Ruled, plan::Parsed),
    awaiting: Option<Awaiting>,
    now: &str,
    mut looked: Looked,
) -> Looked {
    match fire(queue, &rule, ruled, now) {
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
/// its audit line: the line the same answer by a person writes (`audit::record_rule`), on disk before the answer
/// goes back to the asking side.
fn fire(
    queue: &Queue,
    rule: &Rule,
    (ruled, parsed): (&Ruled, plan::Parsed),
    now: &str,
) -> Result<(Loaded, Option<PathBuf>), String> {
    let by = format!("rule:{}", rule.id);
    let file_stem = stem(std::path::Path::new(&ruled.name));
    let (edit, action) = answer_edit(&parsed.plan, &rule.answer)
        .ok_or_else(|| format!("`{}` is no answer of this plan", rule.answer))?;
    let (answered, _) = plan::apply_to(&ruled.text, &parsed, &file_stem, &edit, Some(&by), now)
        .map_err(|e| e.to_string())?;
    let (text, plan) = plan::apply_parsed(&answered, &file_stem, &Edit::Submit, Some(&by), now)
        .map_err(|e| e.to_string())?;
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
    audit::record_rule(queue, &rule.id, &action, &loaded, 0, now)
        .map_err(|e| format!("its audit line could not be written ({e})"))?;
    Ok((loaded, notify))
}

/// The edit that gives the plan's one decision the rule's `answer`, and the action a person answering it so
/// takes: its option of that key; an `edit` decision's proposal as it stands, for `allow`; yes or no.
fn answer_edit(plan: &Plan, answer: &str) -> Option<(Edit, Action)> {
    let [d] = plan.decisions.as_slice() else {
        return None;
    };
    if d.status != DecisionStatus::Pending {
        return None;
    }
    if let Some((i, o)) = d.options.iter().enumerate().find(|(_, o)| o.key == answer) {
        let edit = Edit::Answer {
            decision: d.id.clone(),
            key: o.key.clone(),
            label: o.label.clone(),
        };
        let action = Action::Answer {
            decision: 0,
            option: i,
            seen: seen::of_option(d, o),
        };
        return Some((edit, action));
    }
    let (value, input, edited) = match (&d.kind, answer) {
        (Kind::Edit { proposal, .. }, rules::ALLOW) => (
            AnswerValue::Text(proposal.text.clone()),
            proposal.text.clone(),
            Some(false),
        ),
        (Kind::Boolean, "true" | "false") => {
            (AnswerValue::Bool(answer == "true"), answer.to_owned(), None)
        }
        _ => return None,
    };
    let edit = Edit::Value {
        decision: d.id.clone(),
        value,
        edited,
    };
    let action = Action::AnswerInput {
        decision: 0,
        input,
        seen: seen::of_decision(d),
    };
    Some((edit, action))
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
