//! The systemd user unit, and its adaptation when the home, the queue or the binary are not where the
//! shipped unit expects them (`~/.arbiter`, `~/.cargo/bin/arbiter`), or when the host denies the user
//! namespaces some of its hardening needs.

use std::path::Path;

/// `systemd/arbiter.service` as shipped: a hardened user unit for `arbiter run`.
pub const SYSTEMD_UNIT: &str = include_str!("../../systemd/arbiter.service");

const EXEC_START: &str = "ExecStart=%h/.cargo/bin/arbiter run";
const ENVIRONMENT_FILE: &str = "EnvironmentFile=-%h/.arbiter/env";
const READ_WRITE_PATHS: &str = "ReadWritePaths=%h/.arbiter";
const HARDENING: &str =
    "# Hardening. Each setting takes something away that the daemon does not use.";

/// The settings of the shipped unit that a user manager can apply only inside a user namespace of the
/// service's own (the lines it marks "(user namespace)"): `PrivateUsers=` itself, and those that shrink the
/// capability bounding set, which a manager holding no capability cannot do outside one. Where the host
/// denies user namespaces each of them stops the unit before the daemon starts (217/USER, 218/CAPABILITIES).
/// The mount settings are skipped by systemd there instead, and the seccomp ones need no privilege, so
/// they stay.
const NEED_USER_NAMESPACES: [&str; 6] = [
    "PrivateUsers=",
    "PrivateDevices=",
    "ProtectKernelModules=",
    "ProtectKernelLogs=",
    "ProtectClock=",
    "CapabilityBoundingSet=",
];

/// Whether this host lets an unprivileged user manager create user namespaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UserNamespaces {
    #[default]
    Allowed,
    /// Denied by the setting named (`kernel.apparmor_restrict_unprivileged_userns = 1`, ...).
    Denied(&'static str),
}

impl UserNamespaces {
    /// What the kernel settings say; `read` gives a file's contents (`std::fs::read_to_string(..).ok()`).
    /// A setting that cannot be read is not there, which denies nothing.
    #[must_use]
    pub fn probe(read: impl Fn(&str) -> Option<String>) -> UserNamespaces {
        // (file, value that denies, the setting as sysctl names it)
        const DENYING: [(&str, &str, &str); 3] = [
            // Ubuntu 24.04 and later: AppArmor lets no unconfined process use them.
            (
                "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
                "1",
                "kernel.apparmor_restrict_unprivileged_userns = 1",
            ),
            (
                "/proc/sys/user/max_user_namespaces",
                "0",
                "user.max_user_namespaces = 0",
            ),
            // Debian's older kernels and some hardened ones.
            (
                "/proc/sys/kernel/unprivileged_userns_clone",
                "0",
                "kernel.unprivileged_userns_clone = 0",
            ),
        ];
        DENYING
            .iter()
            .find(|(file, denies, _)| read(file).is_some_and(|value| value.trim() == *denies))
            .map_or(UserNamespaces::Allowed, |(_, _, setting)| {
                UserNamespaces::Denied(setting)
            })
    }
}

/// The unit to install. The shipped text when everything is in its default place; otherwise the home
/// (and `EnvironmentFile`) is replaced by `home` with `ARBITER_HOME` set for the daemon, a queue outside
/// the home is added to `ReadWritePaths` (the sandbox would refuse writes to it), and `ExecStart` points
/// at `executable`. On a host that denies user namespaces the settings that need one are commented out,
/// with the reason, so the unit starts with the hardening that works there.
#[must_use]
pub fn render_unit(
    home: &Path,
    queue_dir: &Path,
    user_home: Option<&Path>,
    executable: Option<&Path>,
    user_namespaces: UserNamespaces,
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
    if let UserNamespaces::Denied(setting) = user_namespaces {
        set(
            HARDENING,
            vec![
                HARDENING.to_owned(),
                format!(
                    "# This host denies unprivileged user namespaces ({setting}): arbiter init commented out \
                     the lines marked \"(user namespace)\"."
                ),
            ],
        );
        for line in &mut lines {
            if NEED_USER_NAMESPACES.iter().any(|key| line.starts_with(key)) {
                line.insert(0, '#');
            }
        }
    }
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
            "PrivateUsers=yes",
            "PrivateMounts=yes",
            "PrivateDevices=yes",
            "ProtectKernelTunables=yes",
            "ProtectKernelModules=yes",
            "ProtectKernelLogs=yes",
            "ProtectControlGroups=yes",
            "ProtectClock=yes",
            "ProtectHostname=yes",
            "ProtectProc=noaccess",
            "ProcSubset=pid",
            "CapabilityBoundingSet=",
            "RestrictNamespaces=yes",
            "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
            "SystemCallFilter=@system-service",
            "SystemCallFilter=~@privileged @resources",
            "SystemCallErrorNumber=EPERM",
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

    /// The settings of the `[Service]` section from the hardening on: each directly under a comment saying
    /// why (two lines of the same setting may share one).
    #[test]
    fn every_hardening_setting_says_why() {
        let lines: Vec<&str> = SYSTEMD_UNIT.lines().collect();
        let start = lines.iter().position(|l| *l == HARDENING).unwrap();
        let end = lines.iter().position(|l| *l == "[Install]").unwrap();
        let key = |line: &str| line.split('=').next().unwrap_or("").to_owned();
        let mut settings = 0;
        for at in start + 1..end {
            let line = lines[at];
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            settings += 1;
            let above = lines[at - 1];
            assert!(
                above.starts_with("# ") || key(above) == key(line),
                "{line}: no reason on the line above"
            );
        }
        assert!(settings >= 25, "{settings} settings");
    }

    /// The unit marks exactly the settings [`NEED_USER_NAMESPACES`] names, so its comment and `init` agree.
    #[test]
    fn the_marked_lines_are_the_ones_init_comments_out() {
        let lines: Vec<&str> = SYSTEMD_UNIT.lines().collect();
        let marked: Vec<&str> = lines
            .windows(2)
            .filter(|pair| pair[0].starts_with("# (user namespace)"))
            .map(|pair| pair[1])
            .collect();
        assert_eq!(marked.len(), NEED_USER_NAMESPACES.len());
        for (line, key) in marked.iter().zip(NEED_USER_NAMESPACES) {
            assert!(line.starts_with(key), "{line} is not {key}");
        }
    }

    #[test]
    fn user_namespaces_denied_by_any_of_the_three_settings() {
        let host = |files: &'static [(&'static str, &'static str)]| {
            move |path: &str| {
                files
                    .iter()
                    .find(|(file, _)| *file == path)
                    .map(|(_, value)| format!("{value}\n"))
            }
        };
        assert_eq!(UserNamespaces::probe(host(&[])), UserNamespaces::Allowed);
        assert_eq!(
            UserNamespaces::probe(host(&[
                (
                    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
                    "0"
                ),
                ("/proc/sys/user/max_user_namespaces", "63482"),
                ("/proc/sys/kernel/unprivileged_userns_clone", "1"),
            ])),
            UserNamespaces::Allowed
        );
        assert_eq!(
            UserNamespaces::probe(host(&[
                (
                    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
                    "1"
                ),
                ("/proc/sys/user/max_user_namespaces", "63482"),
            ])),
            UserNamespaces::Denied("kernel.apparmor_restrict_unprivileged_userns = 1")
        );
        assert_eq!(
            UserNamespaces::probe(host(&[("/proc/sys/user/max_user_namespaces", "0")])),
            UserNamespaces::Denied("user.max_user_namespaces = 0")
        );
        assert_eq!(
            UserNamespaces::probe(host(&[("/proc/sys/kernel/unprivileged_userns_clone", "0")])),
            UserNamespaces::Denied("kernel.unprivileged_userns_clone = 0")
        );
    }

    #[test]
    fn denied_user_namespaces_comment_out_the_capability_settings_only() {
        let home = Path::new("/home/ada");
        let unit = render_unit(
            &home.join(".arbiter"),
            &home.join(".arbiter/queue"),
            Some(home),
            Some(&home.join(".cargo/bin/arbiter")),
            UserNamespaces::Denied("kernel.apparmor_restrict_unprivileged_userns = 1"),
        );
        for key in NEED_USER_NAMESPACES {
            assert_eq!(
                lines_with(&unit, key),
                Vec::<&str>::new(),
                "{key} still set"
            );
            assert_eq!(lines_with(&unit, &format!("#{key}")).len(), 1, "{key}");
        }
        assert!(unit.contains(
            "# This host denies unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1): \
             arbiter init commented out the lines marked \"(user namespace)\"."
        ));
        // Everything else is the shipped unit, line for line.
        let kept = |text: &str| -> Vec<String> {
            text.lines()
                .filter(|l| {
                    !NEED_USER_NAMESPACES
                        .iter()
                        .any(|k| l.trim_start_matches('#').starts_with(k))
                })
                .filter(|l| !l.starts_with("# This host denies"))
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(kept(&unit), kept(SYSTEMD_UNIT));
    }

    #[test]
    fn default_places_keep_the_shipped_unit() {
        let home = Path::new("/home/ada");
        let unit = render_unit(
            &home.join(".arbiter"),
            &home.join(".arbiter/queue"),
            Some(home),
            Some(&home.join(".cargo/bin/arbiter")),
            UserNamespaces::Allowed,
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
            UserNamespaces::Allowed,
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
