//! Many taps at once, and an agent rewriting the plan while taps arrive.

use std::time::Duration;

use arbiter_zebu::plan::{DecisionStatus, parse};
use arbiter_zebu::telegram::callback::{Callback, fingerprint, plan_ref};

use crate::support::daemon::{OWNER, Running, WAIT};
use crate::support::{TempQueue, plan_with};

fn answer_data(text: &str, id: &str, index: usize, option: usize) -> String {
    let plan = parse(text, id).unwrap();
    let d = &plan.decisions[index];
    let o = &d.options[option];
    Callback::Answer {
        plan: plan_ref(id),
        index: index as u16,
        option: option as u16,
        seen: fingerprint(&[&d.id, &o.key, &o.label]),
    }
    .encode()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_callbacks_on_one_plan_at_once_are_all_recorded() {
    let q = TempQueue::new();
    let text = plan_with("hundred", "s", 100);
    q.drop_plan("h.md", &text);
    let d = Running::start(q).await;
    d.wait_message(|_| true).await;
    let ids: Vec<String> = (0..100)
        .map(|i| {
            d.fake
                .tap_raw(OWNER, 0, &answer_data(&text, "hundred", i, i % 2))
        })
        .collect();
    let all = d.wait_answered(&ids, WAIT * 3).await;
    assert!(all, "every tap answered");
    let file = d.queue.read("pending", "h.md");
    let plan = parse(&file, "h").unwrap();
    for (i, dec) in plan.decisions.iter().enumerate() {
        let want = if i % 2 == 0 { "yes" } else { "no" };
        assert_eq!(
            (dec.status, dec.answer.as_deref()),
            (DecisionStatus::Answered, Some(want)),
            "decision {i}"
        );
    }
    assert!(
        file.contains("\nanswered: 100\n")
            && file.contains("\nremaining: 0\n")
            && file.contains("\ntotal: 100\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_rewriting_the_plan_while_taps_arrive_loses_nothing_of_its_own() {
    let q = TempQueue::new();
    let v0 =
        plan_with("busy", "s", 20).replace("Context.\n", "Context.\n\n<!-- agent-rev: 0 -->\n");
    q.drop_plan("b.md", &v0);
    let d = Running::start(q).await;
    d.wait_message(|_| true).await;
    // The human's view: version 0. Then the agent relabels every odd decision's options.
    let taps: Vec<String> = (0..20).map(|i| answer_data(&v0, "busy", i, 0)).collect();
    let relabel = |text: &str, rev: usize| {
        let mut out = String::new();
        let mut decision = 0;
        for line in text.split_inclusive('\n') {
            if line.starts_with("## ") {
                decision += 1;
            }
            if decision % 2 == 0 && line.starts_with("- `yes` — ") {
                out.push_str(&format!("- `yes` — Yes, revised {rev}\n"));
            } else if line.starts_with("<!-- agent-rev: ") {
                out.push_str(&format!("<!-- agent-rev: {rev} -->\n"));
            } else {
                out.push_str(line);
            }
        }
        out
    };
    let path = d.queue.root().join("pending/b.md");
    let rewrite = |rev: usize| {
        let current = std::fs::read_to_string(&path).unwrap();
        let staged = d.queue.root().join("pending/.b.md.agent");
        std::fs::write(&staged, relabel(&current, rev)).unwrap();
        std::fs::rename(&staged, &path).unwrap();
    };
    rewrite(1);
    let mut ids = Vec::new();
    let mut rev = 1;
    for data in &taps {
        ids.push(d.fake.tap_raw(OWNER, 0, data));
        rev += 1;
        rewrite(rev);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let all = d.wait_answered(&ids, WAIT).await;
    assert!(all);
    let file = std::fs::read_to_string(&path).unwrap();
    assert!(
        file.contains(&format!("<!-- agent-rev: {rev} -->")),
        "the agent's last edit was overwritten:\n{file}"
    );
    let plan = parse(&file, "b").unwrap();
    for (i, dec) in plan.decisions.iter().enumerate() {
        if i % 2 == 1 {
            assert_eq!(
                dec.status,
                DecisionStatus::Pending,
                "decision {i}: recorded against a label the human never saw"
            );
        }
    }
    assert!(
        plan.decisions
            .iter()
            .step_by(2)
            .any(|d| d.status == DecisionStatus::Answered),
        "taps on unchanged decisions were recorded"
    );
}
