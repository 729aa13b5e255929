//! The Prometheus text exposition format (version 0.0.4), written by hand: families with
//! `# HELP` and `# TYPE` lines, each family's samples together, label values escaped.

use std::fmt::Write;

/// How Prometheus should treat a family.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Only goes up (restarts from zero when the process does); names end in `_total`.
    Counter,
    /// Goes up and down.
    Gauge,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
        }
    }
}

struct Family {
    name: &'static str,
    help: &'static str,
    kind: Kind,
    /// Sample lines, each ending in a newline.
    samples: String,
}

/// One scrape's text being built. Every sample carries the `process` label first.
pub struct Exposition {
    process: String,
    families: Vec<Family>,
}

impl Exposition {
    pub fn new(process: &str) -> Exposition {
        Exposition {
            process: process.to_owned(),
            families: Vec::new(),
        }
    }

    /// Add one sample of family `name`; the family's help and kind are taken from its first
    /// sample. Samples of one family may be added in any order relative to other families.
    pub fn sample(
        &mut self,
        name: &'static str,
        kind: Kind,
        help: &'static str,
        labels: &[(&str, &str)],
        value: f64,
    ) {
        let at = match self.families.iter().position(|f| f.name == name) {
            Some(at) => at,
            None => {
                self.families.push(Family {
                    name,
                    help,
                    kind,
                    samples: String::new(),
                });
                self.families.len() - 1
            }
        };
        let line = &mut self.families[at].samples;
        line.push_str(name);
        line.push_str("{process=\"");
        line.push_str(&escape_label_value(&self.process));
        line.push('"');
        for (label, value) in labels {
            let _ = write!(line, ",{label}=\"{}\"", escape_label_value(value));
        }
        line.push_str("} ");
        line.push_str(&format_value(value));
        line.push('\n');
    }

    pub fn render(&self) -> String {
        let mut text = String::new();
        for family in &self.families {
            let _ = writeln!(text, "# HELP {} {}", family.name, escape_help(family.help));
            let _ = writeln!(text, "# TYPE {} {}", family.name, family.kind.name());
            text.push_str(&family.samples);
        }
        text
    }
}

/// A label value inside double quotes: backslash, double quote and line feed escaped.
pub fn escape_label_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// Help text: backslash and line feed escaped (quotes may stay).
pub fn escape_help(help: &str) -> String {
    help.replace('\\', "\\\\").replace('\n', "\\n")
}

/// Whole numbers without a fraction (counters read naturally), others as Rust prints them
/// (never an exponent), and the special values as Prometheus spells them.
pub fn format_value(value: f64) -> String {
    if value.is_nan() {
        "NaN".into()
    } else if value.is_infinite() {
        if value > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else if value.fract() == 0.0 && value.abs() < 9.007_199_254_740_992e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_escape_backslash_quote_and_newline() {
        assert_eq!(escape_label_value(r#"a\b"c"#), r#"a\\b\"c"#);
        assert_eq!(escape_label_value("line\nnext"), "line\\nnext");
        assert_eq!(escape_label_value("plain-name.1"), "plain-name.1");
    }

    #[test]
    fn help_escapes_backslash_and_newline_only() {
        assert_eq!(escape_help("a \"b\" c\\d\ne"), "a \"b\" c\\\\d\\ne");
    }

    #[test]
    fn values_print_as_prometheus_reads_them() {
        assert_eq!(format_value(3.0), "3");
        assert_eq!(format_value(0.25), "0.25");
        assert_eq!(format_value(f64::NAN), "NaN");
        assert_eq!(format_value(f64::INFINITY), "+Inf");
        assert_eq!(format_value(f64::NEG_INFINITY), "-Inf");
        assert_eq!(format_value(1e300).parse::<f64>().unwrap(), 1e300);
    }

    #[test]
    fn a_family_has_help_and_type_once_and_its_samples_together() {
        let mut out = Exposition::new("r\"1");
        out.sample("t_a_total", Kind::Counter, "A things.", &[("d", "in")], 1.0);
        out.sample("t_b", Kind::Gauge, "B now.", &[], 2.5);
        out.sample(
            "t_a_total",
            Kind::Counter,
            "A things.",
            &[("d", "out")],
            7.0,
        );
        assert_eq!(
            out.render(),
            "# HELP t_a_total A things.\n\
             # TYPE t_a_total counter\n\
             t_a_total{process=\"r\\\"1\",d=\"in\"} 1\n\
             t_a_total{process=\"r\\\"1\",d=\"out\"} 7\n\
             # HELP t_b B now.\n\
             # TYPE t_b gauge\n\
             t_b{process=\"r\\\"1\"} 2.5\n"
        );
    }
}
