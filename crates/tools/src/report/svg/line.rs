//! Line and scatter charts.

use super::{
    color, legend_row, no_data, note, open, range, shorten, Frame, LEFT, LEGEND_ROW, MAX_LABEL,
    PLOT_HEIGHT, RIGHT, TOP, WIDTH,
};
use crate::report::axis::{tick_label, Axis, Scale, Ticks};
use crate::report::html::{escape, number};

/// Below the plot: tick labels and the axis label.
const X_AXIS_SPACE: f64 = 52.0;

/// Crosses single points out, so they are drawn in one dark colour on every chart.
const CROSS: &str = "#222";

fn series_color(series: &Series, index: usize) -> &'static str {
    match series.mark {
        Mark::Crosses => CROSS,
        Mark::Line | Mark::Dots => color(index),
    }
}

/// How a series is drawn.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    /// A line through the points (sorted by x), with a dot on each.
    Line,
    /// Dots only.
    Dots,
    /// Crosses only: points singled out, drawn over the others.
    Crosses,
}

/// One named series of (x, y) points.
pub(crate) struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub mark: Mark,
    /// Drawn dashed: a raw-socket baseline.
    pub dashed: bool,
}

impl Series {
    pub(crate) fn new(name: impl Into<String>, mark: Mark, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.into(),
            points,
            mark,
            dashed: false,
        }
    }

    pub(crate) fn dashed(mut self, dashed: bool) -> Series {
        self.dashed = dashed;
        self
    }
}

/// A line or scatter chart.
pub(crate) struct LineChart {
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    /// A labelled horizontal reference line (e.g. ratio 1).
    pub reference: Option<(f64, String)>,
}

fn marker(mark: Mark, x: f64, y: f64, color: &str, tip: &str) -> String {
    let tip = escape(tip);
    match mark {
        Mark::Line | Mark::Dots => format!(
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3.2\" fill=\"{color}\"><title>{tip}</title></circle>"
        ),
        Mark::Crosses => format!(
            "<path d=\"M{:.1} {:.1}l10 10m0 -10l-10 10\" stroke=\"{color}\" stroke-width=\"2.2\" \
             fill=\"none\"><title>{tip}</title></path>",
            x - 5.0,
            y - 5.0
        ),
    }
}

impl LineChart {
    pub(crate) fn new(title: impl Into<String>, x: Axis, y: Axis) -> LineChart {
        LineChart {
            title: title.into(),
            x,
            y,
            series: Vec::new(),
            reference: None,
        }
    }

    /// The SVG text of the chart.
    pub(crate) fn render(&self) -> String {
        let (xs, ys) = (self.x.scale, self.y.scale);
        let mut hidden = 0;
        let visible: Vec<Vec<(f64, f64)>> = self
            .series
            .iter()
            .map(|s| {
                let mut kept: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .copied()
                    .filter(|&(x, y)| xs.accepts(x) && ys.accepts(y))
                    .collect();
                hidden += s.points.len() - kept.len();
                if s.mark == Mark::Line {
                    kept.sort_by(|a, b| a.0.total_cmp(&b.0));
                }
                kept
            })
            .collect();
        let all = || visible.iter().flatten();
        let Some(x_range) = range(all().map(|p| p.0)) else {
            return no_data(&self.title);
        };
        let reference = self.reference.as_ref().filter(|(v, _)| ys.accepts(*v));
        let Some(y_range) = range(all().map(|p| p.1).chain(reference.map(|r| r.0))) else {
            return no_data(&self.title);
        };
        let xt = xs.ticks(x_range.0, x_range.1);
        let yt = ys.ticks(y_range.0, y_range.1);
        let frame = Frame {
            left: LEFT,
            top: TOP,
            width: WIDTH - LEFT - RIGHT,
            height: PLOT_HEIGHT,
        };
        let legend_top = frame.bottom() + X_AXIS_SPACE + 8.0;
        let mut height = legend_top + LEGEND_ROW * self.series.len() as f64;
        if hidden > 0 {
            height += LEGEND_ROW;
        }
        let mut out = open(WIDTH, height + 8.0, &self.title);
        out.push_str(&frame.y_axis(&yt, &self.y.label));
        out.push_str(&self.x_axis(&frame, &xt));
        out.push_str(&frame.border());
        if let Some((v, label)) = reference {
            let y = frame.y(&yt, *v);
            out.push_str(&format!(
                "<line x1=\"{l}\" x2=\"{r}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#555\" \
                 stroke-dasharray=\"2 3\"/><text x=\"{tx}\" y=\"{ty:.1}\" fill=\"#555\">{}</text>",
                escape(&shorten(label, MAX_LABEL)),
                l = frame.left,
                r = frame.left + frame.width,
                tx = frame.left + 4.0,
                ty = y - 4.0,
            ));
        }
        for (i, (series, points)) in self.series.iter().zip(&visible).enumerate() {
            let color = series_color(series, i);
            out.push_str(&draw_series(series, points, color, &frame, &xt, &yt));
        }
        for (i, series) in self.series.iter().enumerate() {
            let y = legend_top + LEGEND_ROW * i as f64;
            let swatch = match series.mark {
                Mark::Line => format!(
                    "<line x1=\"{}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"{}\" stroke-width=\"2\"{}/>",
                    LEFT,
                    LEFT + 26.0,
                    color(i),
                    dash(series.dashed)
                ),
                mark => marker(mark, LEFT + 13.0, y, series_color(series, i), &series.name),
            };
            out.push_str(&legend_row(y, swatch, &series.name));
        }
        if hidden > 0 {
            let why = if xs == Scale::Log || ys == Scale::Log {
                "missing, not finite, or not positive on a logarithmic axis"
            } else {
                "missing or not finite"
            };
            out.push_str(&note(
                legend_top + LEGEND_ROW * self.series.len() as f64 + 4.0,
                hidden,
                why,
            ));
        }
        out.push_str("</svg>");
        out
    }

    fn x_axis(&self, frame: &Frame, ticks: &Ticks) -> String {
        let mut out = String::new();
        for &v in &ticks.values {
            let x = frame.x(ticks, v);
            out.push_str(&format!(
                "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"#e6e6e6\"/>\
                 <text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                frame.top,
                frame.bottom(),
                frame.bottom() + 16.0,
                escape(&tick_label(v)),
            ));
        }
        out.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            frame.left + frame.width / 2.0,
            frame.bottom() + 38.0,
            escape(&shorten(&self.x.label, 90))
        ));
        out
    }
}

fn dash(dashed: bool) -> &'static str {
    if dashed {
        " stroke-dasharray=\"7 4\""
    } else {
        ""
    }
}

fn draw_series(
    series: &Series,
    points: &[(f64, f64)],
    color: &str,
    frame: &Frame,
    xt: &Ticks,
    yt: &Ticks,
) -> String {
    let mut out = String::from("<g>");
    let placed: Vec<(f64, f64)> = points
        .iter()
        .map(|&(x, y)| (frame.x(xt, x), frame.y(yt, y)))
        .collect();
    if series.mark == Mark::Line && placed.len() > 1 {
        let path: Vec<String> = placed
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        out.push_str(&format!(
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"{}/>",
            path.join(" "),
            dash(series.dashed)
        ));
    }
    for (&(x, y), &(px, py)) in points.iter().zip(&placed) {
        let tip = format!("{}: {}, {}", series.name, number(x), number(y));
        out.push_str(&marker(series.mark, px, py, color, &tip));
    }
    out.push_str("</g>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_axis_leaves_out_what_it_cannot_place_and_says_so() {
        let mut chart = LineChart::new("t", Axis::log("size"), Axis::from_zero("rtt"));
        chart.series.push(Series::new(
            "s",
            Mark::Line,
            vec![
                (0.0, 1.0),
                (-4.0, 2.0),
                (64.0, f64::NAN),
                (64.0, 3.0),
                (128.0, 4.0),
            ],
        ));
        let svg = chart.render();
        assert!(svg.contains("3 points not shown"), "{svg}");
        assert!(svg.contains("<polyline"));
    }

    #[test]
    fn one_point_left_out_is_one_point() {
        let mut chart = LineChart::new("t", Axis::log("size"), Axis::from_zero("rtt"));
        let points = vec![(0.0, 1.0), (64.0, 3.0), (128.0, 4.0)];
        chart.series.push(Series::new("s", Mark::Line, points));
        let svg = chart.render();
        assert!(svg.contains(">1 point not shown"), "{svg}");
    }

    #[test]
    fn charts_without_plottable_points_say_so() {
        let mut chart = LineChart::new("empty", Axis::log("x"), Axis::log("y"));
        chart
            .series
            .push(Series::new("s", Mark::Dots, vec![(0.0, 0.0)]));
        assert!(chart.render().contains("no plottable data"));
    }
}
