//! Making a rule: from a permission plan submitted with a rule's option, or from `🔁 Always answer` on a pushed
//! plan. The audit line that makes it is written first and the rule keeps where it is: a rule whose line is
//! missing is never honoured, and a crash between the two leaves a line and no rule (nothing is allowed).

use crate::plan::{DecisionStatus, Kind, Plan, PlanStatus};
use crate::queue::Loaded;
use crate::queue::audit::{self, Change};
use crate::queue::rules::{self, Locked, Match, Permission, Rule, Rules, Shape, State, Streaks};

use super::{Actions, RuleOutcome};

/// The permission plan's option that makes a rule: `🔁 Always allow this` (that agent, that exact command, that
/// project).
pub const ALWAYS: &str = "always";
/// The permission plan's option that makes a grant: `⏱ Allow <agent> for N min` (every call of that session
/// until it expires).
pub const GRANT: &str = "grant";

/// `🔁 Always answer "<label>"`, as the completion view offers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    /// The answer's label as the owner saw it (`Yes` / `No` for a boolean).
    pub label: String,
    /// The answer the rule would give (an option key, `true` or `false`).
    pub answer: String,
    /// What the offer showed ([`super::offer_seen`]): a tap on an offer that no longer holds makes nothing.
    pub seen: String,
    pub shape: Shape,
}

/// The offer for `user` on the completed plan `plan`, if there is one.
pub(super) fn offer(actions: &Actions, user: u64, plan: &Plan) -> Option<Offer> {
    let (shape, answer, label) = answered_shape(plan, user)?;
    if !actions.access.is_listed_approver(user, plan) {
        return None;
    }
    let root = actions.queue.root();
    if !Streaks::read(root).reached(&shape.key(), user, &answer) {
        return None;
    }
    // A file that does not read offers nothing (the owner is warned of it); a rule of this shape already
    // standing (active or paused) is not offered again.
    let existing = rules::read(root).ok()?;
    if existing
        .rules
        .iter()
        .any(|r| r.has_shape(&shape) && matches!(r.state, State::Active | State::Paused))
    {
        return None;
    }
    Some(Offer {
        seen: super::offer_seen(plan, &answer),
        label,
        answer,
        shape,
    })
}

/// A completed pushed plan's shape, answer and the answer's label, when `user` answered its one decision with
/// an option (or yes / no).
fn answered_shape(plan: &Plan, user: u64) -> Option<(Shape, String, String)> {
    if plan.status != PlanStatus::Completed || plan.outcome.is_some() || plan.ruling.is_some() {
        return None;
    }
    let shape = Shape::of(plan)?;
    let d = plan.decisions.first()?;
    if d.status != DecisionStatus::Answered || d.answered_by.as_deref() != Some(&user.to_string()) {
        return None;
    }
    let answer = d.answer.clone()?;
    let label = match d.kind {
        Kind::Boolean => match answer.as_str() {
            "true" => "Yes".to_owned(),
            "false" => "No".to_owned(),
            _ => return None,
        },
        _ => d.options[d.chosen_option()?].label.clone(),
    };
    Some((shape, answer, label))
}

/// Counts `user`'s answer to a pushed plan of a shape a rule may answer, just submitted: the streak the offer
/// reads. Bookkeeping: a failure is logged and changes nothing else.
pub(in crate::actions) fn note_streak(actions: &Actions, plan: &Plan, now: &str) {
    let Some(user) = plan
        .decisions
        .first()
        .and_then(|d| d.answered_by.as_deref()?.parse::<u64>().ok())
    else {
        return;
    };
    let Some((shape, answer, _)) = answered_shape(plan, user) else {
        return;
    };
    let noted = Locked::take(actions.queue.root()).and_then(|locked| {
        let mut streaks = Streaks::read(locked.root());
        streaks.note(&shape.key(), user, &answer, now);
        streaks.write(&locked)
    });
    if let Err(error) = noted {
        tracing::warn!(plan = %plan.id, %error, "can't count the answer toward a standing rule's offer");
    }
}

/// `🔁 Always answer`: the rule `offer` describes, made by `user` from the completed plan `loaded`.
pub(super) fn from_offer(
    actions: &Actions,
    user: u64,
    loaded: &Loaded,
    offer: &Offer,
    now: &str,
) -> RuleOutcome {
    let rule = Rule {
        agent: offer.shape.agent.clone(),
        project: offer.shape.project.clone(),
        session: None,
        matches: Match::Decision(offer.shape.decision.clone()),
        answer: offer.answer.clone(),
        expires_at: None,
        ..blank(user, &loaded.plan.id, now)
    };
    match write(actions, rule, loaded, &offer.seen, now) {
        Ok(rule) => RuleOutcome::Done(rule),
        Err(why) => RuleOutcome::Failed(why),
    }
}

/// The rule a permission plan just submitted by `user` makes, when its answer is [`ALWAYS`] or [`GRANT`]: `None`
/// for any other plan, else the rule made (or the one already standing), or why none could be.
pub(in crate::actions) fn from_submit(
    actions: &Actions,
    user: u64,
    loaded: &Loaded,
    now: &str,
) -> Option<Result<Rule, String>> {
    let plan = &loaded.plan;
    let ruling = plan.ruling.as_ref()?;
    let [d] = plan.decisions.as_slice() else {
        return None;
    };
    let answer = d
        .answer
        .as_deref()
        .filter(|a| [ALWAYS, GRANT].contains(a))?;
    if d.status != DecisionStatus::Answered || d.chosen_option().is_none() {
        return None;
    }
    let agent = plan.agent.clone()?;
    // Never a rule for a plan that needs sign-offs, nor one whose approvers leave out its maker; a command is
    // ruled only as it stands (an `edit` decision's proposal, unedited).
    if plan.approval.require > 1 || !actions.access.is_listed_approver(user, plan) {
        return Some(Err(
            "the plan's approvers or sign-offs allow no standing rule".to_owned(),
        ));
    }
    if let Kind::Edit { proposal, .. } = &d.kind
        && proposal.text != ruling.command
    {
        return Some(Err(
            "the command shown is not the one the rule would allow".to_owned()
        ));
    }
    let rule = if answer == ALWAYS {
        Rule {
            agent,
            project: plan.project.clone(),
            session: None,
            matches: Match::Permission(Permission {
                tool: Some(ruling.tool.clone()),
                command: Some(ruling.command.clone()),
            }),
            ..blank(user, &plan.id, now)
        }
    } else {
        let Some(session) = plan.session.clone() else {
            return Some(Err("the agent named no session to allow".to_owned()));
        };
        let minutes = ruling
            .grant_minutes
            .unwrap_or(actions.grant_minutes)
            .min(actions.grant_minutes);
        Rule {
            agent,
            project: plan.project.clone(),
            session: Some(session),
            matches: Match::Permission(Permission {
                tool: None,
                command: None,
            }),
            expires_at: Some(later(now, minutes)),
            ..blank(user, &plan.id, now)
        }
    };
    let seen = crate::actions::seen::of_decision(d);
    Some(write(actions, rule, loaded, &seen, now))
}

/// A rule by `user` from plan `plan` made at `now`, answering `allow`, with nothing to match yet.
fn blank(user: u64, plan: &str, now: &str) -> Rule {
    Rule {
        id: String::new(),
        created_at: now.to_owned(),
        created_by: user,
        agent: String::new(),
        project: None,
        session: None,
        matches: Match::Permission(Permission {
            tool: None,
            command: None,
        }),
        answer: rules::ALLOW.to_owned(),
        fired: 0,
        last_fired: None,
        state: State::Active,
        expires_at: None,
        plan: plan.to_owned(),
        audit: audit::Located {
            file: String::new(),
            offset: 0,
            sha256: String::new(),
        },
        failures: 0,
        awaiting: Vec::new(),
        change: None,
    }
}

/// `now` plus `minutes`, RFC 3339 UTC.
fn later(now: &str, minutes: u32) -> String {
    let start = chrono::DateTime::parse_from_rfc3339(now)
        .map_or_else(|_| chrono::Utc::now(), |t| t.with_timezone(&chrono::Utc));
    (start + chrono::Duration::minutes(i64::from(minutes)))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Writes `rule` (its id given here): under the rules' lock, its audit line first (the plan file's digest, what
/// the actor saw), then the file with the line's place. A rule identical to one active already is that one.
fn write(
    actions: &Actions,
    mut rule: Rule,
    loaded: &Loaded,
    seen: &str,
    now: &str,
) -> Result<Rule, String> {
    let root = actions.queue.root();
    let locked = Locked::take(root).map_err(|e| e.to_string())?;
    let mut all = locked.read().map_err(|e| e.to_string())?;
    if let Some(same) = standing(&all, &rule, now) {
        return Ok(same.clone());
    }
    rule.id = rules::fresh_id(&all);
    let bytes =
        std::fs::read(&loaded.path).map_err(|e| format!("{}: {e}", loaded.path.display()))?;
    let value = rule.binding();
    let actor = rule.created_by.to_string();
    let decision = loaded.plan.decisions.first().map(|d| d.id.as_str());
    let change = Change {
        at: now,
        actor: &actor,
        action: rules::MADE,
        plan: &loaded.plan.id,
        revision: loaded.plan.revision,
        decision,
        value: Some(&value),
        seen: Some(seen),
        file: &bytes,
    };
    let (_, located) = audit::append_located(root, &change)
        .map_err(|e| format!("its audit line could not be written ({e})"))?;
    rule.audit = located;
    all.rules.push(rule.clone());
    locked.write(&mut all, now).map_err(|e| e.to_string())?;
    tracing::info!(rule = %rule.id, user = rule.created_by, plan = %loaded.plan.id, what = %rule.what(), "standing rule made");
    Ok(rule)
}

/// An active rule that answers exactly what `rule` would.
fn standing<'a>(all: &'a Rules, rule: &Rule, now: &str) -> Option<&'a Rule> {
    all.rules.iter().find(|r| {
        r.state_at(now) == State::Active
            && r.agent == rule.agent
            && r.project == rule.project
            && r.session == rule.session
            && r.matches == rule.matches
            && r.answer == rule.answer
            && r.expires_at.is_none()
            && rule.expires_at.is_none()
    })
}
