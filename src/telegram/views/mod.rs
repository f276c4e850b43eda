//! Every message the bot draws, as pure functions from plan state to MarkdownV2 text and an inline keyboard.
//!
//! Every view, its buttons and its rules are described in docs/views.md. Choices made here:
//! - Agent-written Markdown (plan and decision contexts) is rendered as Telegram formatting
//!   ([`crate::telegram::render`]); a context that does not fit is cut where no entity is open and
//!   ends with `… 📄 Full context`, and the view gets a `📄 Full context` button (the plan file as a
//!   document). Every other dynamic string is escaped, shown as written; control characters become
//!   spaces (one-line fields such as titles, labels and answers lose line breaks too).
//! - Limits hold whatever the plan holds: text is measured after entity parsing with the strict
//!   validator and, when over 4096 UTF-16 units, rebuilt with shorter titles, labels and contexts
//!   (cuts end with `…`, contexts get the room the rest leaves); lists are capped (decisions listed as buttons, options, summary lines) so
//!   that a keyboard never has more than 100 buttons. Cuts count UTF-16 units, Telegram's unit.
//! - Progress (queue lines, plan view) counts settled decisions: answered + skipped.
//! - Decision navigation does not wrap: no `⬅️ Prev` on the first decision, and on the last one
//!   `Next ➡️` becomes `📋 Review` (the review summary), which is how the owner reaches Submit.
//! - The after-answer line ([`after_answer`]) heads the next view, without a `_Next: 2/3..._` line:
//!   the next decision's own `*2/3*` header says the same.
//! - The queue numbers plans across pages (page 2 starts at 11); page buttons are omitted at the ends.
//! - A decision index that no longer exists (the agent edited the file) draws the plan view instead.

mod announce;
mod card;
mod decision;
mod kinds;
mod layout;
pub mod navigation;
mod notice;
mod people;
mod plan_view;
mod queue;
mod review;
mod revision;
mod rules;
mod screens;
mod stats;
mod time;

use crate::plan::Plan;
use crate::telegram::callback::Callback;
use crate::telegram::markdown_check::parse_markdown_v2;

pub use announce::{announcement, announcement_burst, startup_summary};
pub use card::{Card, CardState, card, deep_link, escalated_in_group, in_group};
pub use decision::{after_answer, custom_prompt};
pub use kinds::{input_refused, proposal_message, shown_answer};
pub use layout::{MAX_BUTTON_TEXT, MAX_BUTTONS, MAX_BUTTONS_PER_ROW, MAX_TEXT, sign_off_label};
pub use notice::{PLAN_GONE_ALERT, help, not_found, problem};
pub use people::{delegate_picker, note_prompt};
pub use plan_view::file_caption;
pub use queue::{
    QUEUE_PAGE_SIZE, goes_before, queue, queue_at, queue_counts, queue_counts_of, queue_order,
    queue_page, queue_with_dashboard, with_dashboard,
};
pub use review::completion;
pub use revision::{request_changes_prompt, revision_announcement, sent_back};
pub use rules::{
    AfterSubmit, RULES_PAGE_SIZE, Shown, Standing, completion_ruled, rule_alert, rule_paused,
    rules, rules_warning,
};
pub use screens::{Drawn, decision, plan, review, toggled};
pub use stats::{chart_caption, digest, stats};
pub use time::{Nudge, deadline_submitted, due_line, due_text, nudge, nudge_burst};

/// Who a view is drawn for: the names of user ids (config `people`), and what this person may do on the plan.
/// `Viewer::default()` is an approver of a plan with nobody named and nobody to delegate to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Viewer {
    /// User id → name, for `answered by alice` (ids without a name are shown as ids).
    pub names: Vec<(u64, String)>,
    /// A delegate: only these decisions (indices) are theirs, and no plan-wide button is drawn.
    pub only: Option<Vec<usize>>,
    /// The people this viewer may delegate a decision to (`👉 Delegate` only when there is someone).
    pub delegates: Vec<u64>,
}

impl Viewer {
    /// How a user id (as written in a file) is shown: its name, else as written.
    #[must_use]
    pub fn name(&self, who: &str) -> String {
        let id: Option<u64> = who.trim().parse().ok();
        self.names
            .iter()
            .find(|(n, _)| Some(*n) == id)
            .map_or_else(|| who.trim().to_owned(), |(_, name)| name.clone())
    }

    /// [`Viewer::name`] of a user id.
    #[must_use]
    pub fn name_of(&self, user: u64) -> String {
        self.name(&user.to_string())
    }

    /// True when this viewer may take plan-wide actions (an approver).
    #[must_use]
    pub fn approves(&self) -> bool {
        self.only.is_none()
    }
}

/// One inline keyboard button.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Button {
    pub text: String,
    /// What a tap sends the bot (unused when the button opens a Mini App or a link: then it is [`Callback::Noop`]).
    pub data: Callback,
    /// The https URL of the Mini App the button opens instead of sending `data`.
    pub web_app: Option<url::Url>,
    /// A link the button opens instead of sending `data` (a card's `📂 Open`: a deep link to the private chat).
    pub url: Option<url::Url>,
}

impl Button {
    #[must_use]
    pub fn new(text: impl Into<String>, data: Callback) -> Self {
        Self {
            text: text.into(),
            data,
            web_app: None,
            url: None,
        }
    }

    /// A button opening a link (`https://t.me/<bot>?start=…` opens the bot's private chat at a plan).
    #[must_use]
    pub fn link(text: impl Into<String>, url: url::Url) -> Self {
        Self {
            text: text.into(),
            data: Callback::Noop,
            web_app: None,
            url: Some(url),
        }
    }

    /// A button opening a Mini App (Telegram takes only https URLs).
    #[must_use]
    pub fn web_app(text: impl Into<String>, url: url::Url) -> Self {
        Self {
            text: text.into(),
            data: Callback::Noop,
            web_app: Some(url),
            url: None,
        }
    }
}

/// `📄 Full context`: sends the plan's file as a document.
fn full_context(plan: &Plan) -> Button {
    Button::new(
        "📄 Full context",
        Callback::FullContext {
            plan: layout::pref(plan),
        },
    )
}

/// A message ready to send: MarkdownV2 text plus an inline keyboard (rows of buttons).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// MarkdownV2 text.
    pub text: String,
    pub keyboard: Vec<Vec<Button>>,
    /// Ask the client to reply to this message (custom answers); then `keyboard` is empty, since a
    /// message carries one reply markup only.
    pub force_reply: bool,
}

impl View {
    fn new(text: String, keyboard: Vec<Vec<Button>>) -> Self {
        Self {
            text,
            keyboard,
            force_reply: false,
        }
    }

    /// A message without buttons; `text` must already be MarkdownV2.
    #[must_use]
    pub fn text_only(text: &str) -> Self {
        Self::new(text.to_owned(), Vec::new())
    }

    /// Every button, row by row.
    pub fn buttons(&self) -> impl Iterator<Item = &Button> {
        self.keyboard.iter().flatten()
    }

    /// What the owner sees: the text after entity parsing, then each keyboard row as `[A] [B]`.
    ///
    /// Used by `arbiter demo` and the snapshots. Text that does not parse is shown as is.
    #[must_use]
    pub fn to_plain(&self) -> String {
        let mut out = parse_markdown_v2(&self.text).unwrap_or_else(|_| self.text.clone());
        if !self.keyboard.is_empty() {
            out.push('\n');
        }
        for row in &self.keyboard {
            out.push('\n');
            let cells: Vec<String> = row.iter().map(|b| format!("[{}]", b.text)).collect();
            out.push_str(&cells.join(" "));
        }
        if self.force_reply {
            out.push_str("\n\n(reply requested)");
        }
        out
    }
}

#[cfg(test)]
mod hook_tests;
#[cfg(test)]
mod hostile_tests;
#[cfg(test)]
mod kinds_tests;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod revision_tests;
#[cfg(test)]
mod rules_tests;
#[cfg(test)]
mod snapshot_tests;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod time_tests;
