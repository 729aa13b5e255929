//! Object models in formats older than IEEE 1516-2010, refused with a message that says
//! so (instead of the dozens of "has no `<name>`" errors their elements would cause).
//!
//! How each is recognised:
//! - HLA 1.3 FED / OMD files are not XML but parenthesised lists: the first thing in the
//!   file (after blanks and `;;` comments) is `(`.
//! - IEEE 1516-2000 DIF files have `<objectModel DTDversion="1516.2" name=...>` and carry
//!   names as XML attributes (`<objectClass name="HLAobjectRoot">`), with no
//!   `<modelIdentification>` element. A 2010 module never has attributes on its
//!   `objectModel` other than namespaces and the schema location.

use super::error::{FomError, FomWarning};
use roxmltree::{Document, Node};

pub(crate) const OLD_FORMAT_MESSAGE: &str =
    "IEEE 1516-2000 object models are not supported; convert to IEEE 1516-2010 (HLA Evolved) format";

const HLA13_MESSAGE: &str =
    "HLA 1.3 FED files are not supported; convert to IEEE 1516-2010 (HLA Evolved) format";

/// An HLA 1.3 FED file, refused.
pub(crate) fn refuse_hla13(file: &str, text: &str) -> Option<FomError> {
    let mut line = 1;
    for raw in text.lines() {
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with(";;") {
            line += 1;
            continue;
        }
        return trimmed.starts_with('(').then(|| FomError {
            file: file.to_owned(),
            line,
            element: "FED".into(),
            message: HLA13_MESSAGE.into(),
        });
    }
    None
}

/// An IEEE 1516-2000 DIF file (or an older draft), refused.
pub(crate) fn refuse_1516_2000(file: &str, doc: &Document<'_>) -> Option<FomError> {
    let root = doc.root_element();
    if root.tag_name().name() != "objectModel" {
        return None;
    }
    let old_root_attribute = root
        .attributes()
        .find(|a| a.namespace().is_none() && matches!(a.name(), "DTDversion" | "name" | "type"));
    let namespace = root.tag_name().namespace().unwrap_or("");
    let old_namespace = namespace.contains("1516-2000") || namespace.contains("1516.2-2000");
    let has_identification = root
        .children()
        .any(|c| c.is_element() && c.tag_name().name() == "modelIdentification");
    let named_by_attribute = !has_identification && first_class_named_by_attribute(root);
    (old_root_attribute.is_some() || old_namespace || named_by_attribute).then(|| FomError {
        file: file.to_owned(),
        line: doc.text_pos_at(root.range().start).row,
        element: "objectModel".into(),
        message: OLD_FORMAT_MESSAGE.into(),
    })
}

/// Whether a class element carries its name as an XML attribute, the 1516-2000 way.
fn first_class_named_by_attribute(root: Node<'_, '_>) -> bool {
    root.descendants()
        .find(|n| {
            n.is_element() && matches!(n.tag_name().name(), "objectClass" | "interactionClass")
        })
        .is_some_and(|class| {
            class.attribute("name").is_some()
                && !class
                    .children()
                    .any(|c| c.is_element() && c.tag_name().name() == "name")
        })
}

/// The XML Schema instance namespace, which the `xsi` prefix of `xsi:schemaLocation` names.
const XSI_NAMESPACE: &str = "http://www.w3.org/2001/XMLSchema-instance";

/// `xml` with `xmlns:xsi` declared on its root `<objectModel>`, when `error` is the `xsi`
/// prefix used undeclared (modules written by hand often carry `xsi:schemaLocation` alone):
/// the declaration goes into the root's start tag, on its line, so every line number
/// stays as in the file. None for any other error.
pub(crate) fn declare_xsi(
    file: &str,
    xml: &str,
    error: &roxmltree::Error,
) -> Option<(String, FomWarning)> {
    let roxmltree::Error::UnknownNamespace(prefix, _) = error else {
        return None;
    };
    if prefix != "xsi" {
        return None;
    }
    let (tag_start, name_end) = root_start_tag(xml)?;
    let name = &xml[tag_start + 1..name_end];
    if name.rsplit(':').next() != Some("objectModel") {
        return None;
    }
    let mut patched = String::with_capacity(xml.len() + XSI_NAMESPACE.len() + 16);
    patched.push_str(&xml[..name_end]);
    patched.push_str(&format!(" xmlns:xsi=\"{XSI_NAMESPACE}\""));
    patched.push_str(&xml[name_end..]);
    let line = xml[..tag_start].matches('\n').count() + 1;
    let warning = FomWarning {
        file: file.to_owned(),
        line: u32::try_from(line).unwrap_or(u32::MAX),
        element: "objectModel".into(),
        message: format!(
            "the xsi prefix (xsi:schemaLocation) is used without declaring xmlns:xsi; \
             read as {XSI_NAMESPACE}"
        ),
    };
    Some((patched, warning))
}

/// Where the root element's start tag begins (its `<`) and its name ends, skipping the
/// XML declaration, processing instructions, comments and a document type declaration.
fn root_start_tag(xml: &str) -> Option<(usize, usize)> {
    let mut at = 0;
    loop {
        let rest = &xml[at..];
        let trimmed = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        at += rest.len() - trimmed.len();
        let skip = if trimmed.starts_with("<?") {
            trimmed.find("?>")? + 2
        } else if trimmed.starts_with("<!--") {
            trimmed.find("-->")? + 3
        } else if trimmed.starts_with("<!DOCTYPE") {
            doctype_length(trimmed)?
        } else if let Some(tag) = trimmed.strip_prefix('<') {
            let name_length = tag
                .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
                .unwrap_or(tag.len());
            return Some((at, at + 1 + name_length));
        } else {
            return None;
        };
        at += skip;
    }
}

/// The length of `<!DOCTYPE ...>` at the start of `text`, internal subset included.
fn doctype_length(text: &str) -> Option<usize> {
    let mut in_subset = false;
    for (i, c) in text.char_indices() {
        match c {
            '[' => in_subset = true,
            ']' => in_subset = false,
            '>' if !in_subset => return Some(i + 1),
            _ => {}
        }
    }
    None
}
