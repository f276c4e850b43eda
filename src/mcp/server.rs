//! The MCP tools. Each returns its JSON as structured content (and as text); a failure is a tool error
//! (`isError: true`) carrying the same message the CLI prints, never a protocol error.

use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, Extensions, Implementation, JsonObject, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::progress;
use crate::actions::Caller;
use crate::agent::notifications;
use crate::agent::report::{AnswersReport, StatusReport};
use crate::agent::spec::{self, PlanSpec};
use crate::agent::{self, AgentError, WaitOutcome};
use crate::queue::{Loaded, Queue, StoreError};

/// `arbiter_await` waits this long when the client does not say.
pub const DEFAULT_AWAIT: Duration = Duration::from_secs(50);
/// `arbiter_await` never waits longer than this in one call (clients time requests out).
pub const MAX_AWAIT: Duration = Duration::from_secs(600);

const INSTRUCTIONS: &str = "Ask a human for decisions. Call arbiter_push with a plan (title, decisions with \
options); it returns the plan id at once. The human answers on Telegram whenever they can. Call arbiter_await \
with the id to wait for the answers (it returns after at most timeout_seconds; while the result's status is not \
`completed`, call it again). arbiter_status and arbiter_get read the current state without waiting. \
arbiter_withdraw takes back a plan nobody needs to answer any more.";

/// The arguments of `arbiter_status` and `arbiter_get`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct IdArgs {
    /// The plan id `arbiter_push` returned.
    pub id: String,
}

/// The arguments of `arbiter_await`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AwaitArgs {
    /// The plan id `arbiter_push` returned.
    pub id: String,
    /// How long to wait at most in this call, in seconds (default 50, at most 600).
    #[serde(default)]
    pub timeout_seconds: Option<u64>,
}

/// The arguments of `arbiter_withdraw`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WithdrawArgs {
    /// The plan id `arbiter_push` returned.
    pub id: String,
    /// Why it is taken back, for the human and the audit trail.
    #[serde(default)]
    pub reason: Option<String>,
}

/// What `arbiter_await` returns when the plan is not completed yet.
#[derive(Debug, Serialize)]
struct NotYet {
    #[serde(flatten)]
    plan: StatusReport,
    message: String,
}

/// The arguments of `arbiter_notifications`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NotificationsArgs {
    /// Only this session's notifications.
    #[serde(default)]
    pub session: Option<String>,
    /// Delete the listed files after returning them.
    #[serde(default)]
    pub ack: bool,
}

/// A notify file as `arbiter_notifications` returns it: its name, where it is, its text.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct NotifyFile {
    pub file: String,
    pub path: std::path::PathBuf,
    pub content: String,
}

/// The caller of a tool call: the HTTP transport hands the tool the request's `http::request::Parts`, whose
/// extensions carry what the authentication layer found; on stdio there is none, the caller is local.
fn caller_of(extensions: &Extensions) -> Caller {
    extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Caller>())
        .cloned()
        .unwrap_or(Caller::Local)
}

/// Plan `id`, if `caller` reaches it; a plan it does not reach reads as no plan at all.
fn reachable(queue: &Queue, id: &str, caller: &Caller) -> Result<Loaded, String> {
    match queue.find(id) {
        Ok(loaded) if caller.reaches(&loaded.plan) => Ok(loaded),
        Ok(_) => Err(message(&StoreError::NotFound(id.to_owned()).into())),
        Err(e) => Err(message(&e.into())),
    }
}

/// The MCP server: the queue and the tool table.
#[derive(Debug, Clone)]
pub struct ArbiterServer {
    queue: Queue,
    tool_router: ToolRouter<Self>,
}

type ToolResult = Result<CallToolResult, String>;

fn structured(value: &impl Serialize) -> ToolResult {
    serde_json::to_value(value)
        .map(CallToolResult::structured)
        .map_err(|e| format!("cannot write JSON: {e}"))
}

fn message(e: &AgentError) -> String {
    e.to_string()
}

/// Runs `work` (file I/O: it blocks) off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| format!("the tool's task failed: {e}"))?
}

/// The input schema of `arbiter_push`: the JSON plan spec (`title` + `decisions`), or an MCP elicitation request
/// (`message` + `requestedSchema`, MCP 2025-11-25) with the same optional plan keys.
fn push_schema() -> Arc<JsonObject> {
    let spec = rmcp::handler::server::common::schema_for_type::<PlanSpec>();
    let mut schema: JsonObject = (*spec).clone();
    schema.remove("required");
    if let Some(serde_json::Value::Object(properties)) = schema.get_mut("properties") {
        properties.insert(
            "message".into(),
            serde_json::json!({
                "type": "string",
                "description": "Elicitation: the request's message to the human (the plan's context; its first \
                                line the title when `title` is not given)."
            }),
        );
        properties.insert(
            "requestedSchema".into(),
            serde_json::json!({
                "type": "object",
                "description": "Elicitation: MCP's restricted object schema. Each property becomes one decision \
                                in order (string → text with minLength/maxLength/format, number/integer → \
                                number with minimum/maximum, boolean, enum/enumNames or oneOf {const,title} → \
                                choice, array of such an enum → multi with minItems/maxItems); `required` \
                                ones can't be skipped. arbiter_get/arbiter_await then carry `elicitation`: \
                                {action: accept, content} or {action: decline}."
            }),
        );
    }
    if let Some(serde_json::Value::Object(properties)) = schema.get_mut("properties") {
        properties.insert(
            "markdown".into(),
            serde_json::json!({
                "type": "string",
                "description": "The plan as a decision file (Markdown with YAML frontmatter, as `arbiter push` \
                                reads it), instead of the JSON keys."
            }),
        );
        properties.insert(
            "revise".into(),
            serde_json::json!({
                "type": "string",
                "description": "Push this plan as the next revision of the plan with this id (sent back with \
                                changes_requested, or still pending): it keeps the id, unchanged decisions keep \
                                their answers."
            }),
        );
    }
    schema.insert(
        "anyOf".into(),
        serde_json::json!([
            {"required": ["title", "decisions"]},
            {"required": ["message", "requestedSchema"]},
            {"required": ["markdown"]}
        ]),
    );
    Arc::new(schema)
}

#[tool_router]
impl ArbiterServer {
    #[must_use]
    pub fn new(queue: Queue) -> ArbiterServer {
        ArbiterServer {
            queue,
            tool_router: Self::tool_router() + Self::listing_router(),
        }
    }

    #[tool(
        description = "Put a plan of decisions in front of the human. Returns {id, path} at once; then call \
                       arbiter_await with the id. Each decision has a title and options ({key, label}); the \
                       answer is the chosen key (or the human's own text when allow_custom is true). A decision's \
                       `kind` asks for other answers: multi (min, max: a list of keys), text (min_length, \
                       max_length, format: email|uri|date|date-time), number (minimum, maximum, integer), boolean, \
                       edit (`proposal` + optional `language`, format: json; answered with the final text and \
                       `edited`). An MCP elicitation request (`message` + `requestedSchema`) is accepted too. \
                       `approvers` (names or user ids) limits who may answer; `require: N` needs N approvers to \
                       sign off. `revise: ID` pushes the next revision of plan ID (after arbiter_await returned \
                       changes_requested, or to change a pending plan): same id, unchanged decisions keep their \
                       answers.",
        input_schema = push_schema()
    )]
    async fn arbiter_push(&self, extensions: Extensions, mut args: JsonObject) -> ToolResult {
        let revise = match args.remove("revise") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(id)) => Some(id),
            Some(_) => {
                return Err(message(&AgentError::Invalid(
                    "`revise` must be a plan id (a string)".into(),
                )));
            }
        };
        let caller = caller_of(&extensions);
        let queue = self.queue.clone();
        if let Some(id) = &revise {
            let (queue, id, caller) = (queue.clone(), id.clone(), caller.clone());
            blocking(move || reachable(&queue, &id, &caller).map(drop)).await?;
        }
        // A plan as Markdown (the decision file format), as `arbiter push` reads it.
        if let Some(markdown) = args.remove("markdown") {
            let Some(text) = markdown.as_str().map(str::to_owned) else {
                return Err(message(&AgentError::Invalid(
                    "`markdown` must be the plan's text (a string)".into(),
                )));
            };
            let pushed = blocking(move || {
                let now = crate::clock::now();
                agent::push_from(&queue, &text, revise.as_deref(), caller.machine(), &now)
                    .map_err(|e| message(&e))
            })
            .await?;
            return structured(&pushed);
        }
        let mut spec = spec::from_value(serde_json::Value::Object(args))
            .map_err(|e| message(&AgentError::Invalid(e.to_string())))?;
        if let Caller::Agent(name) = &caller
            && spec.agent.is_none()
        {
            spec.agent = Some(name.clone());
        }
        spec.machine = caller.machine().map(str::to_owned);
        let pushed = blocking(move || {
            let now = crate::clock::now();
            match revise {
                Some(id) => agent::revise_spec(&queue, &id, &spec, "", &now),
                None => agent::push_spec(&queue, &spec, "", &now),
            }
            .map_err(|e| message(&e))
        })
        .await?;
        structured(&pushed)
    }

    #[tool(
        description = "A plan's status (pending, in_progress, completed, changes_requested) and its counts: total, answered, \
                          skipped, remaining."
    )]
    async fn arbiter_status(
        &self,
        extensions: Extensions,
        Parameters(args): Parameters<IdArgs>,
    ) -> ToolResult {
        let (queue, caller) = (self.queue.clone(), caller_of(&extensions));
        let loaded = blocking(move || reachable(&queue, &args.id, &caller)).await?;
        structured(&StatusReport::of(&loaded))
    }

    #[tool(
        description = "A plan's status, counts and every decision's answer so far (`answers` maps decision \
                          id to answer; null when skipped or not answered; `custom` marks the human's own text; \
                          `note` is a person's note, `delegated_to` who it was handed to; `signoffs` lists the \
                          approvers who signed off)."
    )]
    async fn arbiter_get(
        &self,
        extensions: Extensions,
        Parameters(args): Parameters<IdArgs>,
    ) -> ToolResult {
        let (queue, caller) = (self.queue.clone(), caller_of(&extensions));
        let loaded = blocking(move || reachable(&queue, &args.id, &caller)).await?;
        structured(&AnswersReport::of(&loaded))
    }

    #[tool(
        description = "Take back a pending plan nobody needs to answer any more (you moved on, or timed out):                        it leaves the human's queue with status `withdrawn` and the reason; arbiter_await on it                        then returns status withdrawn. Returns the plan's status."
    )]
    async fn arbiter_withdraw(
        &self,
        extensions: Extensions,
        Parameters(args): Parameters<WithdrawArgs>,
    ) -> ToolResult {
        let queue = self.queue.clone();
        let caller = caller_of(&extensions);
        let loaded = blocking(move || {
            reachable(&queue, &args.id, &caller)?;
            let agent = match &caller {
                Caller::Agent(name) => Some(name.as_str()),
                Caller::Local | Caller::Machine(_) => None,
            };
            let now = crate::clock::now();
            let outcome =
                crate::actions::withdraw(&queue, &args.id, agent, args.reason.as_deref(), &now);
            crate::agent::reply::withdrawn(&queue, &args.id, outcome).map_err(|e| message(&e))
        })
        .await?;
        structured(&StatusReport::of(&loaded))
    }

    #[tool(
        description = "Wait until the human has submitted the plan, at most timeout_seconds (default 50, max \
                          600). Returns the answers like arbiter_get when completed; when the human sent it \
                          back, at once with `status` changes_requested and `feedback` (what to change): push a \
                          revision with arbiter_push and `revise` set to the id; when it was withdrawn, \
                          with `status` withdrawn; otherwise the status with \
                          `status` pending or in_progress: call again. With a progressToken it sends \
                          notifications/progress while it waits (at once, then every 15 s)."
    )]
    async fn arbiter_await(
        &self,
        extensions: Extensions,
        Parameters(args): Parameters<AwaitArgs>,
        context: RequestContext<RoleServer>,
    ) -> ToolResult {
        let (queue, id, caller) = (self.queue.clone(), args.id.clone(), caller_of(&extensions));
        blocking(move || reachable(&queue, &id, &caller).map(drop)).await?;
        let timeout = args
            .timeout_seconds
            .map_or(DEFAULT_AWAIT, Duration::from_secs)
            .min(MAX_AWAIT);
        let wait = agent::wait_for_completion(&self.queue, &args.id, Some(timeout));
        // With a progressToken, report while waiting; the reports stop when the wait ends.
        let outcome = match context.meta.get_progress_token() {
            Some(token) => {
                let reports = progress::Reporter {
                    peer: context.peer.clone(),
                    token,
                    queue: self.queue.clone(),
                    plan_id: args.id.clone(),
                    timeout,
                }
                .run();
                tokio::select! {
                    outcome = wait => outcome,
                    never = reports => match never {},
                }
            }
            None => wait.await,
        };
        match outcome {
            Ok(
                WaitOutcome::Completed(loaded)
                | WaitOutcome::ChangesRequested(loaded)
                | WaitOutcome::Withdrawn(loaded),
            ) => structured(&AnswersReport::of(&loaded)),
            Ok(WaitOutcome::TimedOut(loaded)) => structured(&NotYet {
                plan: StatusReport::of(&loaded),
                message: format!(
                    "not completed after {}s; call arbiter_await again",
                    timeout.as_secs()
                ),
            }),
            Err(e) => Err(message(&e)),
        }
    }
}

#[tool_router(router = listing_router, vis = "pub(super)")]
impl ArbiterServer {
    #[tool(
        description = "The pending plans (the caller's own, for a machine's token), most urgent first, then \
                          oldest first: `plans`, each as arbiter_status reports it."
    )]
    async fn arbiter_list(&self, extensions: Extensions) -> ToolResult {
        let (queue, caller) = (self.queue.clone(), caller_of(&extensions));
        let plans = blocking(move || {
            let scan = queue.scan_pending().map_err(|e| message(&e.into()))?;
            let mut plans: Vec<&Loaded> = scan
                .plans
                .iter()
                .map(AsRef::as_ref)
                .filter(|l| caller.reaches(&l.plan))
                .collect();
            plans.sort_by(|a, b| {
                (a.plan.priority, &a.plan.created_at).cmp(&(b.plan.priority, &b.plan.created_at))
            });
            Ok(plans.into_iter().map(StatusReport::of).collect::<Vec<_>>())
        })
        .await?;
        structured(&serde_json::json!({ "plans": plans }))
    }

    #[tool(
        description = "The notification files of completed plans (the caller's own, for a machine's token), \
                          all or one session's: `notifications`, each {file, path, content}; with `ack`, they \
                          are deleted once returned."
    )]
    async fn arbiter_notifications(
        &self,
        extensions: Extensions,
        Parameters(args): Parameters<NotificationsArgs>,
    ) -> ToolResult {
        let (queue, caller) = (self.queue.clone(), caller_of(&extensions));
        let files = blocking(move || {
            let found = notifications::list(&queue.notify_dir(), args.session.as_deref())
                .map_err(|e| message(&e))?;
            let mut out = Vec::new();
            for n in found {
                let plan = n.report().ok().and_then(|r| r.plan_id);
                let theirs = match (&caller, plan) {
                    (Caller::Local | Caller::Agent(_), _) => true,
                    (Caller::Machine(_), Some(id)) => reachable(&queue, &id, &caller).is_ok(),
                    (Caller::Machine(_), None) => false,
                };
                if !theirs {
                    continue;
                }
                if args.ack {
                    n.ack(&queue).map_err(|e| message(&e))?;
                }
                out.push(NotifyFile {
                    file: n.file,
                    path: n.path,
                    content: n.content,
                });
            }
            Ok(out)
        })
        .await?;
        structured(&serde_json::json!({ "notifications": files }))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for ArbiterServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("arbiter", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}
