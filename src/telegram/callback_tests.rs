use super::*;
use proptest::prelude::*;

fn every_variant(plan: &PlanRef, n: u16, seen: &str) -> Vec<Callback> {
    let plan = || plan.clone();
    let seen = seen.to_owned();
    vec![
        Callback::Queue { page: n },
        Callback::Open { plan: plan() },
        Callback::Continue { plan: plan() },
        Callback::Show {
            plan: plan(),
            index: n,
        },
        Callback::Answer {
            plan: plan(),
            index: n,
            option: n,
            seen: seen.clone(),
        },
        Callback::Custom {
            plan: plan(),
            index: n,
            seen: seen.clone(),
        },
        Callback::Skip {
            plan: plan(),
            index: n,
            seen: seen.clone(),
        },
        Callback::Review { plan: plan() },
        Callback::Submit {
            plan: plan(),
            seen: seen.clone(),
        },
        Callback::RequestChanges {
            plan: plan(),
            seen: seen.clone(),
        },
        Callback::FullContext { plan: plan() },
        Callback::Note {
            plan: plan(),
            index: n,
            seen: seen.clone(),
        },
        Callback::DelegateMenu {
            plan: plan(),
            index: n,
            seen: seen.clone(),
        },
        Callback::Delegate {
            plan: plan(),
            index: n,
            to: u64::MAX,
            seen: seen.clone(),
        },
        Callback::Delegate {
            plan: plan(),
            index: n,
            to: 1,
            seen: seen.clone(),
        },
        Callback::TakeBack {
            plan: plan(),
            index: n,
            seen: seen.clone(),
        },
        Callback::SignOff {
            plan: plan(),
            seen: seen.clone(),
        },
        Callback::Toggle {
            plan: plan(),
            index: n,
            option: n,
            seen: seen.clone(),
        },
        Callback::Done {
            plan: plan(),
            index: n,
            seen: seen.clone(),
        },
        Callback::Boolean {
            plan: plan(),
            index: n,
            yes: true,
            seen: seen.clone(),
        },
        Callback::Boolean {
            plan: plan(),
            index: n,
            yes: false,
            seen: seen.clone(),
        },
        Callback::Approve {
            plan: plan(),
            index: n,
            seen: seen.clone(),
        },
        Callback::Decline {
            plan: plan(),
            seen: seen.clone(),
        },
        Callback::Rules { page: n },
        Callback::Rule {
            op: RuleOp::Pause,
            rule: "r".repeat(MAX_RULE_ID),
        },
        Callback::Rule {
            op: RuleOp::Resume,
            rule: "rab12cd3".into(),
        },
        Callback::Rule {
            op: RuleOp::Revoke,
            rule: "x".into(),
        },
        Callback::AlwaysAnswer { plan: plan(), seen },
        Callback::Noop,
    ]
}

#[test]
fn known_hashes() {
    // FNV-1a-64("") = cbf29ce484222325, ("a") = af63dc4c8601ec8c.
    assert_eq!(plan_ref(""), PlanRef("cbf29ce48422".into()));
    assert_eq!(plan_ref("a"), PlanRef("af63dc4c8601".into()));
    assert_eq!(fingerprint(&["a"]), "af63dc");
    assert_ne!(fingerprint(&["ab", "c"]), fingerprint(&["a", "bc"]));
}

#[test]
fn round_trips_every_variant_with_max_values() {
    let long_id = "x".repeat(200);
    for n in [0, 1, u16::MAX] {
        for callback in every_variant(
            &plan_ref(&long_id),
            n,
            &fingerprint(&[&long_id, "k", "label"]),
        ) {
            let data = callback.encode();
            assert!(data.len() <= 54, "{data} is {} bytes", data.len());
            assert_eq!(Callback::decode(&data), Some(callback), "{data}");
        }
    }
    assert_eq!(
        Callback::Answer {
            plan: PlanRef("0123456789ab".into()),
            index: 2,
            option: 3,
            seen: "abcdef".into()
        }
        .encode(),
        "a:0123456789ab:2:3:abcdef"
    );
    assert_eq!(
        Callback::FullContext {
            plan: PlanRef("0123456789ab".into())
        }
        .encode(),
        "f:0123456789ab"
    );
}

/// The bytes of every button as it is on the wire today: messages already on users' phones carry them, so a
/// change of the codec must still read these exactly so.
#[test]
fn every_encoding_is_pinned() {
    let plan = || PlanRef("0123456789ab".into());
    let seen = || "abcdef".to_owned();
    let pinned = [
        (Callback::Queue { page: 3 }, "q:3"),
        (Callback::Open { plan: plan() }, "o:0123456789ab"),
        (Callback::Continue { plan: plan() }, "c:0123456789ab"),
        (
            Callback::Show {
                plan: plan(),
                index: 2,
            },
            "s:0123456789ab:2",
        ),
        (
            Callback::Answer {
                plan: plan(),
                index: 2,
                option: 3,
                seen: seen(),
            },
            "a:0123456789ab:2:3:abcdef",
        ),
        (
            Callback::Custom {
                plan: plan(),
                index: 2,
                seen: seen(),
            },
            "u:0123456789ab:2:abcdef",
        ),
        (
            Callback::Skip {
                plan: plan(),
                index: 2,
                seen: seen(),
            },
            "k:0123456789ab:2:abcdef",
        ),
        (Callback::Review { plan: plan() }, "r:0123456789ab"),
        (
            Callback::Submit {
                plan: plan(),
                seen: seen(),
            },
            "x:0123456789ab:abcdef",
        ),
        (
            Callback::RequestChanges {
                plan: plan(),
                seen: seen(),
            },
            "w:0123456789ab:abcdef",
        ),
        (Callback::FullContext { plan: plan() }, "f:0123456789ab"),
        (
            Callback::Note {
                plan: plan(),
                index: 2,
                seen: seen(),
            },
            "m:0123456789ab:2:abcdef",
        ),
        (
            Callback::DelegateMenu {
                plan: plan(),
                index: 2,
                seen: seen(),
            },
            "d:0123456789ab:2:abcdef",
        ),
        (
            Callback::Delegate {
                plan: plan(),
                index: 2,
                to: 18_446_744_073_709_551_615,
                seen: seen(),
            },
            "g:0123456789ab:2:18446744073709551615:abcdef",
        ),
        (
            Callback::TakeBack {
                plan: plan(),
                index: 2,
                seen: seen(),
            },
            "b:0123456789ab:2:abcdef",
        ),
        (
            Callback::SignOff {
                plan: plan(),
                seen: seen(),
            },
            "v:0123456789ab:abcdef",
        ),
        (
            Callback::Toggle {
                plan: plan(),
                index: 2,
                option: 3,
                seen: seen(),
            },
            "t:0123456789ab:2:3:abcdef",
        ),
        (
            Callback::Done {
                plan: plan(),
                index: 2,
                seen: seen(),
            },
            "e:0123456789ab:2:abcdef",
        ),
        (
            Callback::Boolean {
                plan: plan(),
                index: 2,
                yes: true,
                seen: seen(),
            },
            "y:0123456789ab:2:1:abcdef",
        ),
        (
            Callback::Boolean {
                plan: plan(),
                index: 2,
                yes: false,
                seen: seen(),
            },
            "y:0123456789ab:2:0:abcdef",
        ),
        (
            Callback::Approve {
                plan: plan(),
                index: 2,
                seen: seen(),
            },
            "p:0123456789ab:2:abcdef",
        ),
        (
            Callback::Decline {
                plan: plan(),
                seen: seen(),
            },
            "z:0123456789ab:abcdef",
        ),
        (Callback::Rules { page: 3 }, "i:3"),
        (
            Callback::Rule {
                op: RuleOp::Pause,
                rule: "rab12cd3".into(),
            },
            "h:p:rab12cd3",
        ),
        (
            Callback::Rule {
                op: RuleOp::Resume,
                rule: "rab12cd3".into(),
            },
            "h:r:rab12cd3",
        ),
        (
            Callback::Rule {
                op: RuleOp::Revoke,
                rule: "rab12cd3".into(),
            },
            "h:v:rab12cd3",
        ),
        (
            Callback::AlwaysAnswer {
                plan: plan(),
                seen: seen(),
            },
            "l:0123456789ab:abcdef",
        ),
        (Callback::Noop, "n"),
    ];
    // Every kind of button is pinned (`every_variant` lists them all).
    let kinds = |list: &mut dyn Iterator<Item = &Callback>| {
        list.map(std::mem::discriminant)
            .collect::<std::collections::HashSet<_>>()
    };
    assert_eq!(
        kinds(&mut pinned.iter().map(|(c, _)| c)),
        kinds(&mut every_variant(&plan(), 0, "abcdef").iter())
    );
    for (callback, data) in pinned {
        assert_eq!(callback.encode(), data);
        assert_eq!(Callback::decode(data), Some(callback), "{data}");
    }
}

#[test]
fn rejects_malformed_data() {
    let bad = [
        "",
        "n:",
        "q",
        "q:",
        "q:65536",
        "q:-1",
        "q:+1",
        "q:01",
        "q: 1",
        "o:0123456789a",
        "o:0123456789abc",
        "o:0123456789AB",
        "o:0123456789ag",
        "o:../../etc/pa",
        "s:0123456789ab",
        "s:0123456789ab:1:2",
        "a:0123456789ab:1:2:abcde",
        "a:0123456789ab:1:2:abcdef:",
        "u:0123456789ab:1:abcdefa",
        "z:0123456789ab",
        "x:0123456789ab:",
        "f:0123456789ab:1",
        "f:",
        "g:0123456789ab:1:0:abcdef",
        "g:0123456789ab:1:007:abcdef",
        "g:0123456789ab:1:18446744073709551616:abcdef",
        "g:0123456789ab:1:-5:abcdef",
        "v:0123456789ab",
        "v:0123456789ab:1:abcdef",
        "m:0123456789ab:1",
        "b:0123456789ab:abcdef",
        "t:0123456789ab:1:abcdef",
        "t:0123456789ab:1:01:abcdef",
        "e:0123456789ab:abcdef",
        "y:0123456789ab:1:2:abcdef",
        "y:0123456789ab:1:true:abcdef",
        "y:0123456789ab:1:abcdef",
        "p:0123456789ab:1",
        "z:0123456789ab",
        "z:0123456789ab:1:abcdef",
        "i:",
        "i:01",
        "h:x:rab12cd3",
        "h:p:",
        "h:p:R1",
        "h:p:r-1",
        &format!("h:p:{}", "r".repeat(MAX_RULE_ID + 1)),
        "l:0123456789ab",
        "l:0123456789ab:abcde",
    ];
    for data in bad {
        assert_eq!(Callback::decode(data), None, "{data:?}");
    }
    assert_eq!(Callback::decode(&format!("q:{}", "1".repeat(10_000))), None);
}

proptest! {
    #[test]
    fn encodings_fit_and_round_trip(id in ".{0,300}", key in ".{0,100}", n in any::<u16>()) {
        for callback in every_variant(&plan_ref(&id), n, &fingerprint(&[&id, &key])) {
            let data = callback.encode();
            prop_assert!(!data.is_empty() && data.len() <= MAX_CALLBACK_BYTES);
            prop_assert_eq!(Callback::decode(&data), Some(callback));
        }
    }

    #[test]
    fn decode_of_garbage_never_panics(s in any::<String>()) {
        if let Some(callback) = Callback::decode(&s) {
            prop_assert_eq!(callback.encode(), s);
        }
    }

    #[test]
    fn decode_of_forged_data_is_canonical(s in "[qocsaukrxfnmdgbvteypzihl]:[0-9a-z:]{0,50}") {
        if let Some(callback) = Callback::decode(&s) {
            prop_assert_eq!(callback.encode(), s);
        }
    }
}
