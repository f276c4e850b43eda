//! A question tool as one plan: Claude Code's `AskUserQuestion`, Qwen's `ask_user_question`, Codex's
//! `request_user_input`, Gemini's and Copilot's `ask_user`. Each question is a decision (one pick → `choice`,
//! several → `multi`, no options → a free-text question), its options keep their labels, and the agent's "Type
//! something" is `allow_custom`. Claude Code takes the answers as the tool's `updatedInput` (the tool input plus
//! `answers`: question text → the chosen label, several joined with `, `, or the typed text); every other agent
//! reads them as the reason its tool call was denied: `The user answered: …`.

use serde_json::{Map, Value};

use crate::agent::spec::{DecisionSpec, PlanSpec};
use crate::plan::slug::slug;
use crate::plan::{AnswerValue, Decision, DecisionStatus, Plan};

use super::permission::{PlanOptions, base_spec, option};
use super::text::{code_span, cut, one_line};
use super::{AnswerBy, ToolCall, Verdict};

/// Longest decision title, in characters (the whole question is in its context when cut).
const QUESTION_MAX: usize = 200;
/// Most questions asked in one plan.
const QUESTIONS_MAX: usize = 20;

/// One question as the agent sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub text: String,
    pub header: Option<String>,
    /// Each option's label and description; none: a free-text question.
    pub options: Vec<(String, Option<String>)>,
    pub multi: bool,
}

/// How strictly to read the questions: Claude Code's `AskUserQuestion` asks 1–4 questions, each with options;
/// other agents' tools may ask free-text questions and more of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    AskUserQuestion,
    Any,
}

/// The questions of a question tool's input, or why they can't be asked here. Read leniently: a `questions` list
/// (each with `question`, `header`, `options` of `{label, description}` or of strings, `multiSelect`), or one
/// `question` with `options` or `choices`.
pub fn questions(
    tool: &str,
    input: &Map<String, Value>,
    shape: Shape,
) -> Result<Vec<Question>, String> {
    let single;
    let items: &[Value] = match (input.get("questions"), input.get("question")) {
        (Some(Value::Array(items)), _) => items,
        (_, Some(Value::String(_))) if shape == Shape::Any => {
            single = [Value::Object(input.clone())];
            &single
        }
        _ => return Err(format!("the {tool} input has no `questions` list")),
    };
    let most = match shape {
        Shape::AskUserQuestion => 4,
        Shape::Any => QUESTIONS_MAX,
    };
    if items.is_empty() || items.len() > most {
        return Err(format!(
            "{tool} asks 1 to {most} questions, this one {}",
            items.len()
        ));
    }
    let mut out = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let field = |key: &str| item.get(key).and_then(Value::as_str).map(str::to_owned);
        let text = ["question", "text", "prompt"]
            .into_iter()
            .find_map(field)
            .filter(|q| !q.trim().is_empty())
            .ok_or_else(|| format!("{tool}'s question {} has no text", n + 1))?;
        let listed = ["options", "choices"]
            .into_iter()
            .find_map(|key| item.get(key).and_then(Value::as_array));
        let mut options: Vec<(String, Option<String>)> = listed
            .map(|options| {
                options
                    .iter()
                    .filter_map(|o| {
                        let (label, description) = match o {
                            Value::String(label) => (label.as_str(), None),
                            _ => (
                                o.get("label").and_then(Value::as_str)?,
                                o.get("description").and_then(Value::as_str),
                            ),
                        };
                        (!label.trim().is_empty())
                            .then(|| (label.to_owned(), description.map(str::to_owned)))
                    })
                    .collect()
            })
            .unwrap_or_default();
        if options.is_empty() && field("type").as_deref() == Some("yesno") {
            options = vec![("Yes".to_owned(), None), ("No".to_owned(), None)];
        }
        if options.is_empty() && shape == Shape::AskUserQuestion {
            return Err(format!("{tool}'s question {} has no options", n + 1));
        }
        let multi = ["multiSelect", "multi_select", "multiple", "allow_multiple"]
            .into_iter()
            .any(|key| item.get(key).and_then(Value::as_bool) == Some(true));
        out.push(Question {
            text,
            header: field("header").filter(|h| !h.trim().is_empty()),
            options,
            multi,
        });
    }
    Ok(out)
}

/// The plan asking `questions`: one required decision each (`q1`, `q2`, …).
#[must_use]
pub fn plan_spec(call: &ToolCall, questions: &[Question], options: &PlanOptions) -> PlanSpec {
    let agent = call.origin.agent;
    let title = match questions {
        [one] => format!("{} asks: {}", agent.short, one_line(&one.text)),
        more => format!("{} asks {} questions", agent.short, more.len()),
    };
    let mut context = format!("{} asks you", agent.display);
    if let Some(cwd) = &call.origin.cwd {
        context.push_str(&format!(" in {}", code_span(&one_line(cwd))));
    }
    context.push_str(&format!(
        ". Your answers go straight back to {}, which carries on without the terminal.",
        agent.short
    ));
    let decisions = questions
        .iter()
        .enumerate()
        .map(|(n, q)| decision(n, q))
        .collect();
    PlanSpec {
        title: cut(&title, 100),
        context: Some(context),
        decisions,
        ..base_spec(&call.origin, options)
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
        kind: (q.multi && !q.options.is_empty()).then(|| "multi".to_owned()),
        allow_custom: !q.options.is_empty(),
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

/// The verdict a completed plan holds: the answers as the tool input (`AnswerBy::UpdatedInput`) or as the
/// reason the tool call is denied; the agent's own dialog when a question was not answered (skipped or lost).
#[must_use]
pub fn verdict(plan: &Plan, call: &ToolCall, questions: &[Question], by: AnswerBy) -> Verdict {
    let Some(answers) = answers(plan, questions) else {
        return Verdict::Ask {
            reason: "Not every question was answered in Arbiter; answer here".to_owned(),
        };
    };
    match by {
        AnswerBy::UpdatedInput => {
            let who = match plan
                .decisions
                .first()
                .and_then(|d| d.answered_by.as_deref())
            {
                Some(who) if !who.is_empty() => format!(" by {who}"),
                _ => String::new(),
            };
            let mut updated = call.input.clone();
            let answers = answers
                .into_iter()
                .map(|(q, a)| (q, Value::String(a)))
                .collect();
            updated.insert("answers".to_owned(), Value::Object(answers));
            Verdict::Allow {
                reason: format!("Answered{who} via Arbiter"),
                session: Vec::new(),
                updated_input: Some(updated),
            }
        }
        AnswerBy::Deny => Verdict::Deny {
            reason: match answers.as_slice() {
                [(_, answer)] => format!("The user answered: {answer}"),
                all => {
                    let lines: Vec<String> = all
                        .iter()
                        .map(|(q, a)| format!("- {}: {a}", one_line(q)))
                        .collect();
                    format!("The user answered:\n{}", lines.join("\n"))
                }
            },
        },
    }
}

/// Each question's text and its answer, for a completed plan whose questions were all answered.
fn answers(plan: &Plan, questions: &[Question]) -> Option<Vec<(String, String)>> {
    questions
        .iter()
        .enumerate()
        .map(|(n, q)| {
            let d = plan.decision(&format!("q{}", n + 1))?;
            Some((q.text.clone(), answer_text(d)?))
        })
        .collect()
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
