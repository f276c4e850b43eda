//! The YAML frontmatter between the leading `---` lines.

use std::ops::Range;

use serde_yaml::{Mapping, Value};

use super::people::{self, Approval};
use super::timing::{self, Timing};
use super::{Diagnostic, Feedback, PlanStatus, Priority, Ruling, Withdrawal};
use super::{fast_yaml, lines};
use crate::serde_message::without_position;

/// The frontmatter fields the core understands; unknown keys stay in the file untouched.
#[derive(Debug, Default)]
pub struct Frontmatter {
    pub id: Option<String>,
    pub title: Option<String>,
    pub priority: Priority,
    pub status: PlanStatus,
    pub tag: Option<String>,
    pub agent: Option<String>,
    /// `machine`: the machine whose token pushed the plan (MCP over HTTP), written by the daemon.
    pub machine: Option<String>,
    pub session: Option<String>,
    pub notify_session: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    pub completed_at: Option<String>,
    pub timing: Timing,
    pub approval: Approval,
    /// `elicitation: true`: the plan is an MCP elicitation request (it may be declined).
    pub elicitation: bool,
    /// `outcome`: how a completed plan ended when not by a submit (`declined`).
    pub outcome: Option<String>,
    /// `revision` (default 1).
    pub revision: u32,
    /// `feedback`, `feedback_by`, `feedback_at`.
    pub feedback: Option<Feedback>,
    /// `withdrawn_at`, `withdrawn_by`, `withdraw_reason`.
    pub withdrawal: Option<Withdrawal>,
    /// `project`.
    pub project: Option<String>,
    /// `rule_tool`, `rule_command`, `grant_minutes`.
    pub ruling: Option<Ruling>,
    /// `reply_to`: the plan this one follows up (an agent's finished card: the session's previous card).
    pub reply_to: Option<String>,
    /// 0-based line indices of the YAML text.
    pub lines: Range<usize>,
    /// 0-based index of the first body line (after the closing `---`).
    pub body_start: usize,
    /// The whole mapping as YAML read it (edits check that they leave the keys they don't own alone).
    pub map: Mapping,
}

/// Characters YAML takes for a line break that do not end a line of the file.
const YAML_ONLY_BREAKS: [char; 4] = ['\r', '\u{85}', '\u{2028}', '\u{2029}'];

/// Finds and reads the frontmatter of a file split into lines.
pub fn parse(all: &[&str]) -> Result<Frontmatter, Diagnostic> {
    let first = all
        .first()
        .map(|l| lines::content(l).trim_start_matches('\u{feff}').trim_end());
    if first != Some("---") {
        return Err(Diagnostic::new(
            1,
            "no frontmatter: the file must start with a `---` line, then YAML, then `---`",
        ));
    }
    let close = all
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, l)| matches!(lines::content(l).trim_end(), "---" | "..."))
        .map(|(i, _)| i)
        .ok_or_else(|| Diagnostic::new(1, "unterminated frontmatter: no closing `---` line"))?;
    // YAML also breaks lines at a lone CR, NEL, U+2028 and U+2029; these files break only at LF. A key YAML
    // sees on the same file line as another would be rewritten away by an edit of that line.
    if let Some(i) = (1..close).find(|&i| lines::content(all[i]).contains(YAML_ONLY_BREAKS)) {
        return Err(Diagnostic::new(
            i + 1,
            "a line break other than LF or CRLF (a lone CR, U+0085, U+2028 or U+2029) in the frontmatter: \
             save the file with LF or CRLF line endings",
        ));
    }
    // The common shapes are read without serde_yaml, exactly as it reads them; anything else goes to it.
    let mapping = match fast_yaml::mapping(&all[1..close]) {
        Some(mapping) => mapping,
        None => yaml_mapping(&all[1..close])?,
    };
    let key_line = |key: &str| -> usize {
        (1..close)
            .find(|&i| {
                let c = lines::content(all[i]);
                c.strip_prefix(key)
                    .is_some_and(|rest| rest.trim_start().starts_with(':'))
            })
            .map_or(1, |i| i + 1)
    };
    let text = |key: &str| -> Result<Option<String>, Diagnostic> {
        match mapping.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => Err(Diagnostic::new(
                key_line(key),
                format!("`{key}` must be a single value, not a list or a map"),
            )),
        }
    };
    let priority = match text("priority")? {
        None => Priority::default(),
        Some(p) => Priority::parse(&p).ok_or_else(|| {
            Diagnostic::new(
                key_line("priority"),
                format!("unknown priority `{p}`: use low, normal, high or urgent"),
            )
        })?,
    };
    let status = match text("status")? {
        None => PlanStatus::default(),
        Some(s) => PlanStatus::parse(&s).ok_or_else(|| {
            Diagnostic::new(
                key_line("status"),
                format!(
                    "unknown status `{s}`: use pending, in_progress, completed or changes_requested"
                ),
            )
        })?,
    };
    let id = text("id")?;
    if id.as_deref().is_some_and(|id| id.trim().is_empty()) {
        return Err(Diagnostic::new(key_line("id"), "`id` is empty"));
    }
    let elicitation = match text("elicitation")?.as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(Diagnostic::new(
                key_line("elicitation"),
                format!("`elicitation` must be true or false, not `{other}`"),
            ));
        }
    };
    let outcome = text("outcome")?;
    let revision = match text("revision")? {
        None => 1,
        Some(r) => r.parse::<u32>().ok().filter(|r| *r >= 1).ok_or_else(|| {
            Diagnostic::new(
                key_line("revision"),
                format!("`revision` must be a whole number from 1, not `{r}`"),
            )
        })?,
    };
    let feedback = match text("feedback")? {
        None => None,
        Some(text_) => Some(Feedback {
            text: text_,
            by: text("feedback_by")?,
            at: text("feedback_at")?,
        }),
    };
    let withdrawal = match (text("withdrawn_at")?, text("withdrawn_by")?) {
        (None, None) => None,
        (at, by) => Some(Withdrawal {
            by,
            at,
            reason: text("withdraw_reason")?,
        }),
    };
    let ruling = match (text("rule_tool")?, text("rule_command")?) {
        (Some(tool), Some(command)) => Some(Ruling {
            tool,
            command,
            grant_minutes: match text("grant_minutes")? {
                None => None,
                Some(m) => Some(m.parse::<u32>().ok().filter(|m| *m >= 1).ok_or_else(|| {
                    Diagnostic::new(
                        key_line("grant_minutes"),
                        format!("`grant_minutes` must be a whole number from 1, not `{m}`"),
                    )
                })?),
            },
        }),
        (None, None) => None,
        (Some(_), None) | (None, Some(_)) => {
            return Err(Diagnostic::new(
                key_line(if text("rule_tool")?.is_some() {
                    "rule_tool"
                } else {
                    "rule_command"
                }),
                "`rule_tool` and `rule_command` go together: give both or neither",
            ));
        }
    };
    let timing = timing::read(&mapping, text, key_line)?;
    let approval = people::read(&mapping, key_line)?;
    Ok(Frontmatter {
        id,
        title: text("title")?,
        priority,
        status,
        tag: text("tag")?,
        agent: text("agent")?,
        machine: text("machine")?,
        session: text("session")?,
        notify_session: text("notify_session")?,
        created_at: text("created_at")?,
        updated_at: text("updated_at")?,
        completed_at: text("completed_at")?,
        timing,
        approval,
        elicitation,
        outcome,
        revision,
        feedback,
        withdrawal,
        project: text("project")?,
        ruling,
        reply_to: text("reply_to")?,
        lines: 1..close,
        body_start: close + 1,
        map: mapping,
    })
}

/// The frontmatter's YAML text (the lines between the `---` lines) read by serde_yaml.
fn yaml_mapping(block: &[&str]) -> Result<Mapping, Diagnostic> {
    let yaml: String = block.concat();
    let value: Value = serde_yaml::from_str(&yaml).map_err(|e| {
        let line = e.location().map_or(1, |l| l.line()) + 1;
        Diagnostic::new(
            line,
            format!(
                "invalid YAML in frontmatter: {}",
                // The diagnostic carries the line itself.
                without_position(&e.to_string())
            ),
        )
    })?;
    match value {
        Value::Null => Ok(Mapping::new()),
        Value::Mapping(m) => Ok(m),
        _ => Err(Diagnostic::new(2, "frontmatter must be `key: value` lines")),
    }
}
