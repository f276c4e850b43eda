//! Which prompts a rule answers: a tool permission ([`Ask`]) or a pushed plan's one decision ([`Shape`]). Pure.

use crate::plan::{Kind, Plan};

use super::{DecisionShape, Match, OptionShape, Permission, Rule, Rules, State};

/// A tool permission prompt, as a rule matches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ask<'a> {
    /// The agent's command-line name (`claude-code`, `codex`, …): the plan's `agent`.
    pub agent: &'a str,
    /// The agent's working directory.
    pub project: Option<&'a str>,
    pub session: Option<&'a str>,
    /// The agent's name for the tool.
    pub tool: &'a str,
    /// The exact command (the files an edit changes, the input of any other call).
    pub command: &'a str,
}

/// A pushed plan a rule may answer: one `choice` decision without a custom answer, or one `boolean`, needing one
/// sign-off, from a named agent, not an elicitation form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub agent: String,
    pub project: Option<String>,
    pub decision: DecisionShape,
}

impl Shape {
    /// The shape of `plan`, or `None` when no rule may answer it (several decisions, a typed answer, sign-offs, a
    /// form, a revision, no agent).
    #[must_use]
    pub fn of(plan: &Plan) -> Option<Shape> {
        let [d] = plan.decisions.as_slice() else {
            return None;
        };
        if plan.approval.require > 1 || plan.elicitation || plan.revision > 1 {
            return None;
        }
        let kind = match d.kind {
            Kind::Choice if !d.allow_custom && !d.options.is_empty() => "choice",
            Kind::Boolean => "boolean",
            Kind::Choice
            | Kind::Multi { .. }
            | Kind::Text { .. }
            | Kind::Number { .. }
            | Kind::Edit { .. } => return None,
        };
        Some(Shape {
            agent: plan.agent.clone()?,
            project: plan.project.clone(),
            decision: DecisionShape {
                decision: d.id.clone(),
                kind: kind.to_owned(),
                options: d
                    .options
                    .iter()
                    .map(|o| OptionShape {
                        key: o.key.clone(),
                        label: o.label.clone(),
                    })
                    .collect(),
            },
        })
    }

    /// What identifies the shape among others, for the streak of identical answers.
    #[must_use]
    pub fn key(&self) -> String {
        let text = serde_json::to_string(&(&self.agent, &self.project, &self.decision))
            .unwrap_or_default();
        super::digest(&text)
    }
}

impl Rule {
    /// True when this rule, active at `now`, answers the permission prompt `ask`.
    #[must_use]
    pub fn answers(&self, ask: &Ask, now: &str) -> bool {
        let Match::Permission(Permission { tool, command }) = &self.matches else {
            return false;
        };
        self.state_at(now) == State::Active
            && self.agent == ask.agent
            && self.project.as_deref() == ask.project
            && self
                .session
                .as_deref()
                .is_none_or(|s| Some(s) == ask.session)
            && tool.as_deref().is_none_or(|t| t == ask.tool)
            && command.as_deref().is_none_or(|c| c == ask.command)
    }

    /// True when this rule, active at `now`, answers a pushed plan of `shape` (and its answer is one of the
    /// shape's options).
    #[must_use]
    pub fn answers_shape(&self, shape: &Shape, now: &str) -> bool {
        let Match::Decision(decision) = &self.matches else {
            return false;
        };
        self.state_at(now) == State::Active
            && self.agent == shape.agent
            && self.project == shape.project
            && self.session.is_none()
            && *decision == shape.decision
            && answerable(decision, &self.answer)
    }

    /// True when this rule has the shape `shape`, whatever its state (a rule that exists is not offered again).
    #[must_use]
    pub fn has_shape(&self, shape: &Shape) -> bool {
        matches!(&self.matches, Match::Decision(d) if *d == shape.decision)
            && self.agent == shape.agent
            && self.project == shape.project
    }
}

/// True when `answer` is an answer of `decision`: one of its option keys, or `true`/`false` for a boolean.
#[must_use]
pub fn answerable(decision: &DecisionShape, answer: &str) -> bool {
    match decision.kind.as_str() {
        "boolean" => matches!(answer, "true" | "false"),
        "choice" => decision.options.iter().any(|o| o.key == answer),
        _ => false,
    }
}

impl Rules {
    /// The rules that answer `ask` at `now`, grants last (the exact rule is named first).
    pub fn answering<'a>(&'a self, ask: &'a Ask, now: &'a str) -> impl Iterator<Item = &'a Rule> {
        let exact = self
            .rules
            .iter()
            .filter(move |r| !r.is_grant() && r.answers(ask, now));
        let grants = self
            .rules
            .iter()
            .filter(move |r| r.is_grant() && r.answers(ask, now));
        exact.chain(grants)
    }

    /// The rules that answer a pushed plan of `shape` at `now`.
    pub fn answering_shape<'a>(
        &'a self,
        shape: &'a Shape,
        now: &'a str,
    ) -> impl Iterator<Item = &'a Rule> {
        self.rules
            .iter()
            .filter(move |r| r.answers_shape(shape, now))
    }

    /// The rule `id`.
    #[must_use]
    pub fn get(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// The rule `id`, to change.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut Rule> {
        self.rules.iter_mut().find(|r| r.id == id)
    }
}
