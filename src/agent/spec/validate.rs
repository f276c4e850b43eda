//! What JSON can't check about a spec: required text present, one-line titles and options, a known priority,
//! sensible approvers, unique ids and keys.

use std::collections::HashMap;

use crate::plan::Priority;

use super::{DecisionSpec, Person, PlanSpec, SpecError, decision_ids};

/// Checks what JSON can't: required text present, one-line titles and options, known priority, unique ids and
/// keys. The error names the field (`decisions[1].options[0].key: ...`).
pub fn validate(spec: &PlanSpec) -> Result<(), SpecError> {
    one_line("title", &spec.title, true)?;
    if let Some(id) = &spec.id {
        one_line("id", id, true)?;
    }
    if let Some(p) = &spec.priority
        && Priority::parse(p).is_none()
    {
        return Err(SpecError::UnknownPriority(p.clone()));
    }
    if spec.decisions.is_empty() {
        return Err(SpecError::NoDecisions);
    }
    validate_people(spec)?;
    validate_require(spec)?;
    validate_decisions(spec)?;
    validate_kinds(spec)
}

/// The kinds and their keys, as the file format checks them: the spec is rendered and read, and a diagnosis in a
/// decision is reported at that decision (`decisions[1]: `max: 4` is more than …`).
fn validate_kinds(spec: &PlanSpec) -> Result<(), SpecError> {
    for (n, d) in spec.decisions.iter().enumerate() {
        let at = format!("decisions[{n}]");
        if let Some(proposal) = &d.proposal {
            if proposal.contains('\r') {
                return Err(SpecError::Kind {
                    at: format!("{at}.proposal"),
                    reason: "a carriage return can't be kept in the file's code block: use \\n line breaks"
                        .to_owned(),
                });
            }
            if d.kind.as_deref() != Some("edit") {
                return Err(SpecError::Kind {
                    at: format!("{at}.proposal"),
                    reason: "only an edit decision (`\"kind\": \"edit\"`) has a proposal"
                        .to_owned(),
                });
            }
        }
        if let Some(language) = &d.language {
            one_line(&format!("{at}.language"), language, false)?;
            if language.contains(['`', ' ', '\t']) {
                return Err(SpecError::Kind {
                    at: format!("{at}.language"),
                    reason: "one word, without backticks".to_owned(),
                });
            }
        }
    }
    let text = super::render(spec, "validate", "2026-01-01T00:00:00Z");
    let Err(d) = crate::plan::parse(&text, "validate") else {
        return Ok(());
    };
    // The decision the diagnosis is in: the last `## ` heading at or before its line.
    let headings: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("## Decision "))
        .map(|(i, _)| i + 1)
        .collect();
    match headings.iter().rposition(|&h| h <= d.line) {
        Some(n) if d.line > 0 => Err(SpecError::Kind {
            at: format!("decisions[{n}]"),
            reason: d.reason,
        }),
        // Not in a decision: the push reports it as before.
        _ => Ok(()),
    }
}

/// `approvers` and `escalate_to`: no user id 0, no empty or multi-line name.
fn validate_people(spec: &PlanSpec) -> Result<(), SpecError> {
    for (field, people) in [
        ("approvers", &spec.approvers),
        ("escalate_to", &spec.escalate_to),
    ] {
        for (n, p) in people.iter().enumerate() {
            match p {
                Person::Id(0) => {
                    return Err(SpecError::NoUserId {
                        field: format!("{field}[{n}]"),
                    });
                }
                Person::Name(name) => one_line(&format!("{field}[{n}]"), name, true)?,
                Person::Id(_) => {}
            }
        }
    }
    Ok(())
}

/// `require`: at least one sign-off, and no more than the distinct approvers named (when any are).
fn validate_require(spec: &PlanSpec) -> Result<(), SpecError> {
    if let Some(require) = spec.require {
        let mut named: Vec<String> = spec.approvers.iter().map(person_text).collect();
        named.sort();
        named.dedup();
        if require == 0 {
            return Err(SpecError::RequireZero);
        }
        if !named.is_empty() && require as usize > named.len() {
            return Err(SpecError::TooFewApprovers {
                require,
                named: named.len(),
            });
        }
    }
    Ok(())
}

/// Each decision: a one-line title and id, unique within the plan, and its options.
fn validate_decisions(spec: &PlanSpec) -> Result<(), SpecError> {
    let ids = decision_ids(spec);
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (n, (d, id)) in spec.decisions.iter().zip(&ids).enumerate() {
        let at = format!("decisions[{n}]");
        one_line(&format!("{at}.title"), &d.title, true)?;
        one_line(&format!("{at}.id"), id, true)?;
        if let Some(first) = seen.insert(id, n) {
            return Err(SpecError::DuplicateDecisionId {
                decision: at,
                id: id.clone(),
                first,
            });
        }
        validate_options(&at, d)?;
    }
    Ok(())
}

/// The options of the decision at `at`: one-line keys without backticks, unique, and one-line labels.
fn validate_options(at: &str, d: &DecisionSpec) -> Result<(), SpecError> {
    let mut keys: HashMap<&str, usize> = HashMap::new();
    for (k, o) in d.options.iter().enumerate() {
        let field = format!("{at}.options[{k}]");
        let key = o.key.trim();
        one_line(&format!("{field}.key"), key, true)?;
        if key.contains('`') {
            return Err(SpecError::BacktickInKey { option: field });
        }
        if let Some(label) = &o.label {
            one_line(&format!("{field}.label"), label, false)?;
        }
        if let Some(first) = keys.insert(key, k) {
            return Err(SpecError::DuplicateOptionKey {
                option: field,
                key: key.to_owned(),
                decision: at.to_owned(),
                first,
            });
        }
    }
    Ok(())
}

fn one_line(field: &str, value: &str, required: bool) -> Result<(), SpecError> {
    if required && value.trim().is_empty() {
        return Err(SpecError::Empty {
            field: field.to_owned(),
        });
    }
    if value.contains(['\n', '\r']) {
        return Err(SpecError::LineBreak {
            field: field.to_owned(),
        });
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
