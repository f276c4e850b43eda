//! The systemd user unit, and its adaptation when the home, the queue or the binary are not where the
//! shipped unit expects them (`~/.arbiter`, `~/.cargo/bin/arbiter`).

use std::path::Path;

/// `systemd/arbiter.service` as shipped: a hardened user unit for `arbiter run`.
pub const SYSTEMD_UNIT: &str = include_str!("../../systemd/arbiter.service");

const EXEC_START: &str = "ExecStart=%h/.cargo/bin/arbiter run";
const ENVIRONMENT_FILE: &str = "EnvironmentFile=-%h/.arbiter/env";
const READ_WRITE_PATHS: &str = "ReadWritePaths=%h/.arbiter";

/// The unit to install. The shipped text when everything is in its default place; otherwise the home
/// (and `EnvironmentFile`) is replaced by `home` with `ARBITER_HOME` set for the daemon, a queue outside
/// the home is added to `ReadWritePaths` (the sandbox would refuse writes to it), and `ExecStart` points
/// at `executable`.
#[must_use]
pub fn render_unit(
    home: &Path,
    queue_dir: &Path,
    user_home: Option<&Path>,
    executable: Option<&Path>,
) -> String {
    let mut lines: Vec<String> = SYSTEMD_UNIT.lines().map(str::to_owned).collect();
    let mut set = |old: &str, new: Vec<String>| {
        if let Some(at) = lines.iter().position(|line| line == old) {
            lines.splice(at..=at, new);
        }
    };
    if let Some(exe) = executable {
        let default_exe = user_home.map(|dir| dir.join(".cargo/bin/arbiter"));
        if default_exe.as_deref() != Some(exe) {
            set(
                EXEC_START,
                vec![format!("ExecStart={} run", unit_path(exe))],
            );
        }
    }
    let mut writable = vec![READ_WRITE_PATHS.to_owned()];
    if user_home.map(|dir| dir.join(".arbiter")).as_deref() != Some(home) {
        let variable = format!("ARBITER_HOME={}", escape_specifiers(home));
        // EnvironmentFile= takes the rest of the line as one path: no quoting.
        let env_file = format!("EnvironmentFile=-{}", escape_specifiers(&home.join("env")));
        set(
            ENVIRONMENT_FILE,
            vec![
                format!("Environment={}", quote_if_needed(&variable)),
                env_file,
            ],
        );
        writable = vec![format!("ReadWritePaths={}", unit_path(home))];
    }
    if !queue_dir.starts_with(home) {
        writable[0] = format!("{} {}", writable[0], unit_path(queue_dir));
    }
    set(READ_WRITE_PATHS, writable);
    lines.push(String::new());
    lines.join("\n")
}

/// `%` starts a systemd specifier; a literal one is `%%`.
fn escape_specifiers(path: &Path) -> String {
    path.to_string_lossy().replace('%', "%%")
}

fn unit_path(path: &Path) -> String {
    quote_if_needed(&escape_specifiers(path))
}

/// systemd splits these settings at whitespace unless the word is double-quoted.
fn quote_if_needed(word: &str) -> String {
    if word.contains(char::is_whitespace) {
        format!("\"{}\"", word.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        word.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_with<'u>(unit: &'u str, prefix: &str) -> Vec<&'u str> {
        unit.lines()
            .filter(|line| line.starts_with(prefix))
            .collect()
    }

    #[test]
    fn shipped_unit_has_the_required_settings() {
        for line in [
            "ExecStart=%h/.cargo/bin/arbiter run",
            "EnvironmentFile=-%h/.arbiter/env",
            "Restart=on-failure",
            "RestartSec=5",
            "NoNewPrivileges=yes",
            "ProtectSystem=strict",
            "ProtectHome=read-only",
            "ReadWritePaths=%h/.arbiter",
            "PrivateTmp=yes",
            "ProtectKernelTunables=yes",
            "ProtectKernelModules=yes",
            "ProtectControlGroups=yes",
            "RestrictSUIDSGID=yes",
            "LockPersonality=yes",
            "MemoryDenyWriteExecute=yes",
            "RestrictRealtime=yes",
            "SystemCallArchitectures=native",
            "UMask=0077",
            "WantedBy=default.target",
        ] {
            assert!(SYSTEMD_UNIT.lines().any(|l| l == line), "missing {line}");
        }
    }

    #[test]
    fn default_places_keep_the_shipped_unit() {
        let home = Path::new("/home/ada");
        let unit = render_unit(
            &home.join(".arbiter"),
            &home.join(".arbiter/queue"),
            Some(home),
            Some(&home.join(".cargo/bin/arbiter")),
        );
        assert_eq!(unit, SYSTEMD_UNIT);
    }

    #[test]
    fn other_home_queue_and_binary() {
        let unit = render_unit(
            Path::new("/srv/arb 1"),
            Path::new("/data/q%"),
            Some(Path::new("/home/ada")),
            Some(Path::new("/usr/local/bin/arbiter")),
        );
        assert_eq!(
            lines_with(&unit, "ExecStart="),
            ["ExecStart=/usr/local/bin/arbiter run"]
        );
        assert_eq!(
            lines_with(&unit, "Environment="),
            ["Environment=\"ARBITER_HOME=/srv/arb 1\""]
        );
        assert_eq!(
            lines_with(&unit, "EnvironmentFile="),
            ["EnvironmentFile=-/srv/arb 1/env"]
        );
        assert_eq!(
            lines_with(&unit, "ReadWritePaths="),
            ["ReadWritePaths=\"/srv/arb 1\" /data/q%%"]
        );
    }
}
