//! p50, p90 and max of a set of durations, by the nearest-rank method.

use serde::Serialize;

/// The spread of some durations in seconds; all `None` (and `count` 0) for an empty set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Spread {
    pub p50: Option<i64>,
    pub p90: Option<i64>,
    pub max: Option<i64>,
    pub count: usize,
}

impl Spread {
    /// The spread of `seconds` (sorted in place).
    #[must_use]
    pub fn of(seconds: &mut [i64]) -> Spread {
        seconds.sort_unstable();
        Spread {
            p50: nearest_rank(seconds, 50),
            p90: nearest_rank(seconds, 90),
            max: seconds.last().copied(),
            count: seconds.len(),
        }
    }
}

/// The `percent`-th percentile of sorted values by nearest rank: the ⌈percent/100 · n⌉-th smallest (the
/// smallest for percent 0); `None` when there are none. Integer arithmetic, so 90 % of 10 is exactly rank 9.
#[must_use]
pub fn nearest_rank(sorted: &[i64], percent: usize) -> Option<i64> {
    let rank = (percent * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}
