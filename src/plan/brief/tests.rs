use super::*;
use crate::plan::parse;

fn outline<P: Outline>(p: &P) -> (String, String, Priority, PlanStatus, u32, usize, usize) {
    (
        p.id().to_owned(),
        p.title().to_owned(),
        p.priority(),
        p.status(),
        p.revision(),
        p.decision_count(),
        p.pending_decisions(),
    )
}

#[test]
fn a_brief_reads_as_the_plan_it_summarizes() {
    let text = "---\nid: p1\ntitle: Pick\nagent: ceo\nsession: s\ntag: api\npriority: urgent\n\
                created_at: 2026-02-01T10:00:00Z\ndeadline: 2026-02-02T10:00:00Z\nremind_every: 1h\n\
                escalate_after: 2026-02-01T12:00:00Z\nescalate_to: [\"7\"]\napprovers: [\"1\", \"2\"]\nrequire: 2\n---\n\
                # Pick\n\nWhy it matters.\n\n## Decision 1: One\n\nid: q1\nstatus: answered\nanswer: a\n\n\
                **Options:**\n- `a` — A\n- `b` — B\n\n## Decision 2: Two\n\nid: q2\ndelegated_to: 5\ndelegated_by: 1\n\n\
                **Options:**\n- `a` — A\n\n## Decision 3: Three\n\nid: q3\n\n**Options:**\n- `a` — A\n";
    let whole = parse(text, "p1").unwrap();
    let brief = Brief::of(&whole);
    assert_eq!(outline(&brief), outline(&whole));
    assert_eq!(outline(&brief).6, 2);
    assert_eq!(
        (brief.tag(), brief.agent(), brief.created_at()),
        (whole.tag(), whole.agent(), whole.created_at())
    );
    assert_eq!(brief.timing(), &whole.timing);
    assert_eq!(brief.approval(), &whole.approval);
    assert_eq!(
        brief.delegations().collect::<Vec<_>>(),
        whole.delegations().collect::<Vec<_>>()
    );
    assert_eq!(brief.delegations().collect::<Vec<_>>(), [(1, 5)]);
    for hours in [0, 1, 2, 3, 30] {
        let now = parse_time("2026-02-01T10:30:00Z") + chrono::Duration::hours(hours);
        assert_eq!(brief.due(now), whole.due(now), "{hours} h");
    }
}

#[test]
fn a_plan_without_timing_or_people_needs_no_more_than_its_strings() {
    let text = "---\nid: p2\n---\n# Plain\n\n## Decision 1: One\n\n**Options:**\n- `a` — A\n";
    let whole = parse(text, "p2").unwrap();
    let brief = Brief::of(&whole);
    assert!(brief.people.is_none());
    assert_eq!(brief.timing(), &whole.timing);
    assert_eq!(brief.approval(), &whole.approval);
    assert_eq!(brief.due(chrono::Utc::now()), Due::default());
    assert_eq!(outline(&brief), outline(&whole));
}

fn parse_time(s: &str) -> DateTime<Utc> {
    crate::plan::timing::parse_time(s).unwrap()
}
