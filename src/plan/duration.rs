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

/// How [`say`] writes a duration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// The way a user would write it (a flag, a plan key; what [`parse`] reads back): every unit down to the
    /// second, hours the largest: `1h30m`, `45s`, `500ms`.
    Written,
    /// As people say it in a message, at most two units, spaced, to the minute once past one: `2d 3h`, `2h 15m`,
    /// `5m`, `45s`.
    Spoken,
    /// Its two largest units, unspaced, for a table's column: `45s`, `3m20s`, `2h`, `1d4h`, `12d`.
    Table,
    /// In words, whole minutes or else seconds: `10 minutes`, `1 minute`, `90 seconds`.
    Words,
    /// One unit, rounded down, hours up to two days, for an age in a listing: `45s`, `3m`, `2h`, `47h`, `4d`.
    Age,
}

/// `d` written in `style`.
#[must_use]
pub fn say(d: Duration, style: Style) -> String {
    let secs = d.as_secs();
    let (days, hours, mins, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    match style {
        Style::Written if secs == 0 => format!("{}ms", d.as_millis()),
        Style::Written => [(secs / 3600, "h"), (mins, "m"), (s, "s")]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, unit)| format!("{n}{unit}"))
            .collect(),
        Style::Spoken if secs < 60 => format!("{s}s"),
        Style::Spoken => two_units(&[(days, "d"), (hours, "h"), (mins, "m")], " "),
        Style::Table if secs == 0 => "0s".to_owned(),
        Style::Table => two_units(&[(days, "d"), (hours, "h"), (mins, "m"), (s, "s")], ""),
        Style::Words => match (s, secs / 60) {
            (0, 1) => "1 minute".to_owned(),
            (0, minutes) if minutes > 0 => format!("{minutes} minutes"),
            _ if secs == 1 => "1 second".to_owned(),
            _ => format!("{secs} seconds"),
        },
        Style::Age => match secs {
            s if s < 60 => format!("{s}s"),
            s if s < 3600 => format!("{}m", s / 60),
            s if s < 48 * 3600 => format!("{}h", s / 3600),
            s => format!("{}d", s / 86_400),
        },
    }
}

/// The first unit of `units` that is not zero and the one after it unless that one is zero, joined by `sep`.
fn two_units(units: &[(u64, &str)], sep: &str) -> String {
    let first = units.iter().position(|(n, _)| *n > 0).unwrap_or(0);
    units[first..]
        .iter()
        .take(2)
        .filter(|(n, _)| *n > 0)
        .map(|(n, unit)| format!("{n}{unit}"))
        .collect::<Vec<_>>()
        .join(sep)
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
    fn says_each_style() {
        let say_secs = |secs: u64, style| say(Duration::from_secs(secs), style);
        assert_eq!(say(Duration::from_secs(5400), Style::Written), "1h30m");
        assert_eq!(say(Duration::from_secs(1), Style::Written), "1s");
        assert_eq!(say(Duration::from_millis(250), Style::Written), "250ms");
        assert_eq!(say_secs(90_061, Style::Written), "25h1m1s");
        let spoken = [
            45,
            300,
            330,
            8100,
            7200,
            2 * 86_400 + 3 * 3600 + 59,
            86_400 + 60,
            0,
        ];
        assert_eq!(
            spoken.map(|s| say_secs(s, Style::Spoken)),
            ["45s", "5m", "5m", "2h 15m", "2h", "2d 3h", "1d", "0s"]
        );
        let table = [0, 45, 200, 7200, 5400, 100_000, 12 * 86_400 + 59, 3605];
        assert_eq!(
            table.map(|s| say_secs(s, Style::Table)),
            ["0s", "45s", "3m20s", "2h", "1h30m", "1d3h", "12d", "1h"]
        );
        let words = [600, 60, 90, 1, 0];
        assert_eq!(
            words.map(|s| say_secs(s, Style::Words)),
            [
                "10 minutes",
                "1 minute",
                "90 seconds",
                "1 second",
                "0 seconds"
            ]
        );
        let ages = [45, 180, 7200, 47 * 3600 + 59, 48 * 3600, 4 * 86_400, 0];
        assert_eq!(
            ages.map(|s| say_secs(s, Style::Age)),
            ["45s", "3m", "2h", "47h", "2d", "4d", "0s"]
        );
    }
}
