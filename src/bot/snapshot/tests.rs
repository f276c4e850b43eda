use super::*;

/// A plan with `extra` frontmatter lines, kept as a look keeps it (its brief) (file `<name>.md`).
fn listed_at(name: &str, id: &str, priority: &str, extra: &str) -> Arc<Listed> {
    let text = format!(
        "---\nid: {id}\ntitle: {id}\npriority: {priority}\n{extra}---\n# {id}\n\n## Decision 1: D\n\n**Options:**\n- `a` — A\n"
    );
    Arc::new(Listed {
        path: PathBuf::from(format!("{name}.md")),
        brief: Brief::of(&crate::plan::parse(&text, id).unwrap()),
    })
}

fn listed(id: &str, priority: &str) -> Arc<Listed> {
    listed_at(id, id, priority, "")
}

fn problem(name: &str) -> Problem {
    Problem {
        path: PathBuf::from(name),
        diagnostic: crate::plan::Diagnostic::new(1, "bad".to_owned()),
        version: (1, None),
    }
}

fn ids(s: &Snapshot) -> Vec<&str> {
    s.plans.iter().map(|l| l.brief.id()).collect()
}

#[test]
fn after_a_look_the_snapshot_is_what_drawing_it_afresh_would_give() {
    let plans = vec![
        listed("a", "low"),
        listed("c", "urgent"),
        listed("e", "normal"),
        listed("g", "low"),
    ];
    let s = Snapshot::new(plans.clone()).with_problems(vec![problem("x.md"), problem("z.md")]);
    s.refs();
    s.queue_order(Actor::User(1), |all| (0..all.len()).collect());
    s.queue_order(Actor::User(2), |_| vec![0, 2, 3]);
    // "a" gone, "b" and "d" new, "e" re-read (urgent now), "z.md" fixed into a plan, "x.md" still broken;
    // user 2 sees no urgent plan.
    let change = Delta {
        changed: ["a.md", "b.md", "d.md", "e.md", "z.md"]
            .map(PathBuf::from)
            .to_vec(),
        plans: vec![
            listed("b", "normal"),
            listed("d", "low"),
            listed("e", "urgent"),
            listed("z", "high"),
        ],
        problems: vec![],
    };
    let sees =
        |actor: Actor, plan: &Brief| actor == Actor::User(1) || plan.priority() != Priority::Urgent;
    let next = s.after(change, sees);
    assert_eq!(ids(&next), ["b", "c", "d", "e", "g", "z"]);
    let problems: Vec<_> = next.problems().map(|p| p.path.clone()).collect();
    assert_eq!(problems, [PathBuf::from("x.md")]);
    let fresh = Snapshot::new(next.plans.clone());
    assert_eq!(next.refs(), fresh.refs());
    for user in [1, 2] {
        let carried = next.queue_order(Actor::User(user), |_| unreachable!("carried over"));
        let drawn = fresh.queue_order(Actor::User(user), |all| {
            (0..all.len())
                .filter(|&i| sees(Actor::User(user), all[i]))
                .collect()
        });
        assert_eq!(carried.order, drawn.order, "user {user}");
        assert_eq!(carried.counts, drawn.counts, "user {user}");
        assert_eq!(carried.per_priority, drawn.per_priority, "user {user}");
    }
}

#[test]
fn a_reference_two_plans_share_goes_to_the_later_one_as_when_drawn_afresh() {
    let s = Snapshot::new(vec![listed("a", "low"), listed("c", "low")]);
    s.refs();
    // A copy of "a" under another name, after "a" in path order.
    let change = Delta {
        changed: vec![PathBuf::from("b.md")],
        plans: vec![listed_at("b", "a", "low", "")],
        problems: vec![],
    };
    let next = s.after(change, |_, _| true);
    assert_eq!(next.refs(), Snapshot::new(next.plans.clone()).refs());
    // The copy leaves: the map is no longer carried over (it can't tell whose the reference was), but drawn.
    let change = Delta {
        changed: vec![PathBuf::from("b.md")],
        plans: vec![],
        problems: vec![],
    };
    let last = next.after(change, |_, _| true);
    assert_eq!(last.refs(), Snapshot::new(last.plans.clone()).refs());
}

#[test]
fn the_clock_watches_only_the_plans_with_timing_carried_from_look_to_look() {
    let deadline = "deadline: 2030-01-01T00:00:00Z\n";
    let s = Snapshot::new(vec![
        listed_at("a", "a", "low", deadline),
        listed("c", "low"),
        listed_at(
            "e",
            "e",
            "low",
            "created_at: 2026-01-01T00:00:00Z\nremind_every: 1h\n",
        ),
    ]);
    let timed =
        |s: &Snapshot| -> Vec<String> { s.timed().map(|l| l.brief.id().to_owned()).collect() };
    assert_eq!(timed(&s), ["a", "e"]);
    // "b" new with a deadline, "c" given one, "e" loses its reminders, "a" gone.
    let change = Delta {
        changed: ["a.md", "b.md", "c.md", "e.md"].map(PathBuf::from).to_vec(),
        plans: vec![
            listed_at("b", "b", "low", deadline),
            listed_at("c", "c", "low", deadline),
            listed("e", "low"),
        ],
        problems: vec![],
    };
    let next = s.after(change, |_, _| true);
    assert_eq!(timed(&next), ["b", "c"]);
    assert_eq!(timed(&next), timed(&Snapshot::new(next.plans.clone())));
}
