//! Each wire's shapes: a scripted turn as the agent expects it (server-sent events, or one JSON body), and what
//! the agent sent back (the tools it offers, a tool's output, its last message).

use serde_json::{Value, json};

use super::{Turn, Wire};

/// The names of the tools a request offers.
pub fn tool_names(body: &Value) -> Vec<&str> {
    let Some(tools) = body["tools"].as_array() else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for tool in tools {
        // Responses: {name}; Chat Completions: {function: {name}}; Gemini: {functionDeclarations: [{name}]}.
        if let Some(name) = tool["name"].as_str().or(tool["function"]["name"].as_str()) {
            names.push(name);
        }
        for decl in tool["functionDeclarations"]
            .as_array()
            .into_iter()
            .flatten()
        {
            names.extend(decl["name"].as_str());
        }
    }
    names
}

/// `turn` as the agent's stream; `n` makes the ids unique.
pub fn events(wire: Wire, turn: &Turn, n: usize) -> String {
    match wire {
        Wire::Responses => {
            let id = format!("resp_{n}");
            [
                json!({"type": "response.created", "response": {"id": id}}),
                json!({"type": "response.output_item.done", "output_index": 0, "item": responses_item(turn, n)}),
                json!({"type": "response.completed", "response": {"id": id, "usage": {
                    "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                    "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}}}),
            ]
            .iter()
            .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("")))
            .collect()
        }
        Wire::Chat => {
            let (delta, finish) = chat_message(turn, true);
            let chunk = |choice: Value| {
                json!({"id": format!("chatcmpl-{n}"), "object": "chat.completion.chunk",
                    "created": 1_700_000_000, "model": "fake-model", "choices": [choice]})
            };
            let mut last = chunk(json!({"index": 0, "delta": {}, "finish_reason": finish}));
            last["usage"] = usage();
            format!(
                "data: {}\n\ndata: {last}\n\ndata: [DONE]\n\n",
                chunk(json!({"index": 0, "delta": delta, "finish_reason": null}))
            )
        }
        Wire::Gemini => format!("data: {}\n\n", gemini_response(turn)),
        Wire::Anthropic => anthropic_events(turn, n),
    }
}

/// `turn` as one JSON body, for a request that does not stream.
pub fn whole(wire: Wire, turn: &Turn, n: usize) -> Value {
    match wire {
        Wire::Responses => {
            json!({"id": format!("resp_{n}"), "object": "response", "status": "completed",
            "output": [responses_item(turn, n)]})
        }
        Wire::Chat => {
            let (message, finish) = chat_message(turn, false);
            json!({"id": format!("chatcmpl-{n}"), "object": "chat.completion", "created": 1_700_000_000,
                "model": "fake-model", "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage()})
        }
        Wire::Gemini => gemini_response(turn),
        Wire::Anthropic => {
            let (content, stop) = match turn {
                Turn::Tool { id, name, args } => (
                    json!([{"type": "tool_use", "id": id, "name": name, "input": args}]),
                    "tool_use",
                ),
                Turn::Text(text) => (json!([{"type": "text", "text": text}]), "end_turn"),
            };
            json!({"id": format!("msg_{n}"), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": content, "stop_reason": stop, "stop_sequence": null, "usage": anthropic_usage()})
        }
    }
}

fn anthropic_usage() -> Value {
    json!({"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

/// An Anthropic message as events: its start, one content block (a tool call's input as one JSON delta), its end.
fn anthropic_events(turn: &Turn, n: usize) -> String {
    let (block, delta, stop) = match turn {
        Turn::Tool { id, name, args } => (
            json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": args.to_string()}),
            "tool_use",
        ),
        Turn::Text(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
            "end_turn",
        ),
    };
    [
        json!({"type": "message_start", "message": {"id": format!("msg_{n}"), "type": "message",
            "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": anthropic_usage()}}),
        json!({"type": "content_block_start", "index": 0, "content_block": block}),
        json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": 5}}),
        json!({"type": "message_stop"}),
    ]
    .iter()
    .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("")))
    .collect()
}

fn usage() -> Value {
    json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15})
}

fn responses_item(turn: &Turn, n: usize) -> Value {
    match turn {
        Turn::Tool { id, name, args } => json!({"type": "function_call", "id": format!("fc_{n}"),
            "call_id": id, "name": name, "arguments": args.to_string(), "status": "completed"}),
        Turn::Text(text) => {
            json!({"type": "message", "id": format!("msg_{n}"), "role": "assistant",
            "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]})
        }
    }
}

/// The assistant message (a streamed delta carries each tool call's `index`) and its finish reason.
fn chat_message(turn: &Turn, delta: bool) -> (Value, &'static str) {
    match turn {
        Turn::Tool { id, name, args } => {
            let mut call = json!({"id": id, "type": "function",
                "function": {"name": name, "arguments": args.to_string()}});
            if delta {
                call["index"] = json!(0);
            }
            (
                json!({"role": "assistant", "content": null, "tool_calls": [call]}),
                "tool_calls",
            )
        }
        Turn::Text(text) => (json!({"role": "assistant", "content": text}), "stop"),
    }
}

fn gemini_response(turn: &Turn) -> Value {
    let part = match turn {
        Turn::Tool { name, args, .. } => json!({"functionCall": {"name": name, "args": args}}),
        Turn::Text(text) => json!({"text": text}),
    };
    json!({"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "fake-model"})
}

/// The output of call `id` (of tool `name`) in `body`, as text.
pub fn tool_output(wire: Wire, body: &Value, id: &str, name: &str) -> Option<String> {
    match wire {
        Wire::Responses => items(&body["input"])
            .find(|i| i["type"] == "function_call_output" && i["call_id"] == id)
            .map(|i| text_of(&i["output"])),
        Wire::Chat => items(&body["messages"])
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
            .map(|m| text_of(&m["content"])),
        Wire::Anthropic => items(&body["messages"])
            .flat_map(|m| items(&m["content"]))
            .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == id)
            .map(|b| text_of(&b["content"])),
        // Gemini CLI gives the call an id of its own: the first answer of that tool.
        Wire::Gemini => items(&body["contents"])
            .flat_map(|c| items(&c["parts"]))
            .find(|p| p["functionResponse"]["name"] == name)
            .map(|p| {
                let response = &p["functionResponse"]["response"];
                match (response["output"].as_str(), response["error"].as_str()) {
                    (Some(text), _) | (None, Some(text)) => text.to_owned(),
                    (None, None) => response.to_string(),
                }
            }),
    }
}

/// The last message of `body` (a system reminder after it aside): `user`, `assistant` (Gemini's `model`) or
/// `tool`, and its text.
pub fn last_message(wire: Wire, body: &Value) -> Option<(String, String)> {
    match wire {
        Wire::Responses => {
            let item = items(&body["input"]).last()?;
            match item["type"].as_str() {
                Some("function_call_output") => Some(("tool".to_owned(), text_of(&item["output"]))),
                Some("function_call") => Some(("assistant".to_owned(), String::new())),
                _ => Some((
                    item["role"].as_str().unwrap_or_default().to_owned(),
                    text_of(&item["content"]),
                )),
            }
        }
        Wire::Chat | Wire::Anthropic => {
            let m = items(&body["messages"])
                .filter(|m| m["role"] != "system")
                .last()?;
            Some((
                m["role"].as_str().unwrap_or_default().to_owned(),
                text_of(&m["content"]),
            ))
        }
        Wire::Gemini => {
            let c = items(&body["contents"]).last()?;
            let role = match c["role"].as_str() {
                Some("model") => "assistant",
                _ if items(&c["parts"]).any(|p| p.get("functionResponse").is_some()) => "tool",
                _ => "user",
            };
            let text = items(&c["parts"])
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n");
            Some((role.to_owned(), text))
        }
    }
}

fn items(value: &Value) -> impl Iterator<Item = &Value> {
    value.as_array().into_iter().flatten()
}

/// A string, or the text of content parts (`text`, `input_text`, `output_text`) joined by line breaks.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
