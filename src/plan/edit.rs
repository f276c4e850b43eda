//! Edits as pure functions over the file text: only the lines that change are rewritten.

use std::ops::Range;

use super::lines;
use super::parse::meta_key;
use serde_yaml::{Mapping, Value};

use super::parse::parse_with_frontmatter;
use super::{DecisionStatus, Diagnostic, Plan, PlanStatus, people, timing, yaml_value};

/// A change the human asked for. `Answer` carries the label the human saw, so a tap on a view that the agent has
/// since changed records nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    Answer {
        decision: String,
        key: String,
        label: String,
    },
    Custom {
        decision: String,
        text: String,
    },
    Skip {
        decision: String,
    },
    Submit,
    /// The deadline passed (`on_deadline: submit`): every pending decision gets its `default` (answered) or is
    /// skipped, then the plan is submitted — in one write.
    Deadline,
    /// A reminder was sent: `reminded_at` (frontmatter) is set to now; nothing else changes.
    Reminded,
    /// The plan was escalated: `escalated_at` (frontmatter) is set to now; nothing else changes.
    Escalated,
    /// A note on a decision (`note`), exactly as typed; the answer is left as it is.
    Note {
        decision: String,
        text: String,
    },
    /// The decision is delegated: `delegated_to` and `delegated_by` (user ids).
    Delegate {
        decision: String,
        to: u64,
        by: u64,
    },
    /// The delegation is taken back: `delegated_to` is cleared (`delegated_by` stays, the audit trail).
    TakeBack {
        decision: String,
    },
    /// An approver signs off (`require` > 1): `user` joins `signoffs`; the sign-off that reaches `require`
    /// also submits the plan. `answers` is what the approver saw (each decision's id, status and answer): if the
    /// file holds anything else, nothing is recorded.
    SignOff {
        user: u64,
        answers: Vec<(String, DecisionStatus, Option<String>)>,
    },
}

impl Edit {
    /// True for the edits that always complete the plan (a sign-off completes it when it is the last one
    /// needed: the edited plan's status says).
    #[must_use]
    pub fn submits(&self) -> bool {
        matches!(self, Edit::Submit | Edit::Deadline)
    }
}

/// Why an edit was not applied. The display text is what the user reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("the plan file can't be read: {0}")]
    Invalid(Diagnostic),
    #[error("decision `{decision}` is no longer in the plan")]
    DecisionGone { decision: String },
    #[error("option `{key}` of decision `{decision}` changed since it was shown")]
    OptionChanged { decision: String, key: String },
    #[error("an answer can't be empty")]
    EmptyAnswer,
    #[error("{remaining} decision(s) still pending: answer or skip them before submitting")]
    NotFinished { remaining: usize },
    #[error("the plan is already submitted")]
    Completed,
    #[error("nothing is due for the clock to do on this plan now")]
    NotDue,
    #[error("a note can't be empty")]
    EmptyNote,
    #[error("you already signed off this plan")]
    AlreadySigned,
    #[error("the answers changed since they were shown for sign-off")]
    AnswersChanged,
    #[error("the edit would leave the file unreadable ({0}); nothing was written")]
    WouldCorrupt(Diagnostic),
}

impl EditError {
    /// True when the file changed under the human's eyes: the view must be redrawn, nothing was recorded.
    #[must_use]
    pub fn is_stale(&self) -> bool {
        matches!(
            self,
            EditError::DecisionGone { .. }
                | EditError::OptionChanged { .. }
                | EditError::AnswersChanged
        )
    }
}

/// Applies `edit` to the file `text`, stamping `by` (Telegram user id) and `now` (RFC 3339); returns the new text.
///
/// Decision lines (`status`, `answer`, `answered_at`, `answered_by`) and the frontmatter's `status`, `total`,
/// `answered`, `remaining`, `updated_at` (and `completed_at` on submit) are rewritten or inserted; every other
/// byte stays as it was.
pub fn apply(
    text: &str,
    stem: &str,
    edit: &Edit,
    by: Option<&str>,
    now: &str,
) -> Result<String, EditError> {
    apply_parsed(text, stem, edit, by, now).map(|(new_text, _)| new_text)
}

/// [`apply`], also returning the edited text as parsed by its read-back check: the text is parsed once before
/// the edit and once after (the check), and the caller needs no third parse.
pub fn apply_parsed(
    text: &str,
    stem: &str,
    edit: &Edit,
    by: Option<&str>,
    now: &str,
) -> Result<(String, Plan), EditError> {
    let parsed = Parsed::parse(text, stem).map_err(EditError::Invalid)?;
    apply_to(text, &parsed, stem, edit, by, now)
}

/// A plan file as parsed for an edit: the plan, and its frontmatter as YAML read it (an edit checks every key
/// of it after the edit). A caller that must look at the plan before deciding on the edit parses once.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub plan: Plan,
    frontmatter: Mapping,
}

impl Parsed {
    /// Parses the file `text`; `stem` (the file name without `.md`) is the id when the frontmatter has none.
    pub fn parse(text: &str, stem: &str) -> Result<Parsed, Diagnostic> {
        let (plan, frontmatter) = parse_with_frontmatter(text, stem)?;
        Ok(Parsed { plan, frontmatter })
    }
}

/// [`apply_parsed`] on a file already parsed: `parsed` must be `text` as [`Parsed::parse`] read it.
pub fn apply_to(
    text: &str,
    parsed: &Parsed,
    stem: &str,
    edit: &Edit,
    by: Option<&str>,
    now: &str,
) -> Result<(String, Plan), EditError> {
    if *edit == Edit::Deadline {
        return apply_deadline(text, &parsed.plan, stem, by, now);
    }
    let (plan, before) = (&parsed.plan, &parsed.frontmatter);
    if plan.status == PlanStatus::Completed {
        return Err(EditError::Completed);
    }
    let due = due_now(plan, now);
    if (*edit == Edit::Reminded && !due.remind) || (*edit == Edit::Escalated && !due.escalate) {
        return Err(EditError::NotDue);
    }
    let mut file = Lines::new(text);
    // `fields` hold values as YAML text, written by `yaml_value`.
    let set_decision = |file: &mut Lines, decision: &str, fields: &[(&str, String)]| {
        let Some(d) = plan.decision(decision) else {
            return Err(EditError::DecisionGone {
                decision: decision.to_owned(),
            });
        };
        let mut block = d.meta_lines.clone();
        for (key, written) in fields {
            file.set(&mut block, key, written, false, true);
        }
        Ok(())
    };
    let stamp = |status: &str, answer: Option<&str>| {
        let mut fields = vec![
            ("status", yaml_value::scalar(status)),
            (
                "answer",
                answer.map_or_else(|| "null".to_owned(), yaml_value::scalar),
            ),
            ("answered_at", yaml_value::timestamp(now)),
        ];
        if let Some(by) = by {
            fields.push(("answered_by", yaml_value::integer_or_scalar(by)));
        }
        fields
    };
    match edit {
        Edit::Answer {
            decision,
            key,
            label,
        } => {
            let d = plan
                .decision(decision)
                .ok_or_else(|| EditError::DecisionGone {
                    decision: decision.clone(),
                })?;
            if !d.options.iter().any(|o| &o.key == key && &o.label == label) {
                return Err(EditError::OptionChanged {
                    decision: decision.clone(),
                    key: key.clone(),
                });
            }
            set_decision(&mut file, decision, &stamp("answered", Some(key)))?;
        }
        Edit::Custom { decision, text } => {
            if text.trim().is_empty() {
                return Err(EditError::EmptyAnswer);
            }
            set_decision(&mut file, decision, &stamp("answered", Some(text)))?;
        }
        Edit::Skip { decision } => set_decision(&mut file, decision, &stamp("skipped", None))?,
        Edit::Note { decision, text } => {
            if text.trim().is_empty() {
                return Err(EditError::EmptyNote);
            }
            set_decision(&mut file, decision, &[("note", yaml_value::scalar(text))])?;
        }
        Edit::Delegate { decision, to, by } => {
            let fields = [
                ("delegated_to", to.to_string()),
                ("delegated_by", by.to_string()),
            ];
            set_decision(&mut file, decision, &fields)?;
        }
        Edit::TakeBack { decision } => {
            set_decision(&mut file, decision, &[("delegated_to", "null".to_owned())])?;
        }
        Edit::SignOff { answers, .. } if *answers != answers_of(plan) => {
            return Err(EditError::AnswersChanged);
        }
        Edit::Submit | Edit::SignOff { .. } => {
            if plan.remaining() > 0 {
                return Err(EditError::NotFinished {
                    remaining: plan.remaining(),
                });
            }
        }
        Edit::Deadline | Edit::Reminded | Edit::Escalated => {}
    }
    let signoffs = signoffs_after(plan, edit)?;
    let completes = match edit {
        Edit::Submit => true,
        Edit::SignOff { .. } => signoffs
            .as_ref()
            .is_some_and(|s| s.len() >= plan.approval.require),
        _ => false,
    };

    let mut fm = plan.frontmatter_lines.clone();
    let time = |key| OwnedKey {
        key,
        value: Value::String(now.to_owned()),
        yaml: yaml_value::timestamp(now),
    };
    let fields = match edit {
        Edit::Reminded => vec![time("reminded_at")],
        Edit::Escalated => vec![time("escalated_at")],
        _ => {
            // Counts come from the decisions as they stand after this edit; the read-back check below confirms
            // the edited file holds exactly these counts.
            let counts = counts_after(plan, edit);
            let status = match edit {
                _ if completes => PlanStatus::Completed,
                Edit::SignOff { .. } => PlanStatus::InProgress,
                _ if counts.remaining < counts.total => PlanStatus::InProgress,
                _ => plan.status,
            };
            let count = |key, n: usize| OwnedKey {
                key,
                value: Value::Number(n.into()),
                yaml: n.to_string(),
            };
            let mut fields = vec![
                OwnedKey {
                    key: "status",
                    value: Value::String(status.as_str().to_owned()),
                    yaml: yaml_value::scalar(status.as_str()),
                },
                count("total", counts.total),
                count("answered", counts.answered),
                count("remaining", counts.remaining),
                time("updated_at"),
            ];
            if let Some(ids) = &signoffs {
                fields.push(OwnedKey {
                    key: "signoffs",
                    value: Value::Sequence(
                        ids.iter().map(|id| Value::Number((*id).into())).collect(),
                    ),
                    yaml: people::signoffs_yaml(ids),
                });
            }
            if completes {
                fields.push(time("completed_at"));
            }
            fields
        }
    };
    for field in &fields {
        // A key YAML does not see at the top level has no line of its own (a look-alike inside a quoted value
        // is not it): insert one.
        let known = before.contains_key(field.key);
        file.set(&mut fm, field.key, &field.yaml, true, known);
    }
    let new_text = file.join();
    // One parse of the result for every read-back check.
    let (after, after_map) =
        parse_with_frontmatter(&new_text, stem).map_err(EditError::WouldCorrupt)?;
    verify(&after, edit, completes).map_err(EditError::WouldCorrupt)?;
    if let Some(counts) = fields
        .iter()
        .any(|f| f.key == "total")
        .then(|| counts_after(plan, edit))
        && counts != Counts::of(&after)
    {
        return Err(EditError::WouldCorrupt(Diagnostic::new(
            0,
            "the edited file's decisions do not read back as the edit",
        )));
    }
    verify_frontmatter(before, &after_map, &fields).map_err(EditError::WouldCorrupt)?;
    Ok((new_text, after))
}

/// Decision counts as the frontmatter records them.
#[derive(Debug, PartialEq, Eq)]
struct Counts {
    total: usize,
    answered: usize,
    remaining: usize,
}

impl Counts {
    fn of(plan: &Plan) -> Counts {
        Counts {
            total: plan.decisions.len(),
            answered: plan.answered(),
            remaining: plan.remaining(),
        }
    }
}

/// The counts of `plan` once `edit` holds: the edited decision takes its new status, the others keep theirs.
fn counts_after(plan: &Plan, edit: &Edit) -> Counts {
    let decided = match edit {
        Edit::Answer { decision, .. } | Edit::Custom { decision, .. } => {
            Some((decision, DecisionStatus::Answered))
        }
        Edit::Skip { decision } => Some((decision, DecisionStatus::Skipped)),
        _ => None,
    };
    let status = |d: &super::Decision| match decided {
        Some((id, s)) if d.id == *id => s,
        _ => d.status,
    };
    Counts {
        total: plan.decisions.len(),
        answered: plan
            .decisions
            .iter()
            .filter(|d| status(d) == DecisionStatus::Answered)
            .count(),
        remaining: plan
            .decisions
            .iter()
            .filter(|d| status(d) == DecisionStatus::Pending)
            .count(),
    }
}

/// The deadline's edit: defaults or skips for every pending decision, then the submit, applied one after the
/// other to the text (each checked as any edit is) and returned as one new text, so the file gets one write.
fn apply_deadline(
    text: &str,
    plan: &Plan,
    stem: &str,
    by: Option<&str>,
    now: &str,
) -> Result<(String, Plan), EditError> {
    if plan.status == PlanStatus::Completed {
        return Err(EditError::Completed);
    }
    // Decided on the file as it is under the plan's lock: an agent that moved the deadline meanwhile wins.
    if !due_now(plan, now).deadline {
        return Err(EditError::NotDue);
    }
    let mut text = text.to_owned();
    for d in plan
        .decisions
        .iter()
        .filter(|d| d.status == DecisionStatus::Pending)
    {
        let default = d
            .default
            .as_ref()
            .and_then(|k| d.options.iter().find(|o| &o.key == k));
        let edit = match default {
            Some(o) => Edit::Answer {
                decision: d.id.clone(),
                key: o.key.clone(),
                label: o.label.clone(),
            },
            None => Edit::Skip {
                decision: d.id.clone(),
            },
        };
        text = apply(&text, stem, &edit, by, now)?;
    }
    apply_parsed(&text, stem, &Edit::Submit, by, now)
}

/// What the clock may do on `plan` at `now` (an RFC 3339 time; unreadable: nothing).
fn due_now(plan: &Plan, now: &str) -> super::Due {
    timing::parse_time(now).map_or_else(super::Due::default, |now| plan.due(now))
}

/// A frontmatter key an edit owns: its value as YAML must read it back, and that value as YAML text.
struct OwnedKey {
    key: &'static str,
    value: Value,
    yaml: String,
}

/// Each decision's id, status and answer: what a sign-off approves.
#[must_use]
pub fn answers_of(plan: &Plan) -> Vec<(String, DecisionStatus, Option<String>)> {
    plan.decisions
        .iter()
        .map(|d| (d.id.clone(), d.status, d.answer.clone()))
        .collect()
}

/// The `signoffs` list after `edit`, when the edit rewrites it: a sign-off adds the signer (refused if they
/// already signed); a change of any answer clears the list. `None`: the key is left alone.
fn signoffs_after(plan: &Plan, edit: &Edit) -> Result<Option<Vec<u64>>, EditError> {
    let signed = &plan.approval.signoffs;
    let changes = |decision: &str, status: DecisionStatus, answer: Option<&str>| {
        plan.decision(decision)
            .is_some_and(|d| d.status != status || d.answer.as_deref() != answer)
    };
    let cleared = match edit {
        Edit::SignOff { user, .. } => {
            if signed.contains(user) {
                return Err(EditError::AlreadySigned);
            }
            let mut ids = signed.clone();
            ids.push(*user);
            return Ok(Some(ids));
        }
        Edit::Answer { decision, key, .. } => {
            changes(decision, DecisionStatus::Answered, Some(key))
        }
        Edit::Custom { decision, text } => changes(decision, DecisionStatus::Answered, Some(text)),
        Edit::Skip { decision } => changes(decision, DecisionStatus::Skipped, None),
        _ => false,
    };
    Ok((cleared && !signed.is_empty()).then(Vec::new))
}

/// Every frontmatter key the edit does not own reads as before, and the owned ones as written.
fn verify_frontmatter(
    before: &Mapping,
    after: &Mapping,
    fields: &[OwnedKey],
) -> Result<(), Diagnostic> {
    let changed =
        |what: &str| Diagnostic::new(0, format!("the edit would change frontmatter key `{what}`"));
    for (key, value) in before {
        let owned = key
            .as_str()
            .is_some_and(|k| fields.iter().any(|f| f.key == k));
        if !owned && after.get(key) != Some(value) {
            return Err(changed(key.as_str().unwrap_or("?")));
        }
    }
    for OwnedKey { key, value, .. } in fields {
        if after.get(*key) != Some(value) {
            return Err(changed(key));
        }
    }
    if after.len() > before.len() + fields.len() {
        return Err(Diagnostic::new(
            0,
            "the edit would add unexpected frontmatter keys",
        ));
    }
    Ok(())
}

/// The result must parse and hold the edit; otherwise nothing is written.
fn verify(plan: &Plan, edit: &Edit, completes: bool) -> Result<(), Diagnostic> {
    let holds = match edit {
        Edit::Answer { decision, key, .. } => plan.decision(decision).is_some_and(|d| {
            d.status == DecisionStatus::Answered && d.answer.as_ref() == Some(key)
        }),
        Edit::Custom { decision, text } => plan.decision(decision).is_some_and(|d| {
            d.status == DecisionStatus::Answered && d.answer.as_ref() == Some(text)
        }),
        Edit::Skip { decision } => plan
            .decision(decision)
            .is_some_and(|d| d.status == DecisionStatus::Skipped),
        Edit::Submit | Edit::Deadline => plan.status == PlanStatus::Completed,
        Edit::Reminded => plan.timing.reminded_at.is_some(),
        Edit::Escalated => plan.timing.escalated_at.is_some(),
        Edit::Note { decision, text } => plan
            .decision(decision)
            .is_some_and(|d| d.note.as_ref() == Some(text)),
        Edit::Delegate { decision, to, by } => plan
            .decision(decision)
            .is_some_and(|d| d.delegated_to == Some(*to) && d.delegated_by == Some(*by)),
        Edit::TakeBack { decision } => plan
            .decision(decision)
            .is_some_and(|d| d.delegated_to.is_none()),
        Edit::SignOff { user, .. } => {
            plan.approval.signoffs.last() == Some(user)
                && (plan.status == PlanStatus::Completed) == completes
        }
    };
    if holds {
        Ok(())
    } else {
        Err(Diagnostic::new(
            0,
            "the edited file does not read back as written",
        ))
    }
}

/// The file as owned lines with their endings.
struct Lines {
    lines: Vec<String>,
    eol: &'static str,
}

impl Lines {
    fn new(text: &str) -> Lines {
        let split = lines::split(text);
        let eol = lines::file_ending(&split);
        Lines {
            lines: split.into_iter().map(str::to_owned).collect(),
            eol,
        }
    }

    fn join(&self) -> String {
        self.lines.concat()
    }

    /// Sets `key` to the already-written YAML `value` inside `block`: rewrites the value on the key's line
    /// (keeping spacing and a trailing comment) or inserts a line at the end of the block, which then grows.
    /// In the frontmatter (`top_level`), indented continuation lines of the old value go too.
    fn set(
        &mut self,
        block: &mut Range<usize>,
        key: &str,
        value: &str,
        top_level: bool,
        search: bool,
    ) {
        let candidates: Vec<usize> = block
            .clone()
            .filter(|_| search)
            .filter(|&i| line_key(&self.lines[i], top_level) == Some(key))
            .collect();
        let found = match candidates.as_slice() {
            [] => None,
            [one] => Some(*one),
            several if top_level => self.yaml_key_line(block, key, several),
            [first, ..] => Some(*first),
        };
        match found {
            Some(i) => {
                let new = replace_value(&self.lines[i], value);
                if new != self.lines[i] {
                    self.lines[i] = new;
                }
                if top_level {
                    while i + 1 < block.end && is_continuation(&self.lines[i + 1]) {
                        self.lines.remove(i + 1);
                        block.end -= 1;
                    }
                }
            }
            None => {
                let at = block.end;
                if at > 0 && at <= self.lines.len() && lines::ending(&self.lines[at - 1]).is_empty()
                {
                    self.lines[at - 1].push_str(self.eol);
                }
                let needs_gap = block.start == block.end
                    && !top_level
                    && self.lines.get(at).is_some_and(|l| !lines::is_blank(l));
                self.lines.insert(at, format!("{key}: {value}{}", self.eol));
                if needs_gap {
                    self.lines.insert(at + 1, self.eol.to_owned());
                }
                *block = block.start..at + 1;
            }
        }
    }

    /// Of several frontmatter lines that look like `key: …`, the one YAML reads as the key (the others are inside a
    /// multi-line quoted value): each is given a marker value in turn until YAML reads the marker back.
    fn yaml_key_line(
        &self,
        block: &Range<usize>,
        key: &str,
        candidates: &[usize],
    ) -> Option<usize> {
        const MARKER: &str = "arbiter-key-probe";
        candidates.iter().copied().find(|&at| {
            let mut yaml = String::new();
            let mut i = block.start;
            while i < block.end {
                if i == at {
                    yaml.push_str(&replace_value(&self.lines[i], MARKER));
                    // As `set` does: the old value's continuation lines go.
                    while i + 1 < block.end && is_continuation(&self.lines[i + 1]) {
                        i += 1;
                    }
                } else {
                    yaml.push_str(&self.lines[i]);
                }
                i += 1;
            }
            serde_yaml::from_str::<Mapping>(&yaml)
                .is_ok_and(|m| m.get(key).and_then(Value::as_str) == Some(MARKER))
        })
    }
}

/// The key of a `key: value` line; in the frontmatter only unindented keys, quoted or not.
fn line_key(line: &str, top_level: bool) -> Option<&str> {
    if !top_level {
        return meta_key(line).map(|(k, _)| k);
    }
    let c = lines::content(line);
    if c.starts_with([' ', '\t', '#', '-']) {
        return None;
    }
    // The key ends at the first `:` followed by white space or the end (`status:x: 1` is the key `status:x`).
    let colon = c
        .char_indices()
        .find(|&(i, ch)| ch == ':' && c[i + 1..].chars().next().is_none_or(char::is_whitespace))?
        .0;
    let key = c[..colon].trim_end();
    let key = key
        .strip_prefix('"')
        .and_then(|k| k.strip_suffix('"'))
        .unwrap_or(key);
    let key = key
        .strip_prefix('\'')
        .and_then(|k| k.strip_suffix('\''))
        .unwrap_or(key);
    Some(key)
}

fn is_continuation(line: &str) -> bool {
    !lines::is_blank(line) && line.starts_with([' ', '\t'])
}

/// `key:  old # note` → `key:  new # note`, keeping the line ending.
fn replace_value(line: &str, value: &str) -> String {
    let c = lines::content(line);
    let eol = lines::ending(line);
    let Some(colon) = c.find(':') else {
        return line.to_owned();
    };
    let (head, after) = c.split_at(colon + 1);
    let ws_len = after.len() - after.trim_start().len();
    let ws = if ws_len == 0 { " " } else { &after[..ws_len] };
    let old = &after[ws_len..];
    let comment = comment_start(old).map_or("", |i| &old[i..]);
    format!("{head}{ws}{value}{comment}{eol}")
}

/// Where a trailing `# comment` (with the white space before it) starts in a value, if there is one.
fn comment_start(value: &str) -> Option<usize> {
    let bytes = value.as_bytes();
    let mut i = 0;
    match bytes.first() {
        Some(b'"') => {
            i = 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        }
        Some(b'\'') => {
            i = 1;
            while i < bytes.len() {
                if bytes[i] == b'\'' {
                    if bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    break;
                }
                i += 1;
            }
            i += 1;
        }
        _ => {}
    }
    let i = i.min(bytes.len());
    let rest = &value[i..];
    let hash = rest
        .char_indices()
        .find(|&(j, ch)| ch == '#' && (j == 0 && i > 0 || rest[..j].ends_with([' ', '\t'])))?;
    let start = rest[..hash.0].trim_end_matches([' ', '\t']).len();
    Some(i + start)
}
