//! Who answers a plan: `approvers`, `require` (how many distinct approvers sign off) and the `signoffs` so far.
//! Names are resolved against the config's `people` by the action layer; the core only reads what is written.

use serde_yaml::{Mapping, Value};

use super::Diagnostic;

/// A plan's people keys. A plan without them has `Approval::default()`: every allowed user approves, one
/// Submit completes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approval {
    /// `approvers` as written: names from the config's `people`, or user ids. Empty: every allowed user.
    pub approvers: Vec<String>,
    /// 1-based line of `approvers` (0 when absent), for diagnoses that need the config to tell.
    pub approvers_line: usize,
    /// `require`: distinct approvers who must sign off before the plan is submitted (at least 1).
    pub require: usize,
    /// 1-based line of `require` (0 when absent).
    pub require_line: usize,
    /// `signoffs`: user ids of the approvers who signed off, in order. Owned by the daemon.
    pub signoffs: Vec<u64>,
}

impl Default for Approval {
    fn default() -> Approval {
        Approval {
            approvers: Vec::new(),
            approvers_line: 0,
            require: 1,
            require_line: 0,
            signoffs: Vec::new(),
        }
    }
}

impl Approval {
    /// True when Submit records sign-offs instead of completing at once.
    #[must_use]
    pub fn needs_signoffs(&self) -> bool {
        self.require > 1
    }
}

/// Reads the people keys of a frontmatter mapping (`line_of(key)` is a key's 1-based line).
pub fn read(map: &Mapping, line_of: impl Fn(&str) -> usize) -> Result<Approval, Diagnostic> {
    let bad = |key: &str, reason: String| Diagnostic::new(line_of(key), reason);
    let line = |key: &str| {
        if map.contains_key(key) {
            line_of(key)
        } else {
            0
        }
    };
    let approvers = people("approvers", map.get("approvers")).map_err(|r| bad("approvers", r))?;
    let require = match map.get("require") {
        None | Some(Value::Null) => 1,
        Some(Value::Number(n)) if n.as_u64().is_some_and(|n| (1..=1000).contains(&n)) => {
            usize::try_from(n.as_u64().unwrap_or(1)).unwrap_or(1)
        }
        Some(_) => {
            return Err(bad(
                "require",
                "`require` must be a whole number of approvers, at least 1".to_owned(),
            ));
        }
    };
    let mut distinct = approvers.clone();
    distinct.sort();
    distinct.dedup();
    if !approvers.is_empty() && require > distinct.len() {
        return Err(bad(
            "require",
            format!(
                "`require: {require}` needs more sign-offs than the plan has approvers ({})",
                distinct.len()
            ),
        ));
    }
    let signoffs = match map.get("signoffs") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Sequence(items)) => items
            .iter()
            .map(|v| v.as_u64().filter(|id| *id > 0))
            .collect::<Option<Vec<u64>>>()
            .ok_or_else(|| {
                bad(
                    "signoffs",
                    "`signoffs` must list Telegram user ids (numbers)".to_owned(),
                )
            })?,
        Some(_) => {
            return Err(bad(
                "signoffs",
                "`signoffs` must be a list of Telegram user ids, like [93533553]".to_owned(),
            ));
        }
    };
    Ok(Approval {
        approvers,
        approvers_line: line("approvers"),
        require,
        require_line: line("require"),
        signoffs,
    })
}

/// A list of people (`approvers`, `escalate_to`): names or user ids, one value or a list of them.
pub fn people(key: &str, value: Option<&Value>) -> Result<Vec<String>, String> {
    let one = |v: &Value| match v {
        Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_owned()),
        Value::Number(n) if n.as_u64().is_some() => Ok(n.to_string()),
        _ => Err(format!(
            "`{key}` must list people: names from the config's `people`, or Telegram user ids"
        )),
    };
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Sequence(items)) => items.iter().map(one).collect(),
        Some(v) => one(v).map(|p| vec![p]),
    }
}

/// `signoffs` as written by the daemon: a flow list of user ids on one line (`[]` when cleared).
#[must_use]
pub fn signoffs_yaml(ids: &[u64]) -> String {
    let ids: Vec<String> = ids.iter().map(u64::to_string).collect();
    format!("[{}]", ids.join(", "))
}
