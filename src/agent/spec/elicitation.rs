//! An MCP elicitation request (`message` + `requestedSchema`, MCP 2025-11-25 `elicitation/create` in form mode)
//! read as a plan spec: each property of the schema becomes one decision, in order.

use serde_json::{Map, Value};

use super::SpecError;

/// The longest plan title taken from the message's first line (in characters).
const TITLE_CHARS: usize = 80;

/// True when `value` is an elicitation request (an object with `requestedSchema`) rather than a plan spec.
#[must_use]
pub fn is_elicitation(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|o| o.contains_key("requestedSchema"))
}

/// An elicitation request with the usual optional plan keys (`title`, `agent`, `session`, `deadline`, …) as
/// the JSON of a plan spec (read with [`super::from_value`], marked `elicitation`): the message is the plan's context (its first line the title when none is given), each
/// property a decision whose id is the property's name: `string` → `text` (`minLength`, `maxLength`, `format`),
/// `number`/`integer` → `number`, `boolean` → `boolean`, a string `enum` (titles from `enumNames`) or `oneOf`
/// of `{const, title}` → `choice`, an `array` of such an enum (`items.enum` or `items.anyOf`) → `multi`
/// (`minItems`, `maxItems`). `title`, `description` and `default` carry over; properties in `required` can't be
/// skipped. The plan may be declined (`elicitation: true`).
pub fn plan_value(value: Value) -> Result<Value, SpecError> {
    let Value::Object(mut request) = value else {
        return Err(kind_error(
            "",
            "an elicitation request must be a JSON object",
        ));
    };
    let message = match request.remove("message") {
        Some(Value::String(m)) if !m.trim().is_empty() => m,
        Some(_) => return Err(kind_error("message", "must be a non-empty string")),
        None => {
            return Err(kind_error(
                "message",
                "missing: the request's message to the human",
            ));
        }
    };
    let schema = request.remove("requestedSchema").unwrap_or(Value::Null);
    if request.contains_key("decisions") {
        return Err(kind_error(
            "decisions",
            "an elicitation request asks through `requestedSchema`, not `decisions`",
        ));
    }
    let decisions = decisions(&schema)?;
    let mut plan = request;
    plan.entry("title")
        .or_insert_with(|| Value::String(title_of(&message)));
    let context = match plan.remove("context") {
        Some(Value::String(c)) if !c.trim().is_empty() => format!("{}\n\n{c}", message.trim()),
        _ => message.trim().to_owned(),
    };
    plan.insert("context".into(), Value::String(context));
    plan.insert("decisions".into(), Value::Array(decisions));
    Ok(Value::Object(plan))
}

/// The message's first line, cut to [`TITLE_CHARS`].
fn title_of(message: &str) -> String {
    let first = message.trim().lines().next().unwrap_or("").trim();
    if first.chars().count() > TITLE_CHARS {
        format!(
            "{}…",
            first.chars().take(TITLE_CHARS - 1).collect::<String>()
        )
    } else {
        first.to_owned()
    }
}

/// The decisions of `requestedSchema` (`{"type": "object", "properties": {...}, "required": [...]}`), one per
/// property in order, as decision specs in JSON.
fn decisions(schema: &Value) -> Result<Vec<Value>, SpecError> {
    let at = "requestedSchema";
    let Some(schema) = schema.as_object() else {
        return Err(kind_error(at, "must be an object schema"));
    };
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(kind_error(&format!("{at}.type"), "must be \"object\""));
    }
    let required: Vec<&str> = match schema.get("required") {
        None => Vec::new(),
        Some(Value::Array(names)) => names
            .iter()
            .map(|n| {
                n.as_str().ok_or_else(|| {
                    kind_error(&format!("{at}.required"), "must list property names")
                })
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(kind_error(
                &format!("{at}.required"),
                "must be a list of property names",
            ));
        }
    };
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Err(kind_error(
            &format!("{at}.properties"),
            "must be an object of property schemas",
        ));
    };
    if properties.is_empty() {
        return Err(kind_error(
            &format!("{at}.properties"),
            "asks nothing: add at least one property",
        ));
    }
    if let Some(unknown) = required.iter().find(|r| !properties.contains_key(**r)) {
        return Err(kind_error(
            &format!("{at}.required"),
            &format!("names `{unknown}`, which is not a property"),
        ));
    }
    properties
        .iter()
        .map(|(name, prop)| decision(name, prop, required.contains(&name.as_str())))
        .collect()
}

/// One property as a decision spec.
fn decision(name: &str, prop: &Value, required: bool) -> Result<Value, SpecError> {
    let at = format!("requestedSchema.properties.{name}");
    if name.trim() != name || name.is_empty() || name.contains(['\n', '\r']) {
        return Err(kind_error(
            &at,
            "a property name must be one line without surrounding spaces",
        ));
    }
    let schema = prop;
    let Some(prop) = prop.as_object() else {
        return Err(kind_error(&at, "must be a schema object"));
    };
    let mut d = Map::new();
    d.insert("id".into(), Value::String(name.to_owned()));
    let title = prop.get("title").and_then(Value::as_str).unwrap_or(name);
    d.insert("title".into(), Value::String(title.to_owned()));
    if let Some(description) = prop.get("description").and_then(Value::as_str) {
        d.insert("context".into(), Value::String(description.to_owned()));
    }
    if required {
        d.insert("required".into(), Value::Bool(true));
    }
    if let Some(default) = prop.get("default") {
        d.insert("default".into(), default.clone());
    }
    let copy = |d: &mut Map<String, Value>, from: &str, to: &str| {
        if let Some(v) = prop.get(from) {
            d.insert(to.into(), v.clone());
        }
    };
    let kind = match prop.get("type").and_then(Value::as_str) {
        Some("string") => match enum_options(schema, &at)? {
            Some(options) => {
                d.insert("options".into(), Value::Array(options));
                "choice"
            }
            None => {
                copy(&mut d, "minLength", "min_length");
                copy(&mut d, "maxLength", "max_length");
                copy(&mut d, "format", "format");
                "text"
            }
        },
        Some(t @ ("number" | "integer")) => {
            copy(&mut d, "minimum", "minimum");
            copy(&mut d, "maximum", "maximum");
            if t == "integer" {
                d.insert("integer".into(), Value::Bool(true));
            }
            "number"
        }
        Some("boolean") => "boolean",
        Some("array") => {
            let items = prop.get("items").unwrap_or(&Value::Null);
            let Some(options) = enum_options(items, &format!("{at}.items"))? else {
                return Err(kind_error(
                    &format!("{at}.items"),
                    "an array property must list its choices (`enum`, or `anyOf` of {const, title})",
                ));
            };
            d.insert("options".into(), Value::Array(options));
            // JSON Schema: no `minItems` means none need be picked.
            d.insert(
                "min".into(),
                prop.get("minItems").cloned().unwrap_or(Value::from(0)),
            );
            copy(&mut d, "maxItems", "max");
            "multi"
        }
        other => {
            return Err(kind_error(
                &format!("{at}.type"),
                &format!(
                    "{} is not a type an elicitation form asks for: use string, number, integer, boolean or array",
                    other.map_or_else(|| "a missing type".to_owned(), |t| format!("`{t}`"))
                ),
            ));
        }
    };
    d.insert("kind".into(), Value::String(kind.to_owned()));
    Ok(Value::Object(d))
}

/// The options of an enum schema: `enum` (labels from `enumNames`), or `oneOf` / `anyOf` of `{const, title}`;
/// `None` when it is no enum.
fn enum_options(schema: &Value, at: &str) -> Result<Option<Vec<Value>>, SpecError> {
    let option = |key: &str, label: Option<&str>| {
        let mut o = Map::new();
        o.insert("key".into(), Value::String(key.to_owned()));
        if let Some(label) = label {
            o.insert("label".into(), Value::String(label.to_owned()));
        }
        Value::Object(o)
    };
    if let Some(values) = schema.get("enum") {
        let values = values
            .as_array()
            .ok_or_else(|| kind_error(&format!("{at}.enum"), "must be a list of strings"))?;
        let names = schema.get("enumNames").and_then(Value::as_array);
        return values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let key = v
                    .as_str()
                    .ok_or_else(|| kind_error(&format!("{at}.enum[{i}]"), "must be a string"))?;
                let label = names.and_then(|n| n.get(i)).and_then(Value::as_str);
                Ok(option(key, label))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some);
    }
    for list in ["oneOf", "anyOf"] {
        if let Some(items) = schema.get(list) {
            let items = items.as_array().ok_or_else(|| {
                kind_error(&format!("{at}.{list}"), "must be a list of {const, title}")
            })?;
            return items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let key = item.get("const").and_then(Value::as_str).ok_or_else(|| {
                        kind_error(&format!("{at}.{list}[{i}].const"), "must be a string")
                    })?;
                    Ok(option(key, item.get("title").and_then(Value::as_str)))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some);
        }
    }
    Ok(None)
}

fn kind_error(at: &str, reason: &str) -> SpecError {
    SpecError::Kind {
        at: if at.is_empty() {
            "request".to_owned()
        } else {
            at.to_owned()
        },
        reason: reason.to_owned(),
    }
}
