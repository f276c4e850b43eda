//! Reading a JSON plan spec, from text or from an already-parsed value.

use crate::serde_message::without_position;

use super::{PlanSpec, SpecError, elicitation};

/// Reads a JSON plan spec; the error names the line, column, the JSON path and the reason
/// (`3:14: decisions[0]: unknown field `lable`, expected ...`).
pub fn from_json(text: &str) -> Result<PlanSpec, SpecError> {
    // An MCP elicitation request is read as one (its errors name the field); a plan spec keeps line and column.
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text)
        && elicitation::is_elicitation(&value)
    {
        return from_value(value);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let spec: PlanSpec = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let inner = e.inner();
        let reason = inner.to_string();
        let reason = without_position(&reason);
        SpecError::Json {
            line: inner.line(),
            column: inner.column(),
            at: location(e.path(), reason),
            reason: reason.to_owned(),
        }
    })?;
    de.end().map_err(|e| SpecError::Json {
        line: e.line(),
        column: e.column(),
        at: String::new(),
        reason: without_position(&e.to_string()).to_owned(),
    })?;
    Ok(spec)
}

/// Reads a JSON plan spec from an already-parsed value (the MCP tool's arguments).
pub fn from_value(value: serde_json::Value) -> Result<PlanSpec, SpecError> {
    if elicitation::is_elicitation(&value) {
        let mut spec = from_value(elicitation::plan_value(value)?)?;
        spec.elicitation = true;
        return Ok(spec);
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let reason = e.inner().to_string();
        SpecError::Value {
            at: location(e.path(), &reason),
            reason,
        }
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
