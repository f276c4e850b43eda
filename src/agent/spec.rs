//! The JSON plan spec an agent may push instead of Markdown, and its rendering into the decision file format.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::plan::slug::slug;
use crate::plan::yaml_value::{scalar, timestamp};
use crate::plan::{Plan, Priority};
use crate::serde_message::without_position;

/// A plan as JSON: what `arbiter push` (given JSON) and the MCP tool `arbiter_push` accept.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanSpec {
    /// Plan id; default: a fresh 8-character id. Refused if a pending plan already has it.
    #[serde(default)]
    pub id: Option<String>,
    /// What the plan is about, shown as its heading (one line).
    pub title: String,
    /// Short project tag shown in brackets in the queue.
    #[serde(default)]
    pub tag: Option<String>,
    /// low | normal | high | urgent (default normal).
    #[serde(default)]
    #[schemars(extend("enum" = ["low", "normal", "high", "urgent"]))]
    pub priority: Option<String>,
    /// Who asks (default `agent`; over MCP on HTTP, the name of the bearer token); the first part of the file name.
    #[serde(default)]
    pub agent: Option<String>,
    /// The asking agent's session.
    #[serde(default)]
    pub session: Option<String>,
    /// The session to notify on completion (default: session, else agent).
    #[serde(default)]
    pub notify_session: Option<String>,
    /// Background for the human (Markdown).
    #[serde(default)]
    pub context: Option<String>,
    /// When the answers are due: an RFC 3339 time, or a duration from now (`45s`, `90m`, `4h`, `2d`, `1h30m`).
    #[serde(default)]
    pub deadline: Option<String>,
    /// wait (default: the plan stays pending, shown overdue) | submit (defaults or skips, then submitted).
    #[serde(default)]
    #[schemars(extend("enum" = ["wait", "submit"]))]
    pub on_deadline: Option<String>,
    /// Remind the human this often while pending (a duration).
    #[serde(default)]
    pub remind_every: Option<String>,
    /// When to escalate to `escalate_to` if still pending: a duration from now, or an RFC 3339 time.
    #[serde(default)]
    pub escalate_after: Option<String>,
    /// Who gets the plan at `escalate_after`: Telegram user ids (or names from the config's `people`).
    #[serde(default)]
    pub escalate_to: Vec<Person>,
    /// Who may see and answer the plan (user ids, or names from the config's `people`); default: every allowed
    /// user.
    #[serde(default)]
    pub approvers: Vec<Person>,
    /// How many distinct approvers must sign off before the plan is submitted (default 1: one Submit).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub require: Option<u32>,
    /// The questions, at least one.
    pub decisions: Vec<DecisionSpec>,
}

/// Someone a plan names: a Telegram user id, or a name.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Person {
    Id(u64),
    Name(String),
}

/// One question of a [`PlanSpec`].
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DecisionSpec {
    /// Decision id; default: a slug of the title. Unique within the plan.
    #[serde(default)]
    pub id: Option<String>,
    /// The question in a few words (one line).
    pub title: String,
    /// Background for this question (Markdown).
    #[serde(default)]
    pub context: Option<String>,
    /// Whether the human may type an answer of their own.
    #[serde(default)]
    pub allow_custom: bool,
    /// The option key the deadline answers with (`on_deadline: submit`); must be one of `options`.
    #[serde(default)]
    pub default: Option<String>,
    /// The choices; none makes a free-text question.
    #[serde(default)]
    pub options: Vec<OptionSpec>,
}

/// One choice of a [`DecisionSpec`].
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OptionSpec {
    /// What is recorded as the answer (one line, no backticks).
    pub key: String,
    /// What the human reads; default: the key.
    #[serde(default)]
    pub label: Option<String>,
}

impl OptionSpec {
    /// The label as written into the file: trimmed, the key when there is none.
    #[must_use]
    pub fn label_or_key(&self) -> &str {
        match self.label.as_deref().map(str::trim) {
            Some(label) if !label.is_empty() => label,
            _ => self.key.trim(),
        }
    }
}

/// Reads a JSON plan spec; the error names the line, column, the JSON path and the reason
/// (`3:14: decisions[0]: unknown field `lable`, expected ...`).
pub fn from_json(text: &str) -> Result<PlanSpec, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    let spec: PlanSpec = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let inner = e.inner();
        let reason = inner.to_string();
        let reason = without_position(&reason);
        let at = location(e.path(), reason);
        format!("{}:{}: {at}{reason}", inner.line(), inner.column())
    })?;
    de.end().map_err(|e| {
        format!(
            "{}:{}: {}",
            e.line(),
            e.column(),
            without_position(&e.to_string())
        )
    })?;
    Ok(spec)
}

/// Reads a JSON plan spec from an already-parsed value (the MCP tool's arguments).
pub fn from_value(value: serde_json::Value) -> Result<PlanSpec, String> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let reason = e.inner().to_string();
        format!("{}{reason}", location(e.path(), &reason))
    })
}

/// `decisions[0].options[1]: ` for an error at that place; an unknown field is named by the reason already, so
/// the path stops at the object holding it.
fn location(path: &serde_path_to_error::Path, reason: &str) -> String {
    let mut at = path.to_string();
    if reason.starts_with("unknown field") {
        at.truncate(at.rfind('.').unwrap_or(0));
    }
    // `?` marks a place serde could not name (the input ended early).
    let at = at.trim_end_matches('?').trim_end_matches('.');
    if at.is_empty() {
        String::new()
    } else {
        format!("{at}: ")
    }
}

/// The decision ids the spec asks for: given ones, else slugs of the titles (`decision-N` when the slug is empty).
#[must_use]
pub fn decision_ids(spec: &PlanSpec) -> Vec<String> {
    spec.decisions
        .iter()
        .enumerate()
        .map(|(n, d)| match &d.id {
            Some(id) => id.trim().to_owned(),
            None => {
                let s = slug(&d.title);
                if s.is_empty() {
                    format!("decision-{}", n + 1)
                } else {
                    s
                }
            }
        })
        .collect()
}

/// Checks what JSON can't: required text present, one-line titles and options, known priority, unique ids and
/// keys. The error names the field (`decisions[1].options[0].key: ...`).
pub fn validate(spec: &PlanSpec) -> Result<(), String> {
    one_line("title", &spec.title, true)?;
    if let Some(id) = &spec.id {
        one_line("id", id, true)?;
    }
    if let Some(p) = &spec.priority
        && Priority::parse(p).is_none()
    {
        return Err(format!(
            "priority: unknown priority `{p}`: use low, normal, high or urgent"
        ));
    }
    if spec.decisions.is_empty() {
        return Err("decisions: a plan needs at least one decision".to_owned());
    }
    for (field, people) in [
        ("approvers", &spec.approvers),
        ("escalate_to", &spec.escalate_to),
    ] {
        for (n, p) in people.iter().enumerate() {
            match p {
                Person::Id(0) => return Err(format!("{field}[{n}]: 0 is no Telegram user id")),
                Person::Name(name) => one_line(&format!("{field}[{n}]"), name, true)?,
                Person::Id(_) => {}
            }
        }
    }
    if let Some(require) = spec.require {
        let mut named: Vec<String> = spec.approvers.iter().map(person_text).collect();
        named.sort();
        named.dedup();
        if require == 0 {
            return Err("require: must be at least 1".to_owned());
        }
        if !named.is_empty() && require as usize > named.len() {
            return Err(format!(
                "require: {require} sign-offs needs at least {require} approvers (approvers names {})",
                named.len()
            ));
        }
    }
    let ids = decision_ids(spec);
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (n, (d, id)) in spec.decisions.iter().zip(&ids).enumerate() {
        let at = format!("decisions[{n}]");
        one_line(&format!("{at}.title"), &d.title, true)?;
        one_line(&format!("{at}.id"), id, true)?;
        if let Some(first) = seen.insert(id, n) {
            return Err(format!(
                "{at}.id: duplicate decision id `{id}` (also decisions[{first}])"
            ));
        }
        let mut keys: HashMap<&str, usize> = HashMap::new();
        for (k, o) in d.options.iter().enumerate() {
            let field = format!("{at}.options[{k}]");
            let key = o.key.trim();
            one_line(&format!("{field}.key"), key, true)?;
            if key.contains('`') {
                return Err(format!("{field}.key: a key can't contain a backtick"));
            }
            if let Some(label) = &o.label {
                one_line(&format!("{field}.label"), label, false)?;
            }
            if let Some(first) = keys.insert(key, k) {
                return Err(format!(
                    "{field}.key: duplicate option key `{key}` (also {at}.options[{first}])"
                ));
            }
        }
    }
    Ok(())
}

fn one_line(field: &str, value: &str, required: bool) -> Result<(), String> {
    if required && value.trim().is_empty() {
        return Err(format!("{field}: must not be empty"));
    }
    if value.contains(['\n', '\r']) {
        return Err(format!(
            "{field}: must be one line (it contains a line break)"
        ));
    }
    Ok(())
}

/// A person as the plan names them (for counting distinct approvers).
fn person_text(p: &Person) -> String {
    match p {
        Person::Id(id) => id.to_string(),
        Person::Name(name) => name.trim().to_owned(),
    }
}

/// Renders a validated spec as a decision file, in the shape of the example plan (docs/file-format.md).
#[must_use]
pub fn render(spec: &PlanSpec, id: &str, now: &str) -> String {
    let ids = decision_ids(spec);
    let total = spec.decisions.len();
    let priority = spec.priority.as_deref().unwrap_or("normal");
    let title = spec.title.trim();
    let mut out = String::from("---\n");
    let mut key = |k: &str, v: &str| out.push_str(&format!("{k}: {v}\n"));
    key("id", &scalar(id));
    key("version", "1");
    optional(&mut key, "agent", spec.agent.as_deref());
    optional(&mut key, "session", spec.session.as_deref());
    optional(&mut key, "tag", spec.tag.as_deref());
    key("title", &scalar(title));
    key("priority", &scalar(priority));
    key("status", "pending");
    key("created_at", &timestamp(now));
    key("updated_at", &timestamp(now));
    key("completed_at", "null");
    key("total", &total.to_string());
    key("answered", "0");
    key("remaining", &total.to_string());
    optional(&mut key, "notify_session", spec.notify_session.as_deref());
    optional(
        &mut key,
        "deadline",
        spec.deadline.as_deref().map(str::trim),
    );
    optional(
        &mut key,
        "on_deadline",
        spec.on_deadline.as_deref().map(str::trim),
    );
    optional(
        &mut key,
        "remind_every",
        spec.remind_every.as_deref().map(str::trim),
    );
    optional(
        &mut key,
        "escalate_after",
        spec.escalate_after.as_deref().map(str::trim),
    );
    for (field, people) in [
        ("escalate_to", &spec.escalate_to),
        ("approvers", &spec.approvers),
    ] {
        if !people.is_empty() {
            let people: Vec<String> = people
                .iter()
                .map(|p| match p {
                    Person::Id(id) => id.to_string(),
                    Person::Name(name) => scalar(name.trim()),
                })
                .collect();
            key(field, &format!("[{}]", people.join(", ")));
        }
    }
    if let Some(require) = spec.require {
        key("require", &require.to_string());
    }
    out.push_str(&format!("---\n\n# {}\n", heading(title)));
    if let Some(context) = spec.context.as_deref().map(str::trim)
        && !context.is_empty()
    {
        out.push_str(&format!("\n{context}\n"));
    }
    for (n, (d, id)) in spec.decisions.iter().zip(&ids).enumerate() {
        out.push_str(&format!(
            "\n---\n\n## Decision {}: {}\n\n",
            n + 1,
            heading(d.title.trim())
        ));
        out.push_str(&format!(
            "id: {}\nstatus: pending\nanswer: null\nanswered_at: null\n",
            scalar(id)
        ));
        if d.allow_custom {
            out.push_str("allow_custom: true\n");
        }
        if let Some(default) = &d.default {
            out.push_str(&format!("default: {}\n", scalar(default.trim())));
        }
        if let Some(context) = d.context.as_deref().map(str::trim)
            && !context.is_empty()
        {
            out.push_str(&format!("\n**Context:** {context}\n"));
        }
        if !d.options.is_empty() {
            out.push_str("\n**Options:**\n");
            for o in &d.options {
                out.push_str(&format!("- `{}` — {}\n", o.key.trim(), o.label_or_key()));
            }
        }
    }
    out
}

/// A title as written after a heading's `#` marks: one ending in `#` gets a closing ` #`, the one run CommonMark
/// drops, so that `issue #` is not read as `issue`.
fn heading(title: &str) -> String {
    if title.ends_with('#') {
        format!("{title} #")
    } else {
        title.to_owned()
    }
}

fn optional(key: &mut impl FnMut(&str, &str), k: &str, v: Option<&str>) {
    if let Some(v) = v {
        key(k, &scalar(v));
    }
}

/// Checks that the rendered file reads back as the spec asked: the same decisions, ids and options. A context
/// holding a `## ` heading or an `**Options:**` line would otherwise change the plan's shape silently.
pub fn verify(spec: &PlanSpec, plan: &Plan) -> Result<(), String> {
    let ids = decision_ids(spec);
    let read_ids: Vec<&str> = plan.decisions.iter().map(|d| d.id.as_str()).collect();
    if read_ids != ids.iter().map(String::as_str).collect::<Vec<_>>() {
        return Err(format!(
            "the plan would read back with decisions {read_ids:?} instead of {ids:?}: \
             a context holds a line that starts a new section (`## ...`); rephrase it"
        ));
    }
    for (n, (d, read)) in spec.decisions.iter().zip(&plan.decisions).enumerate() {
        let options: Vec<(&str, &str)> = d
            .options
            .iter()
            .map(|o| (o.key.trim(), o.label_or_key()))
            .collect();
        let read_options: Vec<(&str, &str)> = read
            .options
            .iter()
            .map(|o| (o.key.as_str(), o.label.as_str()))
            .collect();
        if read.title != d.title.trim() {
            return Err(format!(
                "decisions[{n}].title: the plan would read back with the title {:?} instead of {:?}; rephrase it",
                read.title,
                d.title.trim()
            ));
        }
        if options != read_options || d.allow_custom != read.allow_custom {
            return Err(format!(
                "decisions[{n}]: the plan would read back with other options than given: \
                 its context holds an `**Options:**` line or a list the file format takes for options; rephrase it"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
