//! `arbiter rules list|pause|resume|revoke ID [--json]`: the standing rules of `<queue>/rules.json`. Pausing,
//! resuming and revoking are owner actions (the action layer, a user id, an audit line): the user is `--user ID`,
//! else the only member of the config's `telegram.allowedUsers`.

use clap::Subcommand;
use serde::Serialize;

use super::CliError;
use crate::actions::rules::{RuleAction, RuleOutcome};
use crate::actions::{Access, Actions, Actor};
use crate::agent::AgentError;
use crate::queue::rules::{self, Rule};

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Every rule: its state, how many prompts it answered and when last, what it answers.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Pause rule ID: it answers nothing until resumed.
    Pause(Target),
    /// Resume rule ID (its maker only).
    Resume(Target),
    /// Revoke rule ID, for good.
    Revoke(Target),
}

#[derive(Debug, clap::Args)]
pub struct Target {
    /// The rule's id (`arbiter rules list`).
    pub id: String,
    /// Who does it: a Telegram user id of telegram.allowedUsers (default: the only one there is).
    #[arg(long, value_name = "ID")]
    pub user: Option<u64>,
    #[arg(long)]
    pub json: bool,
}

/// A rule as `list --json` prints it: the file's fields, its state now, and whether its line is in the trail.
#[derive(Serialize)]
struct Listed<'a> {
    #[serde(flatten)]
    rule: &'a Rule,
    /// The state at this moment (a grant past its end is `expired`).
    state_now: &'static str,
    /// The audit trail holds the line that made it (else it answers nothing).
    on_record: bool,
}

pub fn run(queue_at: super::At<'_>, command: RulesCommand) -> Result<(), CliError> {
    let queue = super::open_queue(queue_at)?;
    let now = crate::clock::now();
    let (target, action) = match command {
        RulesCommand::List { json } => {
            let all = rules::read(queue.root()).map_err(|e| CliError::Rules(e.to_string()))?;
            let listed: Vec<Listed> = all
                .rules
                .iter()
                .map(|rule| Listed {
                    rule,
                    state_now: rule.state_at(&now).as_str(),
                    on_record: rule.is_on_record(queue.root()),
                })
                .collect();
            if json {
                super::print_json(&listed)?;
            } else {
                super::print_out(&table(&listed));
            }
            return Ok(());
        }
        RulesCommand::Pause(t) => {
            let rule = t.id.clone();
            (t, RuleAction::Pause { rule })
        }
        RulesCommand::Resume(t) => {
            let rule = t.id.clone();
            (t, RuleAction::Resume { rule })
        }
        RulesCommand::Revoke(t) => {
            let rule = t.id.clone();
            (t, RuleAction::Revoke { rule })
        }
    };
    let access = super::configured_access(queue_at.config).map_err(|e| {
        AgentError::Invalid(format!(
            "changing a rule is an owner action: it needs the config's telegram.allowedUsers, and {e}"
        ))
    })?;
    let user = who(&access, target.user)?;
    let actions = Actions::new(queue, access);
    match actions.take_rule(Actor::User(user), &action, &now) {
        RuleOutcome::Done(rule) | RuleOutcome::Unchanged(rule) => {
            if target.json {
                super::print_json(&rule)?;
            } else {
                println!("{} {}", rule.id, rule.state_at(&now).as_str());
            }
            Ok(())
        }
        RuleOutcome::Final(rule) => Err(CliError::Rules(format!(
            "rule {} is {}: it can't be {}",
            rule.id,
            rule.state_at(&now).as_str(),
            match action {
                RuleAction::Pause { .. } => "paused",
                RuleAction::Resume { .. } | RuleAction::AlwaysAnswer { .. } => "resumed",
                RuleAction::Revoke { .. } => "revoked",
            }
        ))),
        RuleOutcome::NotFound => Err(CliError::Rules(format!(
            "no rule `{}` (see `arbiter rules list`)",
            target.id
        ))),
        RuleOutcome::Refused(refusal) => Err(AgentError::Invalid(format!(
            "user {user}: {refusal} (only its maker resumes a rule)"
        ))
        .into()),
        RuleOutcome::Stale => Err(CliError::Rules("nothing to do".to_owned())),
        RuleOutcome::Failed(why) => Err(CliError::Rules(why)),
    }
}

/// The acting user: `--user`, else the config's only member.
fn who(access: &Access, user: Option<u64>) -> Result<u64, AgentError> {
    if let Some(user) = user {
        return Ok(user);
    }
    let members: Vec<u64> = access.members().collect();
    match members.as_slice() {
        [only] => Ok(*only),
        _ => Err(AgentError::Invalid(
            "telegram.allowedUsers names several people: say who with --user ID".to_owned(),
        )),
    }
}

/// The rules as a table, newest last.
fn table(listed: &[Listed]) -> String {
    if listed.is_empty() {
        return "no standing rules\n".to_owned();
    }
    let mut rows = vec![
        [
            "ID", "STATE", "FIRED", "LAST USE", "AGENT", "PROJECT", "ANSWERS",
        ]
        .map(str::to_owned)
        .to_vec(),
    ];
    for l in listed {
        let r = l.rule;
        let state = if l.on_record {
            l.state_now.to_owned()
        } else {
            format!("{} (not in the audit trail: ignored)", l.state_now)
        };
        let scope = match (&r.session, &r.expires_at) {
            (Some(session), Some(until)) => format!(" (session {session}, until {until})"),
            (Some(session), None) => format!(" (session {session})"),
            (None, _) => String::new(),
        };
        rows.push(vec![
            r.id.clone(),
            state,
            r.fired.to_string(),
            r.last_fired.clone().unwrap_or_else(|| "-".to_owned()),
            r.agent.clone(),
            r.project.clone().unwrap_or_else(|| "-".to_owned()),
            format!("{} → {}{scope}", r.what(), r.answer),
        ]);
    }
    super::table::aligned(&rows)
}
