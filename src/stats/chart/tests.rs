//! The chart's two outputs from one series: a PNG that decodes to the stated size, an SVG with its labels.
#![allow(clippy::unwrap_used)]

use chrono::NaiveDate;

use super::*;

/// Five days: two with answers and a median, one with answers but nothing timed, two empty.
fn series() -> Vec<Day> {
    let start = NaiveDate::from_ymd_opt(2026, 2, 1).unwrap();
    let figures = [
        (0, None),
        (3, Some(1800)),
        (1, None),
        (0, None),
        (5, Some(5400)),
    ];
    start
        .iter_days()
        .zip(figures)
        .map(|(date, (answered, p50_seconds))| Day {
            date,
            answered,
            p50_seconds,
        })
        .collect()
}

/// The PNG's width and height from its IHDR chunk, after checking the signature.
fn ihdr_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&png[12..16], b"IHDR", "first chunk");
    let be = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn the_png_decodes_to_its_size_and_is_not_blank() {
    let bytes = png(&series()).unwrap();
    assert_eq!(ihdr_size(&bytes), PNG_SIZE);
    // Decoded in full by the same `png` crate that wrote it: every chunk and the image data are well formed.
    let mut reader = png::Decoder::new(std::io::Cursor::new(&bytes))
        .read_info()
        .unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((frame.width, frame.height), PNG_SIZE);
    let rgb = &pixels[..frame.buffer_size()];
    // The bars' colour and the line's colour are both drawn (a pixel of each somewhere).
    let has = |c: RGBColor| rgb.chunks(3).any(|p| p == [c.0, c.1, c.2]);
    assert!(has(BAR), "no bar drawn");
    assert!(has(LINE), "no line drawn");
}

#[test]
fn the_svg_carries_the_title_axis_labels_and_days_as_text() {
    let svg = svg(&series()).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..40.min(svg.len())]);
    let texts: Vec<&str> = svg
        .split("</text>")
        .filter_map(|chunk| chunk.rsplit_once("<text").map(|(_, t)| t))
        .filter_map(|t| t.split_once('>').map(|(_, text)| text.trim()))
        .collect();
    for text in [TITLE, BARS_LABEL, LINE_LABEL, "day", "Feb 1", "Feb 5"] {
        assert!(
            texts.contains(&text),
            "no text {text:?} in the SVG: {texts:?}"
        );
    }
}

#[test]
fn an_empty_or_silent_series_still_draws() {
    let quiet: Vec<Day> = series()
        .into_iter()
        .map(|d| Day {
            answered: 0,
            p50_seconds: None,
            ..d
        })
        .collect();
    for days in [Vec::new(), quiet] {
        assert_eq!(ihdr_size(&png(&days).unwrap()), PNG_SIZE);
        assert!(svg(&days).unwrap().contains(BARS_LABEL));
    }
}
/// The sample chart in README.md (`docs/stats-chart.png`), drawn from two weeks of made-up plans through the
/// same [`crate::stats::daily`] as `/stats`. Run `cargo test --lib readme_sample -- --ignored` to draw it again.
#[test]
#[ignore = "writes docs/stats-chart.png"]
fn readme_sample() {
    use crate::stats::tests::{decision, plan, t};
    let plans: Vec<crate::plan::Plan> = (1..=14u32)
        .map(|day| {
            let created = format!("2026-02-{day:02}T09:00:00Z");
            let mut p = plan(
                &format!("p{day}"),
                None,
                Some(&created),
                Some(&format!("2026-02-{day:02}T20:00:00Z")),
            );
            // A working week's rhythm: more decisions mid-week, none at weekends, slower on Mondays.
            let answers = [0, 4, 6, 7, 5, 3, 0][(day % 7) as usize];
            let minutes = [0, 95, 40, 25, 30, 55, 0][(day % 7) as usize];
            p.decisions = (0..answers)
                .map(|i| {
                    let at = t(&created) + chrono::Duration::minutes(i64::from(minutes + i * 9));
                    let at = at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                    decision(
                        &format!("d{i}"),
                        crate::plan::DecisionStatus::Answered,
                        Some("a"),
                        &at,
                        "1",
                    )
                })
                .collect();
            p
        })
        .collect();
    let days = crate::stats::daily(
        &plans
            .iter()
            .map(crate::plan::Summary::of)
            .collect::<Vec<_>>(),
        t("2026-02-01T00:00:00Z"),
        t("2026-02-14T23:00:00Z"),
        &chrono_tz::Tz::UTC,
    );
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/stats-chart.png");
    std::fs::write(out, png(&days).unwrap()).unwrap();
}
