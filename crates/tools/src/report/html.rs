//! HTML assembly: escaping, number formatting, tables and the page itself. Every text that
//! may come from a results folder goes through [`escape`] on its way out.

/// `text` with `&`, `<`, `>`, `"` and `'` replaced by entities: safe in text and in quoted
/// attribute values, in HTML and inline SVG alike.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A number with four significant digits at most, trailing zeros trimmed; `–` when it is
/// not finite.
pub(crate) fn number(v: f64) -> String {
    if !v.is_finite() {
        return "–".to_owned();
    }
    if v == 0.0 {
        return "0".to_owned();
    }
    let magnitude = v.abs().log10().floor() as i32;
    if !(-6..15).contains(&magnitude) {
        return format!("{v:.3e}");
    }
    let decimals = (3 - magnitude).max(0) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

/// [`number`], or `–` when there is none.
pub(crate) fn opt_number(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_owned(), number)
}

/// A count, or `–` when there is none.
pub(crate) fn count(v: Option<u64>) -> String {
    v.map_or_else(|| "–".to_owned(), |v| v.to_string())
}

/// `n` and the noun, singular for one: "1 pair", "4 pairs" (nouns that take an s).
pub(crate) fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// One table cell: plain text (escaped when rendered) and an optional CSS class.
pub(crate) struct Cell {
    text: String,
    class: Option<&'static str>,
}

impl Cell {
    /// A value the reader should notice (a discarded pair mean, an interrupted run).
    pub(crate) fn marked(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            class: Some("marked"),
        }
    }

    /// A command line or file name.
    pub(crate) fn code(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            class: Some("code"),
        }
    }

    fn render(&self, tag: &str) -> String {
        match self.class {
            Some(class) => format!("<{tag} class=\"{class}\">{}</{tag}>", escape(&self.text)),
            None => format!("<{tag}>{}</{tag}>", escape(&self.text)),
        }
    }
}

impl From<String> for Cell {
    fn from(text: String) -> Cell {
        Cell { text, class: None }
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Cell {
        Cell::from(text.to_owned())
    }
}

/// A table of numbers: a caption, a header row, and rows whose first cell names the row.
pub(crate) struct Table {
    pub caption: String,
    pub head: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    pub(crate) fn new(caption: impl Into<String>, head: Vec<String>) -> Table {
        Table {
            caption: caption.into(),
            head,
            rows: Vec::new(),
        }
    }

    pub(crate) fn render(&self) -> String {
        let mut out = format!(
            "<div class=\"table\"><table><caption>{}</caption><thead><tr>",
            escape(&self.caption)
        );
        for head in &self.head {
            out.push_str(&format!("<th>{}</th>", escape(head)));
        }
        out.push_str("</tr></thead><tbody>");
        for row in &self.rows {
            out.push_str("<tr>");
            for cell in row {
                out.push_str(&cell.render("td"));
            }
            out.push_str("</tr>");
        }
        out.push_str("</tbody></table></div>");
        out
    }
}

/// A two-column table of named values (a run's header).
pub(crate) fn key_values(rows: Vec<(&str, Cell)>) -> String {
    let mut out = String::from("<table class=\"kv\"><tbody>");
    for (key, value) in rows {
        out.push_str(&format!(
            "<tr><th>{}</th>{}</tr>",
            escape(key),
            value.render("td")
        ));
    }
    out.push_str("</tbody></table>");
    out
}

/// A chart (already rendered SVG) with its caption (plain text).
pub(crate) fn figure(svg: String, caption: &str) -> String {
    format!(
        "<figure><div class=\"chart\">{svg}</div><figcaption>{}</figcaption></figure>",
        escape(caption)
    )
}

/// `html` folded away under a one-line summary (plain text).
pub(crate) fn details(summary: &str, html: String) -> String {
    format!(
        "<details><summary>{}</summary>{html}</details>",
        escape(summary)
    )
}

/// A paragraph of plain text.
pub(crate) fn paragraph(text: &str) -> String {
    format!("<p>{}</p>", escape(text))
}

/// One section of the report: an anchor, a heading (plain text) and its body (HTML).
pub(crate) struct Section {
    pub id: &'static str,
    pub title: String,
    pub body: String,
}

const STYLE: &str = "
body { font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; color: #222;
       max-width: 1100px; margin: 0 auto; padding: 0 1.5em 3em; }
h1 { margin-bottom: 0.2em; }
h2 { border-bottom: 2px solid #ddd; padding-bottom: 0.2em; margin-top: 2.2em; }
h3 { margin-top: 1.8em; }
nav ul { columns: 2; padding-left: 1.2em; }
figure { margin: 1.2em 0; }
figcaption { color: #555; font-size: 0.92em; margin-top: 0.3em; }
.chart { overflow-x: auto; }
.chart svg { display: block; }
.table { overflow-x: auto; margin: 0.6em 0 1.4em; }
table { border-collapse: collapse; font-size: 0.9em; }
caption { text-align: left; color: #555; padding-bottom: 0.3em; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.6em; text-align: right; }
th { background: #f4f4f4; }
td:first-child, th:first-child { text-align: left; }
.runs { display: grid; grid-template-columns: repeat(auto-fill, minmax(460px, 1fr));
        gap: 0 1.5em; }
table.kv { width: 100%; }
table.kv th { text-align: left; width: 7em; }
table.kv td { text-align: left; }
td.marked { color: #b3261e; font-weight: 600; }
td.code { font-family: ui-monospace, monospace; white-space: pre-wrap; word-break: break-all; }
details summary { cursor: pointer; color: #345; }
.method { background: #f6f8fa; border-left: 4px solid #4e79a7; padding: 0.6em 1em; }
";

/// The whole self-contained page: inline style, no scripts, and a policy that forbids the
/// browser to fetch anything.
pub(crate) fn page(intro: &str, sections: &[Section]) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" \
         content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Trellis benchmark report</title>\n<style>",
    );
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n<header><h1>Trellis benchmark report</h1>\n");
    out.push_str(intro);
    out.push_str("</header>\n<nav><ul>\n");
    for section in sections {
        out.push_str(&format!(
            "<li><a href=\"#{}\">{}</a></li>\n",
            section.id,
            escape(&section.title)
        ));
    }
    out.push_str("</ul></nav>\n<main>\n");
    for section in sections {
        out.push_str(&format!(
            "<section id=\"{}\">\n<h2>{}</h2>\n{}\n</section>\n",
            section.id,
            escape(&section.title),
            section.body
        ));
    }
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_of_a_thing_is_singular() {
        assert_eq!(plural(1, "pair"), "1 pair");
        assert_eq!(plural(0, "pair"), "0 pairs");
        assert_eq!(plural(4, "results folder"), "4 results folders");
    }

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn numbers_keep_four_significant_digits() {
        assert_eq!(number(120.5), "120.5");
        assert_eq!(number(0.2048), "0.2048");
        assert_eq!(number(12345.6), "12346");
        assert_eq!(number(1.6), "1.6");
        assert_eq!(number(-2.0), "-2");
        assert_eq!(number(f64::NAN), "–");
        assert_eq!(number(1e-9), "1.000e-9");
    }
}
