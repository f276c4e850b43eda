//! `arbiter hook AGENT install`: the agent's hook commands merged into its hook file (agent/hook/install.rs does
//! the merge; this writes the file and says what changed).

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::ValueEnum;

use crate::agent::AgentError;
use crate::agent::hook::Dialect;
use crate::agent::hook::install::{self, Entry, Layout, Unit};

use super::duration;
use super::hook_flags::{DEFAULT_STOP_TIMEOUT, Fallback, InstallArgs};

/// How the installed hook reaches the daemon: `--queue DIR` (the queue resolved now), or, with `--server`, the
/// server, the token file and the CA file, each checked now (the token itself never goes into the command).
fn reaching(at: super::At<'_>) -> Result<String, AgentError> {
    let env = crate::remote::process_env;
    let server = at
        .remote
        .server
        .map(str::to_owned)
        .or_else(|| env("ARBITER_SERVER"));
    let Some(server) = server.filter(|s| !s.trim().is_empty()) else {
        let queue_dir =
            crate::agent::resolve_queue_dir(at.queue, at.config, &crate::config::process_env)?;
        let queue_dir = std::path::absolute(&queue_dir).unwrap_or(queue_dir);
        return Ok(format!(
            "--queue {}",
            install::shell_quote(&queue_dir.to_string_lossy())
        ));
    };
    let absolute = |p: PathBuf| std::path::absolute(&p).unwrap_or(p);
    let Some(token_file) = at
        .remote
        .token_file
        .map(Path::to_path_buf)
        .or_else(|| env("ARBITER_TOKEN_FILE").map(PathBuf::from))
        .map(absolute)
    else {
        return Err(AgentError::Invalid(format!(
            "--server {server}: the hooks need --token-file PATH (a file holding the token `arbiter token add` \
             printed; a token in the hook's command would show in `ps`)"
        )));
    };
    let ca_file = at
        .remote
        .ca_file
        .map(Path::to_path_buf)
        .or_else(|| env("ARBITER_CA_FILE").map(PathBuf::from))
        .map(absolute);
    let flags = crate::remote::Flags {
        server: Some(&server),
        token_file: Some(&token_file),
        ca_file: ca_file.as_deref(),
    };
    crate::remote::Server::from(flags, &|_| None)
        .map_err(|e| AgentError::Invalid(e.to_string()))?;
    let mut out = format!(
        "--server {} --token-file {}",
        install::shell_quote(server.trim()),
        install::shell_quote(&token_file.to_string_lossy())
    );
    if let Some(ca) = ca_file {
        out.push_str(&format!(
            " --ca-file {}",
            install::shell_quote(&ca.to_string_lossy())
        ));
    }
    Ok(out)
}

/// `hook AGENT install`: the hook commands (this binary, the queue resolved now, the flags given) merged into the
/// agent's hook file, written atomically; `--dry-run` prints the file instead.
pub(super) fn run(
    queue: super::At<'_>,
    dialect: &dyn Dialect,
    args: &InstallArgs,
) -> Result<(), AgentError> {
    let agent = dialect.agent();
    let spec = dialect.install();
    let file = hook_file(&spec, args.project.as_deref())?;
    let exe = std::env::current_exe().map_err(|source| AgentError::Io {
        path: PathBuf::from("arbiter"),
        source,
    })?;
    let hook = &args.hook;
    let mut command = format!(
        "{} {} hook {} --timeout {}",
        install::shell_quote(&exe.to_string_lossy()),
        reaching(queue)?,
        agent.name,
        duration::say(hook.timeout, duration::Style::Written)
    );
    if hook.stop_timeout != DEFAULT_STOP_TIMEOUT {
        command.push_str(&format!(
            " --stop-timeout {}",
            duration::say(hook.stop_timeout, duration::Style::Written)
        ));
    }
    if hook.on_timeout != Fallback::Ask {
        let value = hook
            .on_timeout
            .to_possible_value()
            .map(|v| v.get_name().to_owned());
        command.push_str(&format!(" --on-timeout {}", value.unwrap_or_default()));
    }
    if hook.priority != "high" {
        command.push_str(&format!(" --priority {}", hook.priority));
    }
    if let Some(tag) = &hook.tag {
        command.push_str(&format!(" --tag {}", install::shell_quote(tag)));
    }
    // The agent kills a hook at its timeout: a minute more than the hook waits, so the hook answers first.
    let in_unit = |wait: Duration| {
        let secs = wait.as_secs() + 60;
        match spec.layout {
            Layout::Groups {
                unit: Unit::Milliseconds,
            } => secs * 1000,
            Layout::Groups {
                unit: Unit::Seconds,
            }
            | Layout::Flat => secs,
        }
    };
    let entries: Vec<Entry> = spec.entries(
        &command,
        |finished| {
            in_unit(if finished {
                hook.stop_timeout
            } else {
                hook.timeout
            })
        },
        args.no_stop,
    );
    let existing = match std::fs::read_to_string(&file) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => return Err(AgentError::Io { path: file, source }),
    };
    let mark = format!(" hook {} ", agent.name);
    let merged = install::merge(existing.as_deref(), &spec, &mark, &entries)
        .map_err(|e| AgentError::Invalid(format!("{}: {e}", file.display())))?;
    let summary: Vec<String> = merged
        .changes
        .iter()
        .map(|(event, change)| {
            let what = match change {
                install::Change::Added => "added",
                install::Change::Updated => "updated",
                install::Change::Unchanged => "already there",
                install::Change::Removed => "removed",
            };
            format!("{event} ({what})")
        })
        .collect();
    if args.dry_run {
        super::print_out(&merged.text);
        eprintln!(
            "arbiter: would write {} ({}); nothing was written",
            file.display(),
            summary.join(", ")
        );
        return Ok(());
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|source| AgentError::Io {
            path: dir.to_owned(),
            source,
        })?;
    }
    if existing.as_deref() != Some(merged.text.as_str()) {
        crate::queue::atomic::write_atomic(&file, merged.text.as_bytes()).map_err(|source| {
            AgentError::Io {
                path: file.clone(),
                source,
            }
        })?;
    }
    let mut out = format!(
        "{} hooks in {}: {}\nThe hook runs: {command}{}\n",
        agent.display,
        file.display(),
        summary.join(", "),
        if spec.pass_event {
            " --event EVENT"
        } else {
            ""
        }
    );
    for note in spec.notes {
        out.push_str(note);
        out.push('\n');
    }
    super::print_out(&out);
    Ok(())
}

/// The file `install` writes: the project's (`--project DIR`; Copilot's hooks live only there, in the current
/// folder by default), else the user's.
fn hook_file(spec: &install::Install, project: Option<&Path>) -> Result<PathBuf, AgentError> {
    let project = match (project, &spec.user_file) {
        (Some(dir), _) => Some(dir.to_owned()),
        (None, None) => Some(std::env::current_dir().map_err(|source| AgentError::Io {
            path: PathBuf::from("."),
            source,
        })?),
        (None, Some(_)) => None,
    };
    if let Some(dir) = project {
        if !dir.is_dir() {
            return Err(AgentError::Invalid(format!(
                "--project {}: not a folder",
                dir.display()
            )));
        }
        return Ok(dir.join(spec.project_file));
    }
    let Some(user) = &spec.user_file else {
        return Err(AgentError::Invalid("pass --project DIR".to_owned()));
    };
    if let Some(var) = user.env
        && let Some(dir) = std::env::var_os(var).filter(|d| !d.is_empty())
    {
        return Ok(PathBuf::from(dir).join(user.file));
    }
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .ok_or_else(|| AgentError::Invalid("HOME is not set: pass --project DIR".to_owned()))?;
    Ok(PathBuf::from(home).join(user.default).join(user.file))
}
