//! ACP's framing: newline-delimited JSON-RPC 2.0, one message a line. This module reads a line into what kind of
//! message it is and writes the few messages the relay makes itself; it knows nothing of plans or sessions.

use serde_json::{Map, Value, json};

/// One line, read.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A call that wants an answer: its id, method and params.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// A call that wants none.
    Notification { method: String, params: Value },
    /// The answer to a request: its id, and `Ok(result)` or `Err(error)`.
    Response {
        id: Value,
        result: Result<Value, Value>,
    },
    /// Not JSON-RPC: why (the line goes on as it is; the peer answers it as the protocol says).
    Invalid(String),
}

/// Reads `line` (without its newline).
#[must_use]
pub fn read(line: &str) -> Message {
    let value: Value = match serde_json::from_str(line) {
        Ok(value) => value,
        Err(e) => return Message::Invalid(format!("not JSON ({e})")),
    };
    let Value::Object(mut fields) = value else {
        return Message::Invalid("not a JSON-RPC object".to_owned());
    };
    let method = match fields.remove("method") {
        Some(Value::String(method)) => Some(method),
        Some(_) => return Message::Invalid("its method is not a string".to_owned()),
        None => None,
    };
    let params = fields.remove("params").unwrap_or(Value::Null);
    match (method, fields.remove("id")) {
        (Some(method), Some(id)) if is_id(&id) => Message::Request { id, method, params },
        (Some(_), Some(_)) => {
            Message::Invalid("its id is neither a string nor a number".to_owned())
        }
        (Some(method), None) => Message::Notification { method, params },
        (None, Some(id)) => match (fields.remove("result"), fields.remove("error")) {
            (Some(result), None) => Message::Response {
                id,
                result: Ok(result),
            },
            (None, Some(error)) => Message::Response {
                id,
                result: Err(error),
            },
            _ => Message::Invalid("a response needs exactly one of result and error".to_owned()),
        },
        (None, None) => Message::Invalid("neither a method nor an id".to_owned()),
    }
}

fn is_id(id: &Value) -> bool {
    matches!(id, Value::String(_) | Value::Number(_))
}

/// A request line.
#[must_use]
pub fn request(id: &Value, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// A notification line.
#[must_use]
pub fn notification(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string()
}

/// A result line.
#[must_use]
pub fn result(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// An error line: `code` is JSON-RPC's (`-32601` method not found, `-32603` internal error).
#[must_use]
pub fn error(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// JSON-RPC's "method not found".
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC's "internal error": the relay's answer for a request its agent can no longer answer.
pub const INTERNAL_ERROR: i64 = -32603;

/// An id as a map key (`1` and `"1"` are different ids).
#[must_use]
pub fn key(id: &Value) -> String {
    id.to_string()
}

/// A field of `params` as a string.
#[must_use]
pub fn string<'a>(params: &'a Value, field: &str) -> Option<&'a str> {
    params.get(field)?.as_str()
}

/// `params` as an object (empty when it is not one).
#[must_use]
pub fn object(params: &Value) -> Map<String, Value> {
    params.as_object().cloned().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_line_reads_as_itself() {
        assert_eq!(
            read(r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"a":1}}"#),
            Message::Request {
                id: json!(3),
                method: "session/prompt".into(),
                params: json!({"a": 1})
            }
        );
        assert_eq!(
            read(r#"{"jsonrpc":"2.0","method":"session/update"}"#),
            Message::Notification {
                method: "session/update".into(),
                params: Value::Null
            }
        );
        assert_eq!(
            read(r#"{"jsonrpc":"2.0","id":"x","result":{"stopReason":"end_turn"}}"#),
            Message::Response {
                id: json!("x"),
                result: Ok(json!({"stopReason": "end_turn"}))
            }
        );
        assert_eq!(
            read(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}"#),
            Message::Response {
                id: json!(1),
                result: Err(json!({"code": -32601}))
            }
        );
    }

    #[test]
    fn what_is_not_json_rpc_says_why() {
        for (line, why) in [
            ("hello", "not JSON"),
            ("[1,2]", "not a JSON-RPC object"),
            (r#"{"id":1}"#, "exactly one of result and error"),
            (
                r#"{"id":1,"result":1,"error":{}}"#,
                "exactly one of result and error",
            ),
            (r#"{"method":7}"#, "method is not a string"),
            (r#"{"method":"m","id":{}}"#, "neither a string nor a number"),
            ("{}", "neither a method nor an id"),
        ] {
            match read(line) {
                Message::Invalid(reason) => assert!(reason.contains(why), "{line}: {reason}"),
                other => panic!("{line} read as {other:?}"),
            }
        }
    }

    #[test]
    fn written_lines_read_back() {
        let id = json!("arbiter-1");
        assert!(matches!(
            read(&request(&id, "m", json!({}))),
            Message::Request { .. }
        ));
        assert!(matches!(
            read(&notification("m", json!({}))),
            Message::Notification { .. }
        ));
        assert!(matches!(
            read(&result(&id, json!(null))),
            Message::Response { result: Ok(_), .. }
        ));
        assert!(matches!(
            read(&error(&id, METHOD_NOT_FOUND, "no")),
            Message::Response { result: Err(_), .. }
        ));
        assert_ne!(key(&json!(1)), key(&json!("1")));
    }
}
