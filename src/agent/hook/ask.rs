//! Claude Code's `AskUserQuestion` as one plan: each of its 1–4 questions is a decision (`multiSelect: false` →
//! `choice`, `true` → `multi`), its options keep their labels, and Claude Code's "Type something" is
//! `allow_custom`. The answers go back as the tool's `updatedInput`: the tool input plus `answers` (question text
//! → the chosen label, several joined with `, `, or the typed text), which Claude reads as the user's answers.

use serde_json::{Map, Value};

use crate::agent::spec::{DecisionSpec, PlanSpec};
use crate::plan::slug::slug;
use crate::plan::{AnswerValue, Decision, DecisionStatus, Plan};

use super::input::HookInput;
use super::question::{PlanOptions, base_spec, code_span, cut, one_line, option};

/// The tool's name.
pub const TOOL: &str = "AskUserQuestion";
/// Longest decision title, in characters (the whole question is in its context when cut).
const QUESTION_MAX: usize = 200;

/// One question as Claude Code sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub text: String,
    pub header: Option<String>,
    /// Each option's label and description.
    pub options: Vec<(String, Option<String>)>,
    pub multi: bool,
}

/// The questions of the tool input, or why they can't be asked here.
pub fn questions(input: &HookInput) -> Result<Vec<Question>, String> {
    let Some(Value::Array(items)) = input.tool_input.get("questions") else {
        return Err("the AskUserQuestion input has no `questions` list".to_owned());
    };
    if items.is_empty() || items.len() > 4 {
        return Err(format!(
            "AskUserQuestion asks 1 to 4 questions, this one {}",
            items.len()
        ));
    }
    let mut out = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let field = |key: &str| item.get(key).and_then(Value::as_str).map(str::to_owned);
        let text = field("question")
            .filter(|q| !q.trim().is_empty())
            .ok_or_else(|| format!("AskUserQuestion's question {} has no text", n + 1))?;
        let options: Vec<(String, Option<String>)> = item
            .get("options")
            .and_then(Value::as_array)
            .map(|options| {
                options
                    .iter()
                    .filter_map(|o| {
                        let label = o.get("label").and_then(Value::as_str)?;
                        let description = o.get("description").and_then(Value::as_str);
                        (!label.trim().is_empty())
                            .then(|| (label.to_owned(), description.map(str::to_owned)))
                    })
                    .collect()
            })
            .unwrap_or_default();
        if options.is_empty() {
            return Err(format!(
                "AskUserQuestion's question {} has no options",
                n + 1
            ));
        }
        out.push(Question {
            text,
            header: field("header").filter(|h| !h.trim().is_empty()),
            options,
            multi: item.get("multiSelect").and_then(Value::as_bool) == Some(true),
        });
    }
    Ok(out)
}

/// The plan asking `questions`: one required decision each (`q1`…`q4`).
#[must_use]
pub fn plan_spec(input: &HookInput, questions: &[Question], options: &PlanOptions) -> PlanSpec {
    let title = match questions {
        [one] => format!("Claude asks: {}", one_line(&one.text)),
        more => format!("Claude asks {} questions", more.len()),
    };
    let mut context = "Claude Code asks you".to_owned();
    if let Some(cwd) = &input.cwd {
        context.push_str(&format!(" in {}", code_span(&one_line(cwd))));
    }
    context.push_str(
        ". Your answers go straight back to Claude, which carries on without the terminal.",
    );
    let decisions = questions
        .iter()
        .enumerate()
        .map(|(n, q)| decision(n, q))
        .collect();
    PlanSpec {
        title: cut(&title, 100),
        context: Some(context),
        decisions,
        ..base_spec(input.session_id.as_ref(), input.cwd.as_deref(), options)
    }
}

fn decision(n: usize, q: &Question) -> DecisionSpec {
    let keys = option_keys(q);
    let mut context: Vec<String> = Vec::new();
    let text = one_line(&q.text);
    if text.chars().count() > QUESTION_MAX {
        context.push(text.clone());
    }
    for ((label, description), _) in q.options.iter().zip(&keys) {
        if let Some(d) = description
            .as_deref()
            .map(one_line)
            .filter(|d| !d.is_empty())
        {
            context.push(format!("- **{}**: {d}", one_line(label)));
        }
    }
    DecisionSpec {
        id: Some(format!("q{}", n + 1)),
        title: match &q.header {
            Some(header) => cut(&format!("{}: {text}", one_line(header)), QUESTION_MAX),
            None => cut(&text, QUESTION_MAX),
        },
        context: (!context.is_empty()).then(|| context.join("\n")),
        kind: q.multi.then(|| "multi".to_owned()),
        allow_custom: true,
        required: true,
        options: q
            .options
            .iter()
            .zip(&keys)
            .map(|((label, _), key)| option(key, &cut(&one_line(label), 100)))
            .collect(),
        ..DecisionSpec::default()
    }
}

/// Each option's key: the slug of its label (`option-N` when that is empty or taken).
fn option_keys(q: &Question) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for (n, (label, _)) in q.options.iter().enumerate() {
        let mut key: String = slug(label).chars().take(40).collect();
        if key.is_empty() || keys.contains(&key) {
            key = format!("option-{}", n + 1);
        }
        keys.push(key);
    }
    keys
}

/// The tool input with `answers`, for a completed plan whose questions were all answered; `None` when one was
/// not (skipped or lost), for Claude Code to ask in its own dialog.
#[must_use]
pub fn updated_input(
    plan: &Plan,
    input: &HookInput,
    questions: &[Question],
) -> Option<Map<String, Value>> {
    let mut answers = Map::new();
    for (n, q) in questions.iter().enumerate() {
        let d = plan.decision(&format!("q{}", n + 1))?;
        answers.insert(q.text.clone(), Value::String(answer_text(d)?));
    }
    let mut updated = input.tool_input.clone();
    updated.insert("answers".to_owned(), Value::Object(answers));
    Some(updated)
}

/// A decision's answer as Claude Code's dialog would give it: the chosen label, the labels joined with `, `,
/// or the typed text.
fn answer_text(d: &Decision) -> Option<String> {
    if d.status != DecisionStatus::Answered {
        return None;
    }
    let label = |key: &str| match d.options.iter().find(|o| o.key == key) {
        Some(option) => option.label.clone(),
        None => key.to_owned(),
    };
    match &d.value {
        Some(AnswerValue::List(keys)) => {
            Some(keys.iter().map(|k| label(k)).collect::<Vec<_>>().join(", "))
        }
        _ => d.answer.as_deref().map(label),
    }
}
