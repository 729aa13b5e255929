//! Object models in formats older than IEEE 1516-2010, refused with a message that says
//! so (instead of the dozens of "has no <name>" errors their elements would cause).
//!
//! How each is recognised:
//! - HLA 1.3 FED / OMD files are not XML but parenthesised lists: the first thing in the
//!   file (after blanks and `;;` comments) is `(`.
//! - IEEE 1516-2000 DIF files have `<objectModel DTDversion="1516.2" name=...>` and carry
//!   names as XML attributes (`<objectClass name="HLAobjectRoot">`), with no
//!   `<modelIdentification>` element. A 2010 module never has attributes on its
//!   `objectModel` other than namespaces and the schema location.

use super::error::FomError;
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
