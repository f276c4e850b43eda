//! Completed plans for the benchmarks that need many of them (`stats`, `history`): what a team's agents leave in
//! `completed/` after months of use. Deterministic (plan `p` is always the same text for the same times), and
//! varied the way real plans are: seven agents and tags, titles and contexts drawn from word lists, 2 to 5
//! decisions of 2 to 4 options, most answered by one of three people, some skipped, some answered with text of
//! the owner's own, some with a note, one plan in twenty a second revision carrying the request that caused it.
//! Also what several benches do with processes: run `arbiter`, start the daemon, read its resident memory.
#![allow(dead_code, clippy::unwrap_used)]

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration as Elapsed, Instant};

use chrono::{DateTime, Duration, SecondsFormat, Utc};

const AGENTS: [&str; 7] = [
    "builder",
    "deployer",
    "researcher",
    "migrator",
    "reviewer",
    "support",
    "ceo",
];
const TAGS: [&str; 7] = ["db", "infra", "ui", "billing", "auth", "search", "docs"];
const VERBS: [&str; 8] = [
    "Migrate",
    "Deploy",
    "Refactor",
    "Price",
    "Choose a host for",
    "Roll back",
    "Schedule",
    "Archive",
];
const NOUNS: [&str; 10] = [
    "the database",
    "the payment service",
    "the search index",
    "the login page",
    "the cache layer",
    "the nightly build",
    "the API gateway",
    "the mobile app",
    "the billing export",
    "the audit reports",
];
const PROJECTS: [&str; 12] = [
    "Atlas", "Borealis", "Cobalt", "Dune", "Ember", "Fjord", "Granite", "Harbor", "Iris",
    "Juniper", "Kestrel", "Lumen",
];
const SENTENCES: [&str; 12] = [
    "Traffic doubled since the spring release and the current setup is close to its limits.",
    "The vendor contract ends next quarter, so whatever we pick has to be in place before then.",
    "Two incidents last month traced back to this component; the postmortems asked for a decision.",
    "Finance wants the monthly cost to stay under the budget agreed in the planning review.",
    "The team has experience with both options, but only one of them is on the supported list.",
    "Rolling this out in stages keeps the blast radius small if something goes wrong.",
    "Customers in the EU region must keep their data in the EU, which rules out some hosts.",
    "The migration script was tested against a copy of production from last week.",
    "Nothing here is urgent, but the longer we wait the more the old path costs to maintain.",
    "Security review flagged the current configuration as acceptable but not ideal.",
    "The change needs a maintenance window of about twenty minutes on a weekend.",
    "Support asked for a decision before the next release notes go out.",
];
const QUESTIONS: [(&str, [(&str, &str); 4]); 6] = [
    (
        "Which database",
        [
            ("postgres", "PostgreSQL 16, managed"),
            ("mysql", "MySQL 8 on our own hosts"),
            ("sqlite", "SQLite per tenant"),
            ("keep", "Keep the current one"),
        ],
    ),
    (
        "When to roll out",
        [
            ("now", "Right away"),
            ("weekend", "This weekend's window"),
            ("next-sprint", "Next sprint"),
            ("never", "Not at all"),
        ],
    ),
    (
        "Which region",
        [
            ("eu-west", "EU West"),
            ("us-east", "US East"),
            ("both", "Both, active-active"),
            ("asia", "Asia Pacific"),
        ],
    ),
    (
        "Budget",
        [
            ("low", "Under $500 a month"),
            ("mid", "Up to $2,000 a month"),
            ("high", "Whatever it takes"),
            ("defer", "Ask finance first"),
        ],
    ),
    (
        "Who reviews it",
        [
            ("alice", "Alice (platform)"),
            ("bob", "Bob (security)"),
            ("carol", "Carol (product)"),
            ("nobody", "No extra review"),
        ],
    ),
    (
        "Rollback plan",
        [
            ("snapshot", "Restore the snapshot"),
            ("feature-flag", "Turn the feature flag off"),
            ("forward", "Fix forward"),
            ("manual", "Manual steps in the runbook"),
        ],
    ),
];
const CUSTOM: [&str; 4] = [
    "Postgres, but only after the load test passes",
    "Wait for the vendor's answer first",
    "Split it: EU now, US next month",
    "Ask Dana, she owns this area",
];
const NOTES: [&str; 3] = [
    "Checked with the on-call engineer.",
    "Revisit after the quarterly review.",
    "Fine as long as the backups are verified first.",
];
/// The people who answer (user ids, as `answered_by` holds them).
const PEOPLE: [u64; 3] = [93533553, 11111111, 22222222];

/// A small deterministic generator (xorshift64*), seeded per plan: no dependency, same text every run.
struct Draw(u64);

impl Draw {
    fn new(seed: u64) -> Draw {
        Draw(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
    fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        &from[self.below(from.len())]
    }
}

fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Completed plan number `p`: pushed at `created`, its decisions answered over the following minutes and hours,
/// completed at `completed`.
#[must_use]
pub fn completed_plan(p: usize, created: DateTime<Utc>, completed: DateTime<Utc>) -> String {
    let mut draw = Draw::new(p as u64);
    let agent = draw.pick(&AGENTS);
    let tag = draw.pick(&TAGS);
    let title = format!(
        "{} {} ({})",
        draw.pick(&VERBS),
        draw.pick(&NOUNS),
        draw.pick(&PROJECTS)
    );
    let revised = p % 20 == 7;
    let mut out = format!(
        "---\nid: p{p}\nagent: {agent}\nsession: s{}\ntag: {tag}\ntitle: \"{title}\"\npriority: {}\nstatus: completed\n",
        p / 10,
        ["normal", "normal", "high", "low", "urgent"][draw.below(5)],
    );
    let span = (completed - created).num_seconds().max(60);
    if revised {
        let asked = created + Duration::seconds(span / 3);
        let _ = write!(
            out,
            "revision: 2\nfeedback: \"{}\"\nfeedback_by: {}\nfeedback_at: {}\n",
            draw.pick(&CUSTOM),
            PEOPLE[0],
            stamp(asked)
        );
    }
    let _ = write!(
        out,
        "created_at: {}\nupdated_at: {}\ncompleted_at: {}\n---\n\n# {title}\n\n",
        stamp(created),
        stamp(completed),
        stamp(completed)
    );
    for _ in 0..2 + draw.below(3) {
        out.push_str(SENTENCES[draw.below(SENTENCES.len())]);
        out.push(' ');
    }
    out.push_str("\n\n");
    let decisions = 2 + draw.below(4);
    let first = draw.below(QUESTIONS.len());
    for d in 0..decisions {
        let (question, options) = &QUESTIONS[(first + d) % QUESTIONS.len()];
        let shown = 2 + draw.below(3);
        let answered_at =
            created + Duration::seconds(span * (d as i64 + 1) / (decisions as i64 + 1));
        let by = draw.pick(&PEOPLE);
        let roll = draw.below(100);
        let (status, answer) = match roll {
            0..10 => ("skipped", "null".to_owned()),
            10..15 => ("answered", format!("\"{}\"", draw.pick(&CUSTOM))),
            _ => ("answered", options[draw.below(shown)].0.to_owned()),
        };
        let _ = write!(
            out,
            "---\n\n## Decision {n}: {question}\n\nid: d{n}\nstatus: {status}\nanswer: {answer}\nanswered_at: {}\nanswered_by: {by}\nallow_custom: true\n",
            stamp(answered_at),
            n = d + 1,
        );
        if draw.below(20) == 0 {
            let _ = writeln!(out, "note: \"{}\"", draw.pick(&NOTES));
        }
        let _ = write!(
            out,
            "\n**Context:** {} {}\n\n**Options:**\n",
            draw.pick(&SENTENCES),
            draw.pick(&SENTENCES)
        );
        for (key, label) in &options[..shown] {
            let _ = writeln!(out, "- `{key}` — {label}");
        }
        out.push('\n');
    }
    out
}

/// Writes `n` completed plans into `completed`, the newest completed at `now` and the others spread evenly over
/// the `days` before it (each took between a few minutes and two days to decide). File names sort by plan number.
pub fn fill_completed(completed: &Path, n: usize, now: DateTime<Utc>, days: i64) {
    std::fs::create_dir_all(completed).unwrap();
    let step = days * 86_400 / n.max(1) as i64;
    for p in 0..n {
        let done = now - Duration::seconds(step * (n - 1 - p) as i64);
        let took = 300 + (p as i64 * 7919) % 172_800;
        let text = completed_plan(p, done - Duration::seconds(took), done);
        std::fs::write(completed.join(format!("p{p:06}.md")), text).unwrap();
    }
}

/// One run of the release `arbiter` with `args` on the queue at `root` (`--queue`, no ARBITER_QUEUE): how long it
/// took and its stdout; a failure stops the bench with its stderr.
pub fn arbiter(root: &Path, args: &[&str]) -> (Elapsed, String) {
    let t0 = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .arg("--queue")
        .arg(root)
        .env_remove("ARBITER_QUEUE")
        .env("ARBITER_HOME", root)
        .output()
        .unwrap();
    let elapsed = t0.elapsed();
    assert!(
        out.status.success(),
        "arbiter {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (elapsed, String::from_utf8(out.stdout).unwrap())
}

/// `arbiter run --config CONFIG`, quiet (no stdin, stdout or stderr).
#[must_use]
pub fn daemon(config: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    cmd.args(["run", "--config"])
        .arg(config)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// The resident memory (`VmRSS`) of process `pid`, in KiB (0 when it can't be read).
#[must_use]
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}
