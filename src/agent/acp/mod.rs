//! `arbiter acp`: the Agent Client Protocol beside the editor. The relay sits between an editor and any agent that
//! speaks ACP, passes every message both ways unchanged, and puts on the phone what the editor leaves waiting: a
//! permission request not answered within `--phone-after` (first answer wins), and a finished turn the editor does
//! not follow up. `arbiter acp run` is the same relay with no editor: Arbiter is the only client.
//!
//! The plans are the hook core's ([`crate::agent::hook::core`]): a permission request is a core
//! `Prompt::Permission` in the ACP [`dialect`], a finished turn a core `Finished` card; standing rules answer first.
//! [`jsonrpc`] is the framing, [`pipes`] the plumbing, [`relay`] the state between them.

pub mod dialect;
pub mod jsonrpc;
pub mod phone;
mod pipes;
pub mod relay;

pub use phone::{Here, Phone};
pub use relay::{Mode, Settings, run};
