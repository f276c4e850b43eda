//! A validated spec rendered as a decision file, in the shape of the example plan (docs/file-format.md).

use crate::plan::yaml_value::{scalar, timestamp};
use crate::plan::{AnswerValue, Number};

use super::{DecisionSpec, Person, PlanSpec, decision_ids};

/// Renders a validated spec as a decision file, in the shape of the example plan (docs/file-format.md).
#[must_use]
pub fn render(spec: &PlanSpec, id: &str, now: &str) -> String {
    let ids = decision_ids(spec);
    let title = spec.title.trim();
    let mut out = String::from("---\n");
    write_frontmatter(&mut out, spec, id, now);
    out.push_str(&format!("---\n\n# {}\n", heading(title)));
    if let Some(context) = spec.context.as_deref().map(str::trim)
        && !context.is_empty()
    {
        out.push_str(&format!("\n{context}\n"));
    }
    for (n, (d, id)) in spec.decisions.iter().zip(&ids).enumerate() {
        write_decision(&mut out, n, d, id);
    }
    out
}

/// The frontmatter's keys, one `key: value` line each (without the `---` lines around them).
fn write_frontmatter(out: &mut String, spec: &PlanSpec, id: &str, now: &str) {
    let total = spec.decisions.len();
    let priority = spec.priority.as_deref().unwrap_or("normal");
    let title = spec.title.trim();
    let mut key = |k: &str, v: &str| out.push_str(&format!("{k}: {v}\n"));
    key("id", &scalar(id));
    key("version", "1");
    optional(&mut key, "agent", spec.agent.as_deref());
    optional(&mut key, "machine", spec.machine.as_deref());
    optional(&mut key, "session", spec.session.as_deref());
    optional(&mut key, "tag", spec.tag.as_deref());
    key("title", &scalar(title));
    key("priority", &scalar(priority));
    key("status", "pending");
    if spec.elicitation {
        key("elicitation", "true");
    }
    key("created_at", &timestamp(now));
    key("updated_at", &timestamp(now));
    key("completed_at", "null");
    key("total", &total.to_string());
    key("answered", "0");
    key("remaining", &total.to_string());
    optional(&mut key, "notify_session", spec.notify_session.as_deref());
    optional(&mut key, "project", spec.project.as_deref());
    if let Some(ruling) = &spec.ruling {
        key("rule_tool", &scalar(&ruling.tool));
        key("rule_command", &scalar(&ruling.command));
        if let Some(minutes) = ruling.grant_minutes {
            key("grant_minutes", &minutes.to_string());
        }
    }
    optional(&mut key, "reply_to", spec.reply_to.as_deref());
    write_timing(&mut key, spec);
    write_people(&mut key, spec);
}

/// The deadline, reminder and escalation keys the spec gives.
fn write_timing(key: &mut impl FnMut(&str, &str), spec: &PlanSpec) {
    optional(key, "deadline", spec.deadline.as_deref().map(str::trim));
    optional(
        key,
        "on_deadline",
        spec.on_deadline.as_deref().map(str::trim),
    );
    optional(
        key,
        "remind_every",
        spec.remind_every.as_deref().map(str::trim),
    );
    optional(
        key,
        "escalate_after",
        spec.escalate_after.as_deref().map(str::trim),
    );
}

/// `escalate_to` and `approvers` as flow lists (when not empty), then `require`.
fn write_people(key: &mut impl FnMut(&str, &str), spec: &PlanSpec) {
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
}

/// Decision `n` (from 0) with the id `id`: its heading, its keys, its context and its options.
fn write_decision(out: &mut String, n: usize, d: &DecisionSpec, id: &str) {
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
    write_kind(out, d);
    if let Some(default) = &d.default {
        out.push_str(&format!("default: {}\n", default_yaml(d, default)));
    }
    if d.required {
        out.push_str("required: true\n");
    }
    if let Some(context) = d.context.as_deref().map(str::trim)
        && !context.is_empty()
    {
        out.push_str(&format!("\n**Context:** {context}\n"));
    }
    if let Some(proposal) = &d.proposal {
        let fence = "`".repeat(longest_run(proposal, '`').max(2) + 1);
        let language = d.language.as_deref().map_or("", str::trim);
        out.push_str(&format!(
            "\n**Proposal:**\n\n{fence}{language}\n{proposal}\n{fence}\n"
        ));
    }
    if !d.options.is_empty() {
        out.push_str("\n**Options:**\n");
        for o in &d.options {
            out.push_str(&format!("- `{}` — {}\n", o.key.trim(), o.label_or_key()));
        }
    }
}

/// The kind and its keys, one line each, as given.
fn write_kind(out: &mut String, d: &DecisionSpec) {
    if let Some(kind) = &d.kind {
        out.push_str(&format!("kind: {}\n", scalar(kind.trim())));
    }
    let counts = [
        ("min", d.min),
        ("max", d.max),
        ("min_length", d.min_length),
        ("max_length", d.max_length),
    ];
    for (key, value) in counts {
        if let Some(v) = value {
            out.push_str(&format!("{key}: {v}\n"));
        }
    }
    if let Some(format) = &d.format {
        out.push_str(&format!("format: {}\n", scalar(format.trim())));
    }
    for (key, value) in [("minimum", d.minimum), ("maximum", d.maximum)] {
        if let Some(v) = value {
            // A number the file can't hold (NaN, 2^53 or more) is written as text: the plan then reads as a
            // diagnosis naming it.
            let written = Number::new(v).map_or_else(|| scalar(&v.to_string()), |n| n.to_string());
            out.push_str(&format!("{key}: {written}\n"));
        }
    }
    if d.integer {
        out.push_str("integer: true\n");
    }
}

/// A default as YAML of the decision's kind: a JSON list as a flow list of keys, a number, a boolean, a string.
fn default_yaml(d: &DecisionSpec, default: &serde_json::Value) -> String {
    use serde_json::Value;
    match default {
        Value::Array(items) => AnswerValue::List(
            items
                .iter()
                .map(|i| match i {
                    Value::String(s) => s.trim().to_owned(),
                    other => other.to_string(),
                })
                .collect(),
        )
        .yaml(),
        Value::Number(n) => n
            .as_f64()
            .and_then(Number::new)
            .map_or_else(|| scalar(&n.to_string()), |n| n.to_string()),
        Value::Bool(b) => b.to_string(),
        Value::String(s) if d.kind.as_deref() == Some("multi") => {
            AnswerValue::List(vec![s.trim().to_owned()]).yaml()
        }
        Value::String(s) => scalar(s.trim()),
        Value::Null | Value::Object(_) => "null".to_owned(),
    }
}

/// The longest run of `c` in `s` (a code fence must be longer than any run of backticks inside it).
fn longest_run(s: &str, c: char) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for ch in s.chars() {
        run = if ch == c { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
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
