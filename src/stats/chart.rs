//! The stats chart: decisions answered per day (bars, left axis) and the median minutes to decide per day (line
//! and dots, right axis), drawn from a [`super::daily`] series by one drawing function into two outputs:
//! [`png`] (the photo `/stats` sends on Telegram) and [`svg`] (for a web page).
//!
//! Text is drawn with DejaVu Sans Mono, embedded in the binary (`assets/fonts/`, Bitstream Vera licence), so a
//! machine without fonts draws the same chart. No I/O.
//!
//! A page draws the chart of the plans its user may see like `/stats` does:
//!
//! ```
//! use arbiter_zebu::stats;
//! # let (completed, tz) = (Vec::<arbiter_zebu::plan::Summary>::new(), chrono_tz::Tz::UTC);
//! let now = chrono::Utc::now();
//! let days = stats::daily(&completed, now - chrono::Duration::days(30), now, &tz);
//! let svg: String = stats::chart::svg(&days)?;
//! assert!(svg.contains(stats::chart::BARS_LABEL));
//! # Ok::<(), stats::chart::ChartError>(())
//! ```

use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;

use super::Day;

/// Width and height of the PNG, in pixels.
pub const PNG_SIZE: (u32, u32) = (800, 420);
/// Width and height of the SVG, in its user units.
pub const SVG_SIZE: (u32, u32) = (800, 420);
/// The chart's title and axis labels (an SVG carries them as text).
pub const TITLE: &str = "Decisions per day";
pub const BARS_LABEL: &str = "decisions answered";
pub const LINE_LABEL: &str = "median minutes to decide";

/// The family the embedded font is registered under.
const FAMILY: &str = "sans-serif";
static FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono.ttf");

const BAR: RGBColor = RGBColor(70, 130, 180);
const LINE: RGBColor = RGBColor(220, 90, 40);

/// Why a chart could not be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChartError {
    #[error("the chart's font could not be loaded")]
    Font,
    #[error("can't draw the chart: {0}")]
    Draw(String),
    #[error("can't encode the chart as PNG: {0}")]
    Encode(String),
}

/// The chart of `days` as PNG bytes ([`PNG_SIZE`]).
pub fn png(days: &[Day]) -> Result<Vec<u8>, ChartError> {
    font()?;
    let (w, h) = PNG_SIZE;
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        draw(&root, days)?;
        root.present().map_err(draw_error)?;
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let encode = |e: png::EncodingError| ChartError::Encode(e.to_string());
    let mut writer = encoder.write_header().map_err(encode)?;
    writer.write_image_data(&rgb).map_err(encode)?;
    writer.finish().map_err(encode)?;
    Ok(out)
}

/// The chart of `days` as an SVG document ([`SVG_SIZE`]); the title, axis labels and tick labels are `<text>`
/// elements, so a page can style and search them.
pub fn svg(days: &[Day]) -> Result<String, ChartError> {
    font()?;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SVG_SIZE).into_drawing_area();
        draw(&root, days)?;
        root.present().map_err(draw_error)?;
    }
    Ok(out)
}

/// Registers the embedded font once (plotters keeps a process-wide table of fonts).
fn font() -> Result<(), ChartError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = REGISTERED
        .get_or_init(|| plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_ok());
    if *ok { Ok(()) } else { Err(ChartError::Font) }
}

fn draw_error(e: impl std::fmt::Display) -> ChartError {
    ChartError::Draw(e.to_string())
}

/// The one drawing function both outputs share.
fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, days: &[Day]) -> Result<(), ChartError> {
    root.fill(&WHITE).map_err(draw_error)?;
    let n = days.len().max(1);
    let most = days.iter().map(|d| d.answered).max().unwrap_or(0);
    let minutes: Vec<Option<f64>> = days
        .iter()
        .map(|d| d.p50_seconds.map(|s| s as f64 / 60.0))
        .collect();
    let longest = minutes.iter().flatten().fold(0.0_f64, |a, &b| a.max(b));
    // Room above the tallest bar and the highest point for the legend; never an empty axis.
    let y_top = (most as f64 * 1.4).max(1.0);
    let m_top = (longest * 1.4).max(1.0);
    let x_range = -0.5..(n as f64 - 0.5);
    let mut chart = ChartBuilder::on(root)
        .caption(TITLE, (FAMILY, 22))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .right_y_label_area_size(56)
        .build_cartesian_2d(x_range.clone(), 0.0..y_top)
        .map_err(draw_error)?
        .set_secondary_coord(x_range, 0.0..m_top);
    let label = |x: &f64| {
        let i = x.round();
        if (x - i).abs() > 0.01 || i < 0.0 {
            return String::new();
        }
        days.get(i as usize)
            .map(|d| d.date.format("%b %-d").to_string())
            .unwrap_or_default()
    };
    let whole = |y: &f64| {
        if (y - y.round()).abs() < 0.01 {
            format!("{}", y.round() as i64)
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .max_light_lines(0)
        .bold_line_style(BLACK.mix(0.12))
        .x_labels(n.min(10))
        .x_label_formatter(&label)
        .y_labels(6)
        .y_label_formatter(&whole)
        .y_desc(BARS_LABEL)
        .x_desc("day")
        .label_style((FAMILY, 13))
        .axis_desc_style((FAMILY, 14))
        .draw()
        .map_err(draw_error)?;
    let minutes_label = |m: &f64| {
        if m_top >= 5.0 {
            format!("{m:.0}")
        } else {
            format!("{m:.1}")
        }
    };
    chart
        .configure_secondary_axes()
        .y_labels(6)
        .y_label_formatter(&minutes_label)
        .y_desc(LINE_LABEL)
        .label_style((FAMILY, 13))
        .axis_desc_style((FAMILY, 14))
        .draw()
        .map_err(draw_error)?;
    let bars = days
        .iter()
        .enumerate()
        .filter(|(_, d)| d.answered > 0)
        .map(|(i, d)| {
            let x = i as f64;
            Rectangle::new(
                [(x - 0.35, 0.0), (x + 0.35, d.answered as f64)],
                BAR.filled(),
            )
        });
    chart
        .draw_series(bars)
        .map_err(draw_error)?
        .label(BARS_LABEL)
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], BAR.filled()));
    let points: Vec<(f64, f64)> = minutes
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.map(|m| (i as f64, m)))
        .collect();
    chart
        .draw_secondary_series(LineSeries::new(
            points.iter().copied(),
            LINE.stroke_width(2),
        ))
        .map_err(draw_error)?
        .label(LINE_LABEL)
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], LINE.stroke_width(2)));
    chart
        .draw_secondary_series(points.iter().map(|&p| Circle::new(p, 3, LINE.filled())))
        .map_err(draw_error)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FAMILY, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()
        .map_err(draw_error)?;
    Ok(())
}

#[cfg(test)]
mod tests;
