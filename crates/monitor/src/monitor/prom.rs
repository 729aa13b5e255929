//! A reader of the Prometheus text exposition format (version 0.0.4), small and tolerant.
//!
//! The monitor reads what Trellis processes write, but a process of another version may add
//! series, comments or timestamps: a line that cannot be read is skipped and counted (with
//! its line number for the log), never a failure of the whole scrape. Comments (`# HELP`,
//! `# TYPE`) carry nothing the monitor needs and are skipped. Label values are unescaped
//! (`\\`, `\"`, `\n`); values may be `NaN`, `+Inf`, `-Inf`; a trailing timestamp is ignored.

/// One series' value at the time of the scrape.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub value: f64,
}

impl Sample {
    /// The value of label `name`, if the series carries it.
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// What a scrape's text held: its samples, and the lines that could not be read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Exposition {
    pub samples: Vec<Sample>,
    /// One-based line numbers of lines skipped as unreadable.
    pub bad_lines: Vec<usize>,
}

/// Read a whole exposition; never fails (see the module docs).
pub fn parse(text: &str) -> Exposition {
    let mut out = Exposition::default();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match parse_line(line) {
            Some(sample) => out.samples.push(sample),
            None => out.bad_lines.push(index + 1),
        }
    }
    out
}

/// `name{label="value",...} value [timestamp]`, or `name value [timestamp]`.
fn parse_line(line: &str) -> Option<Sample> {
    let name_end = line
        .find(|c: char| c == '{' || c.is_whitespace())
        .unwrap_or(line.len());
    let name = &line[..name_end];
    if !is_metric_name(name) {
        return None;
    }
    let mut rest = &line[name_end..];
    let mut labels = Vec::new();
    if let Some(after_brace) = rest.strip_prefix('{') {
        let (read, after) = parse_labels(after_brace)?;
        labels = read;
        rest = after;
    }
    let mut fields = rest.split_whitespace();
    let value = parse_value(fields.next()?)?;
    // An optional timestamp, then nothing.
    if let Some(stamp) = fields.next() {
        stamp.parse::<i64>().ok()?;
    }
    if fields.next().is_some() {
        return None;
    }
    Some(Sample {
        name: name.to_owned(),
        labels,
        value,
    })
}

fn is_metric_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// The labels after `{` up to the closing `}`; returns them and the text after `}`.
fn parse_labels(mut text: &str) -> Option<(Vec<(String, String)>, &str)> {
    let mut labels = Vec::new();
    loop {
        text = text.trim_start();
        if let Some(after) = text.strip_prefix('}') {
            return Some((labels, after));
        }
        let eq = text.find('=')?;
        let key = text[..eq].trim();
        if !is_metric_name(key) {
            return None;
        }
        let (value, after) = parse_quoted(text[eq + 1..].trim_start())?;
        labels.push((key.to_owned(), value));
        text = after.trim_start();
        if let Some(after_comma) = text.strip_prefix(',') {
            text = after_comma;
        } else if !text.starts_with('}') {
            return None;
        }
    }
}

/// A double-quoted label value with its escapes; returns it and the text after the quote.
fn parse_quoted(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = body.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Some((value, &body[at + 1..])),
            '\\' => match chars.next()?.1 {
                'n' => value.push('\n'),
                other => value.push(other),
            },
            c => value.push(c),
        }
    }
    None
}

fn parse_value(text: &str) -> Option<f64> {
    match text {
        "NaN" => Some(f64::NAN),
        "+Inf" | "Inf" => Some(f64::INFINITY),
        "-Inf" => Some(f64::NEG_INFINITY),
        _ => text.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_series_with_and_without_labels() {
        let text = "# HELP trellis_process_resident_memory_bytes Resident memory.\n\
                    # TYPE trellis_process_resident_memory_bytes gauge\n\
                    trellis_process_resident_memory_bytes{process=\"r1\"} 1.5e6\n\
                    up 1\n";
        let read = parse(text);
        assert!(read.bad_lines.is_empty());
        assert_eq!(read.samples.len(), 2);
        assert_eq!(read.samples[0].label("process"), Some("r1"));
        assert_eq!(read.samples[0].value, 1_500_000.0);
        assert_eq!(read.samples[1].name, "up");
        assert!(read.samples[1].labels.is_empty());
    }

    #[test]
    fn unescapes_label_values_and_allows_a_trailing_comma_and_timestamp() {
        let text = "m{a=\"x\\\"y\",b=\"back\\\\slash\",c=\"two\\nlines\",} 3 1700000000000\n";
        let sample = &parse(text).samples[0];
        assert_eq!(sample.label("a"), Some("x\"y"));
        assert_eq!(sample.label("b"), Some("back\\slash"));
        assert_eq!(sample.label("c"), Some("two\nlines"));
        assert_eq!(sample.value, 3.0);
    }

    #[test]
    fn reads_special_values() {
        let read = parse("a NaN\nb +Inf\nc -Inf\n");
        assert!(read.samples[0].value.is_nan());
        assert_eq!(read.samples[1].value, f64::INFINITY);
        assert_eq!(read.samples[2].value, f64::NEG_INFINITY);
    }

    #[test]
    fn skips_bad_lines_and_names_them_keeping_the_rest() {
        let text = "good 1\n{process=\"x\"} 2\nm{a=\"open 3\nm{a=b} 4\nm 1 2 3\nm one\nalso_good{x=\"\"} 0\n";
        let read = parse(text);
        assert_eq!(read.bad_lines, vec![2, 3, 4, 5, 6]);
        let names: Vec<&str> = read.samples.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["good", "also_good"]);
        assert_eq!(read.samples[1].label("x"), Some(""));
    }

    #[test]
    fn a_label_value_may_hold_braces_commas_and_spaces() {
        let sample = &parse("m{peer=\"a, b} c\"} 7\n").samples[0];
        assert_eq!(sample.label("peer"), Some("a, b} c"));
        assert_eq!(sample.value, 7.0);
    }
}
