//! Grouped bar charts over named categories.

use super::{
    color, legend_row, no_data, note, open, range, shorten, Frame, LEFT, LEGEND_ROW, PLOT_HEIGHT,
    RIGHT, TOP, WIDTH,
};
use crate::report::axis::Scale;
use crate::report::html::{escape, number};

/// Below a bar chart's plot: slanted category labels.
const CATEGORY_SPACE: f64 = 120.0;
const MAX_CATEGORY_LABEL: usize = 30;

/// One series of a bar chart: a value per category, optionally with a whisker (low, high).
pub(crate) struct Bars {
    pub name: String,
    pub values: Vec<Option<f64>>,
    pub whiskers: Vec<Option<(f64, f64)>>,
    /// Drawn pale with a dashed outline: a raw-socket baseline.
    pub baseline: bool,
}

impl Bars {
    pub(crate) fn new(name: impl Into<String>, values: Vec<Option<f64>>) -> Bars {
        Bars {
            name: name.into(),
            values,
            whiskers: Vec::new(),
            baseline: false,
        }
    }

    pub(crate) fn baseline(mut self, baseline: bool) -> Bars {
        self.baseline = baseline;
        self
    }
}

/// A grouped bar chart over named categories, on a linear axis from zero.
pub(crate) struct BarChart {
    pub title: String,
    pub y_label: String,
    pub categories: Vec<String>,
    pub series: Vec<Bars>,
}

impl BarChart {
    pub(crate) fn new(
        title: impl Into<String>,
        y_label: impl Into<String>,
        categories: Vec<String>,
    ) -> BarChart {
        BarChart {
            title: title.into(),
            y_label: y_label.into(),
            categories,
            series: Vec::new(),
        }
    }

    /// The SVG text of the chart.
    pub(crate) fn render(&self) -> String {
        let scale = Scale::FromZero;
        let value = |s: &Bars, i: usize| {
            s.values
                .get(i)
                .copied()
                .flatten()
                .filter(|&v| scale.accepts(v))
        };
        let whisker = |s: &Bars, i: usize| {
            s.whiskers
                .get(i)
                .copied()
                .flatten()
                .filter(|&(lo, hi)| scale.accepts(lo) && scale.accepts(hi))
        };
        let n = self.categories.len();
        let mut hidden = 0;
        let mut extent = Vec::new();
        for s in &self.series {
            for i in 0..n {
                match value(s, i) {
                    Some(v) => extent.push(v),
                    None if s.values.get(i).copied().flatten().is_some() => hidden += 1,
                    None => {}
                }
                if let Some((lo, hi)) = whisker(s, i) {
                    extent.extend([lo, hi]);
                }
            }
        }
        let Some((lo, hi)) = range(extent.into_iter()) else {
            return no_data(&self.title);
        };
        let ticks = scale.ticks(lo, hi);
        let groups = self.series.len().max(1) as f64;
        let slot = ((WIDTH - LEFT - RIGHT) / n as f64)
            .max(groups * 12.0 + 10.0)
            .max(28.0);
        let frame = Frame {
            left: LEFT,
            top: TOP,
            width: slot * n as f64,
            height: PLOT_HEIGHT,
        };
        let width = frame.width + LEFT + RIGHT;
        let legend_top = frame.bottom() + CATEGORY_SPACE + 8.0;
        let mut height = legend_top + LEGEND_ROW * self.series.len() as f64;
        if hidden > 0 {
            height += LEGEND_ROW;
        }
        let mut out = open(width, height + 8.0, &self.title);
        out.push_str(&frame.y_axis(&ticks, &self.y_label));
        let zero = frame.y(&ticks, 0.0);
        let bar = slot * 0.8 / groups;
        for (c, category) in self.categories.iter().enumerate() {
            let cx = frame.left + slot * (c as f64 + 0.5);
            let ty = frame.bottom() + 14.0;
            out.push_str(&format!(
                "<text x=\"{cx:.1}\" y=\"{ty:.1}\" text-anchor=\"end\" \
                 transform=\"rotate(-35 {cx:.1} {ty:.1})\">{}<title>{}</title></text>",
                escape(&shorten(category, MAX_CATEGORY_LABEL)),
                escape(category)
            ));
            for (j, s) in self.series.iter().enumerate() {
                let x = frame.left + slot * (c as f64 + 0.1) + bar * j as f64;
                let Some(v) = value(s, c) else { continue };
                let y = frame.y(&ticks, v);
                let (top, h) = if y < zero {
                    (y, zero - y)
                } else {
                    (zero, y - zero)
                };
                let style = if s.baseline {
                    format!(
                        "fill=\"{0}\" fill-opacity=\"0.35\" stroke=\"{0}\" stroke-dasharray=\"4 2\"",
                        color(j)
                    )
                } else {
                    format!("fill=\"{}\"", color(j))
                };
                out.push_str(&format!(
                    "<rect x=\"{x:.1}\" y=\"{top:.1}\" width=\"{bar:.1}\" height=\"{h:.1}\" {style}>\
                     <title>{}</title></rect>",
                    escape(&format!("{} — {category}: {}", s.name, number(v)))
                ));
                if let Some((wlo, whi)) = whisker(s, c) {
                    let mx = x + bar / 2.0;
                    let (y1, y2) = (frame.y(&ticks, wlo), frame.y(&ticks, whi));
                    out.push_str(&format!(
                        "<path d=\"M{mx:.1} {y1:.1}V{y2:.1}M{a:.1} {y1:.1}H{b:.1}M{a:.1} {y2:.1}H{b:.1}\" \
                         stroke=\"#333\" fill=\"none\"><title>{}</title></path>",
                        escape(&format!("{} — {category}: {} to {}", s.name, number(wlo), number(whi))),
                        a = mx - bar / 4.0,
                        b = mx + bar / 4.0,
                    ));
                }
            }
        }
        out.push_str(&format!(
            "<line x1=\"{}\" x2=\"{}\" y1=\"{zero:.1}\" y2=\"{zero:.1}\" stroke=\"#555\"/>",
            frame.left,
            frame.left + frame.width
        ));
        out.push_str(&frame.border());
        for (j, s) in self.series.iter().enumerate() {
            let y = legend_top + LEGEND_ROW * j as f64;
            let swatch = format!(
                "<rect x=\"{LEFT}\" y=\"{:.1}\" width=\"26\" height=\"10\" fill=\"{}\"{}/>",
                y - 5.0,
                color(j),
                if s.baseline {
                    " fill-opacity=\"0.35\""
                } else {
                    ""
                }
            );
            out.push_str(&legend_row(y, swatch, &s.name));
        }
        if hidden > 0 {
            out.push_str(&note(
                legend_top + LEGEND_ROW * self.series.len() as f64 + 4.0,
                hidden,
                "not finite",
            ));
        }
        out.push_str("</svg>");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_without_values_says_so() {
        let bars = BarChart::new("b", "y", vec!["a".into()]);
        assert!(bars.render().contains("no plottable data"));
        assert!(BarChart::new("b", "y", Vec::new())
            .render()
            .contains("no plottable data"));
    }

    #[test]
    fn bars_may_be_negative_and_carry_whiskers() {
        let mut chart = BarChart::new("b", "y", vec!["one".into(), "two".into()]);
        let mut bars = Bars::new("s", vec![Some(-2.0), Some(5.0)]);
        bars.whiskers = vec![None, Some((4.0, 7.0))];
        chart.series.push(bars);
        let svg = chart.render();
        assert_eq!(svg.matches("<rect x=").count(), 4, "{svg}"); // 2 bars, legend, border
        assert!(svg.contains("4 to 7"));
    }
}
