//! Micro-benchmarks of the pure core: parse, edit and render, on the example plan
//! (tests/fixtures/spec-example.md) and a 30-decision plan.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use arbiter_zebu::plan::{Edit, apply, parse};
use arbiter_zebu::telegram::views;
use criterion::{Criterion, criterion_group, criterion_main};

const SPEC: &str = include_str!("../tests/fixtures/spec-example.md");

fn plan_30() -> String {
    let mut out = String::from(
        "---\nid: big\ntitle: Thirty decisions\npriority: high\nstatus: pending\n---\n\n# Thirty\n\nContext.\n\n",
    );
    for i in 1..=30 {
        out.push_str(&format!(
            "---\n\n## Decision {i}: Question {i}\n\nid: q{i}\nstatus: pending\nanswer: null\nanswered_at: null\n\n**Context:** Why {i}?\n\n**Options:**\n- `a` — First choice for {i}\n- `b` — Second choice\n- `c` — Third choice\n\n"
        ));
    }
    out
}

fn bench(c: &mut Criterion) {
    let big = plan_30();
    for (name, text) in [("spec", SPEC), ("30-decisions", big.as_str())] {
        c.bench_function(&format!("parse/{name}"), |b| {
            b.iter(|| parse(black_box(text), "x"))
        });
        let plan = parse(text, "x").unwrap();
        let d = plan.decisions.last().unwrap();
        let edit = Edit::Answer {
            decision: d.id.clone(),
            key: d.options[0].key.clone(),
            label: d.options[0].label.clone(),
        };
        c.bench_function(&format!("edit-answer/{name}"), |b| {
            b.iter(|| {
                apply(
                    black_box(text),
                    "x",
                    &edit,
                    Some("1"),
                    "2026-01-01T00:00:00Z",
                )
            })
        });
        c.bench_function(&format!("render-decision/{name}"), |b| {
            b.iter(|| views::decision(black_box(&plan), 0, None, &views::Drawn::now()))
        });
        c.bench_function(&format!("render-plan/{name}"), |b| {
            b.iter(|| views::plan(black_box(&plan), &views::Drawn::now()))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
