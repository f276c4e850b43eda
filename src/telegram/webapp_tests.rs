use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use super::{InitDataError, MAX_AGE_SECONDS, MAX_CLOCK_SKEW_SECONDS, verify_init_data};

const BOT_TOKEN: &str = "7342037359:AAHI25ES9xCOMPokpYoz-p8XVrZUdygo2J4";
const NOW: i64 = 1_733_509_682;
const USER: &str = r#"{"id":279058397,"first_name":"Vladislav + - ? \/","last_name":"Kibenko","username":"vdkfrost","language_code":"ru","is_premium":true,"allows_write_to_pm":true}"#;

/// Percent-encodes every byte but ASCII letters and digits, as a Telegram client may.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn hmac(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).unwrap();
    mac.update(message);
    mac.finalize().into_bytes().to_vec()
}

/// Signs fields the way Telegram documents it, written out here step by step: the data-check-string is the
/// fields but `hash`, sorted, `key=value` joined by newlines; the key is HMAC("WebAppData", bot token).
fn sign(fields: &[(&str, &str)], bot_token: &str) -> String {
    let mut lines: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
    lines.sort();
    let data_check_string = lines.join("\n");
    let secret = hmac(b"WebAppData", bot_token.as_bytes());
    hex::encode(hmac(&secret, data_check_string.as_bytes()))
}

/// The query string of `fields` plus `hash`, in the order given.
fn init_data(fields: &[(&str, &str)], hash: &str) -> String {
    let mut parts: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{k}={}", encode(v)))
        .collect();
    parts.push(format!("hash={hash}"));
    parts.join("&")
}

fn fields(auth_date: &str) -> Vec<(&'static str, String)> {
    vec![
        ("user", USER.to_owned()),
        ("chat_instance", "8134722200314281151".to_owned()),
        ("chat_type", "private".to_owned()),
        ("auth_date", auth_date.to_owned()),
        (
            "signature",
            "TYJxVcisqbWjtodPepiJ6ghziUL94-KNpG8Pau".to_owned(),
        ),
    ]
}

fn signed_at(auth_date: i64) -> String {
    let owned = fields(&auth_date.to_string());
    let fields: Vec<(&str, &str)> = owned.iter().map(|(k, v)| (*k, v.as_str())).collect();
    init_data(&fields, &sign(&fields, BOT_TOKEN))
}

#[test]
fn data_signed_with_the_bot_token_names_its_user() {
    assert_eq!(
        verify_init_data(&signed_at(NOW), BOT_TOKEN, NOW),
        Ok(279_058_397)
    );
    // Field order in the query string does not matter; the data-check-string is sorted.
    let owned = fields(&NOW.to_string());
    let mut fields: Vec<(&str, &str)> = owned.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let hash = sign(&fields, BOT_TOKEN);
    fields.reverse();
    let reordered = format!(
        "hash={hash}&{}",
        init_data(&fields, "x").trim_end_matches("&hash=x")
    );
    assert_eq!(
        verify_init_data(&reordered, BOT_TOKEN, NOW),
        Ok(279_058_397)
    );
}

#[test]
fn a_wrong_bot_token_or_a_changed_field_breaks_the_signature() {
    assert_eq!(
        verify_init_data(
            &signed_at(NOW),
            "7342037359:AAHI25ES9xCOMPokpYoz-p8XVrZUdygo2J5",
            NOW
        ),
        Err(InitDataError::BadSignature)
    );
    let good = signed_at(NOW);
    for (from, to) in [
        ("279058397", "279058398"),                     // another user
        ("chat_type=private", "chat_type=group"),       // another field's value
        ("chat_type=private", "chat_type=private&x=1"), // an added field
        ("&chat_type=private", ""),                     // a dropped field
    ] {
        let tampered = good.replacen(from, to, 1);
        assert_ne!(tampered, good, "{from}");
        assert_eq!(
            verify_init_data(&tampered, BOT_TOKEN, NOW),
            Err(InitDataError::BadSignature),
            "{from} → {to}"
        );
    }
    // A newer auth_date would dodge the age limit: it is signed too.
    let old = signed_at(NOW - MAX_AGE_SECONDS - 10);
    let renewed = old.replace(
        &format!("auth_date={}", NOW - MAX_AGE_SECONDS - 10),
        &format!("auth_date={NOW}"),
    );
    assert_eq!(
        verify_init_data(&renewed, BOT_TOKEN, NOW),
        Err(InitDataError::BadSignature)
    );
}

#[test]
fn a_changed_or_missing_hash_is_refused() {
    let good = signed_at(NOW);
    let (data, hash) = good.rsplit_once("&hash=").unwrap();
    let flipped = format!(
        "{}{}",
        &hash[..63],
        if hash.ends_with('0') { '1' } else { '0' }
    );
    for bad in [
        flipped.as_str(),
        &hash[..62],
        "",
        "not hex at all",
        &hash.repeat(2),
    ] {
        assert_eq!(
            verify_init_data(&format!("{data}&hash={bad}"), BOT_TOKEN, NOW),
            Err(InitDataError::BadSignature),
            "{bad}"
        );
    }
    assert_eq!(
        verify_init_data(data, BOT_TOKEN, NOW),
        Err(InitDataError::MissingHash)
    );
    assert_eq!(
        verify_init_data(&format!("{good}&hash={hash}"), BOT_TOKEN, NOW),
        Err(InitDataError::DuplicateField("hash".into()))
    );
    assert_eq!(
        verify_init_data("", BOT_TOKEN, NOW),
        Err(InitDataError::MissingHash)
    );
}

#[test]
fn signed_data_is_good_for_a_day() {
    let at = |auth_date: i64| verify_init_data(&signed_at(auth_date), BOT_TOKEN, NOW);
    assert_eq!(at(NOW - MAX_AGE_SECONDS), Ok(279_058_397));
    assert_eq!(
        at(NOW - MAX_AGE_SECONDS - 1),
        Err(InitDataError::TooOld(MAX_AGE_SECONDS + 1))
    );
    assert_eq!(at(NOW + MAX_CLOCK_SKEW_SECONDS), Ok(279_058_397));
    assert_eq!(
        at(NOW + MAX_CLOCK_SKEW_SECONDS + 1),
        Err(InitDataError::FromTheFuture(MAX_CLOCK_SKEW_SECONDS + 1))
    );
    assert_eq!(at(i64::MIN), Err(InitDataError::TooOld(i64::MAX)));
}

#[test]
fn signed_data_without_a_user_or_a_date_signs_no_one_in() {
    let cases: [(&[(&str, &str)], InitDataError); 5] = [
        (
            &[("auth_date", "1733509682"), ("query_id", "AAH")],
            InitDataError::MissingUser,
        ),
        (
            &[
                ("auth_date", "1733509682"),
                ("user", r#"{"first_name":"A"}"#),
            ],
            InitDataError::MissingUser,
        ),
        (
            &[("auth_date", "1733509682"), ("user", r#"{"id":-5}"#)],
            InitDataError::MissingUser,
        ),
        (&[("user", USER)], InitDataError::BadAuthDate),
        (
            &[("auth_date", "yesterday"), ("user", USER)],
            InitDataError::BadAuthDate,
        ),
    ];
    for (fields, error) in cases {
        let data = init_data(fields, &sign(fields, BOT_TOKEN));
        assert_eq!(
            verify_init_data(&data, BOT_TOKEN, NOW),
            Err(error),
            "{data}"
        );
    }
}
