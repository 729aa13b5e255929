//! A tiny SVG chart builder: line and scatter charts on linear or logarithmic axes
//! ([`LineChart`]), and grouped bar charts with optional whiskers ([`BarChart`]). Every chart
//! has a title, ticks, axis labels and a legend; every text is escaped. Points a scale cannot
//! place (not finite, or not positive on a log axis) are left out and counted in a note under
//! the chart.

mod bar;
mod line;

pub(crate) use bar::{BarChart, Bars};
pub(crate) use line::{LineChart, Mark, Series};

use super::axis::{tick_label, Ticks};
use super::html::{escape, plural};

const WIDTH: f64 = 760.0;
const PLOT_HEIGHT: f64 = 300.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 40.0;
const LEGEND_ROW: f64 = 18.0;
/// Longer names are cut short in the chart (tables carry them whole).
const MAX_LABEL: usize = 48;
const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f",
    "#ff9da7", "#7f7f7f",
];

/// The colour of the `index`th series.
fn color(index: usize) -> &'static str {
    PALETTE[index % PALETTE.len()]
}

/// `text`, cut to `max` characters with an ellipsis.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let mut short: String = text.chars().take(max - 1).collect();
        short.push('…');
        short
    }
}

/// The opening of a chart: the `<svg>` element, its title and a white background.
fn open(width: f64, height: f64, title: &str) -> String {
    format!(
        "<svg class=\"plot\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" \
         role=\"img\" font-family=\"system-ui, sans-serif\" font-size=\"12\">\
         <title>{t}</title><rect width=\"{width}\" height=\"{height}\" fill=\"#fff\"/>\
         <text x=\"{x}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"600\">{t}</text>",
        x = width / 2.0,
        t = escape(title),
    )
}

/// A chart with nothing to draw.
fn no_data(title: &str) -> String {
    let mut out = open(WIDTH, 120.0, title);
    out.push_str(&format!(
        "<text x=\"{}\" y=\"70\" text-anchor=\"middle\" fill=\"#777\">no plottable data</text></svg>",
        WIDTH / 2.0
    ));
    out
}

/// Where the plot area sits inside a chart.
struct Frame {
    left: f64,
    top: f64,
    width: f64,
    height: f64,
}

impl Frame {
    fn x(&self, ticks: &Ticks, v: f64) -> f64 {
        self.left + ticks.position(v) * self.width
    }

    fn y(&self, ticks: &Ticks, v: f64) -> f64 {
        self.top + (1.0 - ticks.position(v)) * self.height
    }

    fn bottom(&self) -> f64 {
        self.top + self.height
    }

    /// Horizontal grid lines, y tick labels and the rotated y axis label.
    fn y_axis(&self, ticks: &Ticks, label: &str) -> String {
        let mut out = String::new();
        for &v in &ticks.values {
            let y = self.y(ticks, v);
            out.push_str(&format!(
                "<line x1=\"{l}\" x2=\"{r}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#e6e6e6\"/>\
                 <text x=\"{tx}\" y=\"{ty:.1}\" text-anchor=\"end\">{}</text>",
                escape(&tick_label(v)),
                l = self.left,
                r = self.left + self.width,
                tx = self.left - 6.0,
                ty = y + 4.0,
            ));
        }
        let cy = self.top + self.height / 2.0;
        out.push_str(&format!(
            "<text x=\"18\" y=\"{cy}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {cy})\">{}</text>",
            escape(&shorten(label, 60))
        ));
        out
    }

    fn border(&self) -> String {
        format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>",
            self.left, self.top, self.width, self.height
        )
    }
}

/// One legend row at `y`: a swatch (SVG) and the name.
fn legend_row(y: f64, swatch: String, name: &str) -> String {
    format!(
        "{swatch}<text x=\"{}\" y=\"{:.1}\">{}</text>",
        LEFT + 34.0,
        y + 4.0,
        escape(&shorten(name, MAX_LABEL * 2))
    )
}

/// A line under the legend saying how many points were left out, and why.
fn note(y: f64, hidden: usize, scale_note: &str) -> String {
    format!(
        "<text x=\"{LEFT}\" y=\"{y:.1}\" fill=\"#a33\">{} not shown: {}</text>",
        plural(hidden, "point"),
        escape(scale_note)
    )
}

/// Smallest and largest of `values`, or `None` for none.
fn range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}
