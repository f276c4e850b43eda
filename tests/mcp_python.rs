//! MCP elicitation forms as plans, with the official MCP Python SDK (PyPI `mcp`) as the client: an elicitation
//! request pushed through `arbiter mcp` (stdio) and through the real daemon's `/mcp` (streamable HTTP), answered by
//! the owner, and read back with `arbiter_await` as MCP's `ElicitResult`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::TempQueue;
use crate::support::owner::Owner;
use crate::support::web::{AGENT_TOKEN, Dash};

const CLIENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/mcp_elicitation_client.py"
);

/// Whether python3 has the SDK; without it the tests are skipped, except where CI requires them.
pub(crate) fn sdk() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import mcp.client.stdio, mcp.client.streamable_http"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("ARBITER_REQUIRE_MCP_SDK").is_none(),
            "CI requires the MCP Python SDK (pip install mcp)"
        );
        eprintln!("skipped: the MCP Python SDK is not installed (pip install mcp)");
    }
    ok
}

/// Runs the client with `args`; once it printed the plan id, `answer` answers it, then the client's result.
pub(crate) fn elicit(
    queue: &std::path::Path,
    args: &[&str],
    answer: impl FnOnce(&std::path::Path, &Owner, &str),
) -> Value {
    let mut child = Command::new("python3")
        .arg(CLIENT)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut id = String::new();
    out.read_line(&mut id).expect("plan id");
    let id = id.trim().to_owned();
    assert!(!id.is_empty(), "the client printed no plan id");
    answer(queue, &Owner::new(queue), &id);
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"answered\n").expect("stdin");
    drop(stdin);
    let mut result = String::new();
    out.read_line(&mut result).expect("result");
    let status = child.wait().expect("client");
    assert!(status.success(), "client failed");
    serde_json::from_str(&result).expect("JSON result")
}

pub(crate) fn accept(root: &std::path::Path, owner: &Owner, id: &str) {
    let queue = arbiter_zebu::queue::Queue::open(root, true).unwrap();
    let plan = queue.find_pending(id).unwrap().expect("pending").plan;
    let ids: Vec<&str> = plan.decisions.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(
        ids,
        ["replicas", "region", "checks", "notes"],
        "one decision per property, in order"
    );
    assert!(plan.elicitation && plan.decisions[0].required && !plan.decisions[3].required);
    owner.input(id, "replicas", "3");
    owner.answer(id, "region", "eu");
    owner.pick(id, "checks", &["lint", "tests"]);
    owner.skip(id, "notes");
    owner.submit(id);
}

#[test]
fn an_elicitation_through_arbiter_mcp_reads_back_as_an_elicit_result() {
    if !sdk() {
        return;
    }
    let q = TempQueue::new();
    let bin = env!("CARGO_BIN_EXE_arbiter");
    let root = q.root().to_str().unwrap().to_owned();
    let result = elicit(q.root(), &["stdio", bin, &root], accept);
    assert_eq!(
        result,
        json!({"action": "accept", "content": {"replicas": 3, "region": "eu", "checks": ["lint", "tests"]}})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_over_http_through_the_daemon_reads_back_as_an_elicit_result() {
    if !sdk() {
        return;
    }
    let q = TempQueue::new();
    let root = q.root().to_path_buf();
    let dash = Dash::start(q).await;
    let url = format!("{}/mcp", dash.base);
    let result =
        tokio::task::spawn_blocking(move || elicit(&root, &["http", &url, AGENT_TOKEN], accept))
            .await
            .unwrap();
    assert_eq!(
        result,
        json!({"action": "accept", "content": {"replicas": 3, "region": "eu", "checks": ["lint", "tests"]}})
    );
}
