//! ACP as one more dialect of the hook core: a `session/request_permission` is a [`Prompt::Permission`] whose
//! answers are the ones the agent offered, and a verdict is answered with the `optionId` of the offered option of
//! its kind. Arbiter never answers with an id the agent did not send (Qwen Code fails the turn on one).

use serde_json::{Map, Value, json};

use crate::agent::hook::core::change::{self, Change};
use crate::agent::hook::core::permission::{ALLOW, DENY};
use crate::agent::hook::core::ruling::ALWAYS;
use crate::agent::hook::core::{
    Act, Agent, Dialect, Event, Grants, InputError, Offered, Origin, Prompt, SessionGrant,
    ToolCall, Verdict,
};
use crate::agent::hook::install::{Install, Layout};
use crate::plan::{DecisionStatus, Plan};

/// The plan's option keys for the agent's `allow_always` and `reject_always` (`allow_once` is the core's
/// [`ALLOW`], `reject_once` its [`DENY`]).
pub const AGENT_ALWAYS: &str = "agent-always";
pub const DENY_ALWAYS: &str = "deny-always";

/// What an option of the agent's does (ACP's `PermissionOptionKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    AllowOnce,
    AllowAlways,
    RejectOnce,
    RejectAlways,
}

impl Kind {
    fn read(kind: &str) -> Option<Kind> {
        Some(match kind {
            "allow_once" => Kind::AllowOnce,
            "allow_always" => Kind::AllowAlways,
            "reject_once" => Kind::RejectOnce,
            "reject_always" => Kind::RejectAlways,
            _ => return None,
        })
    }

    /// The plan's option key for this kind.
    fn key(self) -> &'static str {
        match self {
            Kind::AllowOnce => ALLOW,
            Kind::AllowAlways => AGENT_ALWAYS,
            Kind::RejectOnce => DENY,
            Kind::RejectAlways => DENY_ALWAYS,
        }
    }
}

/// One option the agent offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentOption {
    pub id: String,
    pub kind: Kind,
}

/// A permission request, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub call: ToolCall,
    pub options: Vec<AgentOption>,
}

impl Request {
    /// The id of the first option the agent offered of `kind`.
    #[must_use]
    pub fn option(&self, kind: Kind) -> Option<&str> {
        self.options
            .iter()
            .find(|o| o.kind == kind)
            .map(|o| o.id.as_str())
    }

    /// The answer to the agent's request: the `optionId` of the offered option that `kind` names, or, when the agent
    /// offered none of that kind, the nearest it did (an allow for an allow, a denial for a denial); `None` when it
    /// offered nothing of the sort (the editor answers then).
    #[must_use]
    pub fn answer(&self, kind: Kind) -> Option<Value> {
        let nearest: &[Kind] = match kind {
            Kind::AllowOnce => &[Kind::AllowOnce],
            Kind::AllowAlways => &[Kind::AllowAlways, Kind::AllowOnce],
            Kind::RejectOnce => &[Kind::RejectOnce, Kind::RejectAlways],
            Kind::RejectAlways => &[Kind::RejectAlways, Kind::RejectOnce],
        };
        let id = nearest.iter().find_map(|k| self.option(*k))?;
        Some(json!({"outcome": {"outcome": "selected", "optionId": id}}))
    }
}

/// The agent behind the relay: its names, as the plans and cards show them.
#[derive(Debug, Clone, Copy)]
pub struct Acp {
    pub agent: Agent,
}

/// The most agent names a process keeps.
pub const NAMES_KEPT: usize = 256;
/// The longest agent name or title kept (characters).
const NAME_MAX: usize = 80;

impl Acp {
    /// The dialect of the agent called `name` (`agentInfo.name`, or `--agent-name`); `title` is what people know it
    /// by when the agent says (`agentInfo.title`). Names are kept for the process's life, each once (a relay has
    /// one agent; a daemon answering relays on other machines keeps at most [`NAMES_KEPT`], then calls the others
    /// by a plain name).
    #[must_use]
    pub fn named(name: &str, title: Option<&str>) -> Acp {
        use std::collections::HashMap;
        use std::sync::{Mutex, PoisonError};
        type Names = HashMap<(String, Option<String>), Acp>;
        static KEPT: Mutex<Option<Names>> = Mutex::new(None);
        let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = kept.get_or_insert_with(HashMap::new);
        let key = (name.to_owned(), title.map(str::to_owned));
        if let Some(acp) = kept.get(&key) {
            return *acp;
        }
        if kept.len() >= NAMES_KEPT {
            return Acp {
                agent: Agent {
                    name: "acp-agent",
                    display: "The agent",
                    short: "The agent",
                },
            };
        }
        let acp = Acp::new(name, title);
        kept.insert(key, acp);
        acp
    }

    fn new(name: &str, title: Option<&str>) -> Acp {
        let name: String = name.chars().take(NAME_MAX).collect();
        let title: Option<String> = title.map(|t| t.chars().take(NAME_MAX).collect());
        let (name, title) = (name.as_str(), title.as_deref());
        let slug = crate::plan::slug::slug(name);
        let slug = if slug.is_empty() {
            "acp-agent".to_owned()
        } else {
            slug
        };
        let display = title
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .unwrap_or(name.trim());
        let display = if display.is_empty() {
            "The agent"
        } else {
            display
        };
        let short: &'static str = Box::leak(display.to_owned().into_boxed_str());
        Acp {
            agent: Agent {
                name: Box::leak(slug.into_boxed_str()),
                display: short,
                short,
            },
        }
    }

    /// Reads a `session/request_permission`'s params; `cwd` is the session's folder (from its `session/new`).
    pub fn request(&self, params: &Value, cwd: Option<&str>) -> Result<Request, String> {
        let session = params.get("sessionId").and_then(Value::as_str);
        let tool_call = params
            .get("toolCall")
            .and_then(Value::as_object)
            .ok_or("a permission request without its toolCall")?;
        let mut options = Vec::new();
        let mut offered = Vec::new();
        for option in params
            .get("options")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let (Some(id), Some(kind)) = (
                option.get("optionId").and_then(Value::as_str),
                option
                    .get("kind")
                    .and_then(Value::as_str)
                    .and_then(Kind::read),
            ) else {
                continue;
            };
            if !options.iter().any(|o: &AgentOption| o.kind == kind) {
                offered.push(Offered {
                    key: kind.key(),
                    label: self.label(kind),
                });
            }
            options.push(AgentOption {
                id: id.to_owned(),
                kind,
            });
        }
        if options.is_empty() {
            return Err("a permission request offering no option Arbiter knows".to_owned());
        }
        let title = tool_call
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let kind = tool_call
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("other");
        let raw = match tool_call.get("rawInput") {
            Some(Value::Object(raw)) => raw.clone(),
            _ => Map::new(),
        };
        let act = act(tool_call, &raw, cwd);
        let tool = if title.trim().is_empty() {
            kind.to_owned()
        } else {
            title.to_owned()
        };
        let mut input = raw;
        input
            .entry("kind")
            .or_insert_with(|| Value::String(kind.to_owned()));
        let reason = ["description", "reason", "justification"]
            .iter()
            .find_map(|k| input.get(*k)?.as_str().map(str::to_owned));
        let call = ToolCall {
            origin: Origin {
                agent: self.agent,
                session: session.map(str::to_owned),
                cwd: cwd.map(str::to_owned),
            },
            event: Event::Permission,
            tool,
            input,
            act,
            reason,
            grants: Grants {
                session: SessionGrant::None,
                offered,
                ..Grants::default()
            },
        };
        Ok(Request { call, options })
    }

    fn label(&self, kind: Kind) -> String {
        match kind {
            Kind::AllowOnce => "✅ Allow once".to_owned(),
            Kind::AllowAlways => format!("✅ Always ({}'s own rule)", self.agent.display),
            Kind::RejectOnce => "❌ Deny".to_owned(),
            Kind::RejectAlways => "❌ Deny always".to_owned(),
        }
    }
}

/// What the call does: a command (`rawInput.command`), the `diff` content items as one change, or anything else.
fn act(tool_call: &Map<String, Value>, raw: &Map<String, Value>, cwd: Option<&str>) -> Act {
    let diffs: Vec<Change> = tool_call
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("diff"))
        .filter_map(|item| {
            let path = item.get("path")?.as_str()?;
            let new = item
                .get("newText")
                .and_then(Value::as_str)
                .unwrap_or_default();
            Some(match item.get("oldText").and_then(Value::as_str) {
                Some(old) => Change {
                    files: vec![path.to_owned()],
                    diff: change::unified(old, new, &format!("a/{path}"), &format!("b/{path}")),
                    note: None,
                },
                None => change::write(path, cwd, new),
            })
        })
        .collect();
    if !diffs.is_empty() {
        return Act::Change(Change {
            files: diffs.iter().flat_map(|d| d.files.clone()).collect(),
            diff: diffs.iter().map(|d| d.diff.as_str()).collect(),
            note: None,
        });
    }
    let command = match raw.get("command") {
        Some(Value::String(command)) => Some(command.clone()),
        // Some agents send the argv: shown joined, as a shell would read it.
        Some(Value::Array(argv)) => Some(
            argv.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    };
    match command.filter(|c| !c.trim().is_empty()) {
        Some(command) => Act::Command {
            command,
            editable: false,
        },
        None => Act::Other,
    }
}

/// The kind of option the owner's answer on a completed permission plan names: `🔁 Always allow this` allows
/// this call once (its rule answers the next ones); a typed answer or a skip denies (ACP carries no reason).
#[must_use]
pub fn answered(plan: &Plan) -> Kind {
    let Some(decision) = plan.decision(crate::agent::hook::core::permission::DECISION_ID) else {
        return Kind::RejectOnce;
    };
    match (decision.status, decision.answer.as_deref()) {
        (DecisionStatus::Answered, Some(ALLOW | ALWAYS)) => Kind::AllowOnce,
        (DecisionStatus::Answered, Some(AGENT_ALWAYS)) => Kind::AllowAlways,
        (DecisionStatus::Answered, Some(DENY_ALWAYS)) => Kind::RejectAlways,
        _ => Kind::RejectOnce,
    }
}

impl Dialect for Acp {
    fn agent(&self) -> Agent {
        self.agent
    }

    fn parse(&self, text: &str, _event: Option<&str>) -> Result<Prompt, InputError> {
        let params: Value = serde_json::from_str(text).map_err(|e| InputError {
            answer_as: Some(Event::Permission),
            reason: format!("the permission request is not JSON: {e}"),
        })?;
        self.request(&params, None)
            .map(|r| Prompt::Permission(r.call))
            .map_err(|reason| InputError {
                answer_as: Some(Event::Permission),
                reason,
            })
    }

    /// The kind of option to answer with (`allow_once`, `reject_once`), which the relay turns into the agent's own
    /// `optionId`; nothing for "no decision" (the editor answers).
    fn render(&self, _event: Event, verdict: &Verdict) -> Option<String> {
        match verdict {
            Verdict::Allow { .. } => Some("allow_once".to_owned()),
            Verdict::Deny { .. } => Some("reject_once".to_owned()),
            Verdict::Ask { .. } | Verdict::Form(_) | Verdict::Continue { .. } | Verdict::Stop => {
                None
            }
        }
    }

    fn no_decision(&self, _event: Event) -> &'static str {
        "leave it to the editor"
    }

    /// An ACP agent has no hooks: the editor starts `arbiter acp` instead.
    fn install(&self) -> Install {
        Install {
            user_file: None,
            project_file: "",
            layout: Layout::Flat,
            hooks: &[],
            enable: None,
            pass_event: false,
            notes: &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::hook::core::PlanOptions;

    fn gemini() -> Acp {
        Acp::named("gemini-cli", Some("Gemini CLI"))
    }

    fn request(options: Value, tool_call: Value) -> Request {
        let params = json!({"sessionId": "s1", "toolCall": tool_call, "options": options});
        gemini().request(&params, Some("/home/dev/shop")).unwrap()
    }

    fn gemini_options() -> Value {
        json!([
            {"optionId": "proceed_always", "name": "Always Allow", "kind": "allow_always"},
            {"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
            {"optionId": "cancel", "name": "Reject", "kind": "reject_once"}
        ])
    }

    #[test]
    fn a_shell_command_is_a_permission_plan_with_the_agents_options() {
        let r = request(
            gemini_options(),
            json!({"toolCallId": "t1", "title": "touch a.txt", "kind": "execute",
                "rawInput": {"command": "touch a.txt", "description": "Make a file"}}),
        );
        assert_eq!(
            r.call.act,
            Act::Command {
                command: "touch a.txt".into(),
                editable: false
            }
        );
        let spec =
            crate::agent::hook::core::permission::plan_spec(&r.call, &PlanOptions::default());
        let labels: Vec<_> = spec.decisions[0]
            .options
            .iter()
            .map(|o| o.label.clone().unwrap_or_default())
            .collect();
        assert_eq!(
            labels,
            [
                "✅ Always (Gemini CLI's own rule)",
                "✅ Allow once",
                "🔁 Always allow this",
                "❌ Deny"
            ]
        );
        assert_eq!(spec.agent.as_deref(), Some("gemini-cli"));
        assert_eq!(spec.session.as_deref(), Some("s1"));
        assert_eq!(spec.tag.as_deref(), Some("shop"));
    }

    #[test]
    fn only_an_offered_id_answers() {
        // Qwen Code: two allow_once options, no allow_always; it fails the turn on any other id.
        let r = request(
            json!([
                {"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
                {"optionId": "proceed_once_and_switch_to_default", "name": "x", "kind": "allow_once"},
                {"optionId": "cancel", "name": "Reject", "kind": "reject_once"},
                {"optionId": "weird", "name": "?", "kind": "something_new"}
            ]),
            json!({"title": "ls", "rawInput": {"command": "ls"}}),
        );
        let id = |kind| r.answer(kind).map(|v| v["outcome"]["optionId"].clone());
        assert_eq!(id(Kind::AllowOnce), Some(json!("proceed_once")));
        assert_eq!(id(Kind::AllowAlways), Some(json!("proceed_once")));
        assert_eq!(id(Kind::RejectAlways), Some(json!("cancel")));
        let no_deny = request(
            json!([{"optionId": "once", "name": "Allow", "kind": "allow_once"}]),
            json!({"title": "ls"}),
        );
        assert_eq!(no_deny.answer(Kind::RejectOnce), None);
    }

    #[test]
    fn diff_items_are_one_change() {
        let r = request(
            gemini_options(),
            json!({"title": "Edit a.txt", "kind": "edit", "content": [
                {"type": "diff", "path": "/p/a.txt", "oldText": "one\n", "newText": "two\n"},
                {"type": "content", "content": {"type": "text", "text": "hi"}}
            ]}),
        );
        let Act::Change(change) = &r.call.act else {
            panic!("{:?}", r.call.act)
        };
        assert_eq!(change.files, ["/p/a.txt"]);
        assert!(change.diff.contains("-one\n+two\n"), "{}", change.diff);
    }

    #[test]
    fn a_request_arbiter_cannot_read_says_why() {
        let acp = gemini();
        assert!(acp.request(&json!({"options": []}), None).is_err());
        assert!(
            acp.request(
                &json!({"toolCall": {}, "options": [{"optionId": "x", "kind": "?"}]}),
                None
            )
            .is_err()
        );
    }
}
