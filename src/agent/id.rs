//! Fresh plan ids: 8 characters, a letter then Crockford base32 digits, from the time and per-process randomness.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Letters for the first character, so an id never reads as a number in YAML.
const FIRST: &[u8] = b"abcdefghjkmnpqrstvwxyz";
/// Crockford's base32 alphabet in lowercase: no i, l, o, u.
const REST: &[u8] = b"0123456789abcdefghjkmnpqrstvwxyz";

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A new id; `taken` says whether one is already used (ids of pending and completed plans), and a taken one is
/// drawn again.
#[must_use]
pub fn fresh(taken: impl Fn(&str) -> bool) -> String {
    loop {
        let id = encode(random_bits());
        if !taken(&id) {
            return id;
        }
    }
}

/// 64 bits mixing the clock, the process id, a counter and `RandomState`'s random keys (std only).
fn random_bits() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut h = RandomState::new().build_hasher();
    h.write_u128(nanos);
    h.write_u32(std::process::id());
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.finish()
}

fn encode(mut bits: u64) -> String {
    let mut id = String::with_capacity(8);
    id.push(char::from(FIRST[(bits % FIRST.len() as u64) as usize]));
    bits /= FIRST.len() as u64;
    for _ in 0..7 {
        id.push(char::from(REST[(bits % 32) as usize]));
        bits /= 32;
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_are_short_plain_and_distinct() {
        let mut seen = HashSet::new();
        for _ in 0..10_000 {
            let id = fresh(|_| false);
            assert_eq!(id.len(), 8);
            assert!(id.chars().next().is_some_and(|c| c.is_ascii_lowercase()));
            assert!(id.chars().all(|c| c.is_ascii_alphanumeric()));
            assert_eq!(crate::plan::yaml_value::scalar(&id), id);
            assert!(seen.insert(id));
        }
    }

    #[test]
    fn a_taken_id_is_drawn_again() {
        let first = fresh(|_| false);
        let taken = std::cell::Cell::new(0);
        let id = fresh(|id| {
            taken.set(taken.get() + 1);
            taken.get() < 3 && id != first
        });
        assert_eq!(taken.get(), 3);
        assert_eq!(id.len(), 8);
    }
}
