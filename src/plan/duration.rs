//! Durations as people write them (command line flags, plan keys): `90`, `30s`, `10m`, `2h`, `1h30m`, `500ms`, `1d`.

use std::time::Duration;

/// Parses a duration: plain seconds, or number+unit parts (`ms`, `s`, `m`, `h`, `d`) added up.
pub fn parse(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let bad = || format!("`{s}` is not a duration: use e.g. 90, 30s, 10m, 2h or 1h30m");
    if s.is_empty() {
        return Err(bad());
    }
    if let Ok(secs) = s.parse::<u64>() {
        return Ok(Duration::from_secs(secs));
    }
    let mut total = Duration::ZERO;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let n: u64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .len();
        let unit = match &rest[..unit_len] {
            "ms" => Duration::from_millis(n),
            "s" => Duration::from_secs(n),
            "m" => Duration::from_secs(n.saturating_mul(60)),
            "h" => Duration::from_secs(n.saturating_mul(3600)),
            "d" => Duration::from_secs(n.saturating_mul(86_400)),
            _ => return Err(bad()),
        };
        rest = &rest[unit_len..];
        total = total.saturating_add(unit);
    }
    Ok(total)
}

/// A duration the way a user would write it: `1h30m`, `45s`, `500ms`.
#[must_use]
pub fn format(d: Duration) -> String {
    let secs = d.as_secs();
    if secs == 0 {
        return format!("{}ms", d.as_millis());
    }
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    let mut out = String::new();
    for (n, unit) in [(h, "h"), (m, "m"), (s, "s")] {
        if n > 0 {
            out.push_str(&format!("{n}{unit}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_forms() {
        let secs = |s: &str| parse(s).map(|d| d.as_millis());
        assert_eq!(secs("90"), Ok(90_000));
        assert_eq!(secs("30s"), Ok(30_000));
        assert_eq!(secs("10m"), Ok(600_000));
        assert_eq!(secs("2h"), Ok(7_200_000));
        assert_eq!(secs("1h30m"), Ok(5_400_000));
        assert_eq!(secs("500ms"), Ok(500));
        assert_eq!(secs("1d"), Ok(86_400_000));
        for bad in ["", "m", "10x", "1.5h", "-3s", "h1", "10 m"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn formats() {
        assert_eq!(format(Duration::from_secs(5400)), "1h30m");
        assert_eq!(format(Duration::from_secs(1)), "1s");
        assert_eq!(format(Duration::from_millis(250)), "250ms");
    }
}
