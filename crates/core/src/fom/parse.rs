//! One OMT module's XML into declarations, with the line of each for later messages.

use super::error::{FomError, Site};
use roxmltree::{Document, Node};

pub(crate) struct MemberDecl {
    pub name: String,
    pub site: Site,
    pub data_type: String,
    pub transportation: Option<String>,
    pub order: Option<String>,
    pub dimensions: Vec<(String, Site)>,
}

pub(crate) struct ClassDecl {
    pub name: String,
    pub site: Site,
    pub members: Vec<MemberDecl>,
    pub children: Vec<ClassDecl>,
    /// Interaction classes carry these themselves; object classes per attribute.
    pub transportation: Option<String>,
    pub order: Option<String>,
    pub dimensions: Option<Vec<(String, Site)>>,
}

pub(crate) struct DimensionDecl {
    pub name: String,
    pub site: Site,
    pub upper_bound: Option<u64>,
    pub data_type: String,
}

pub(crate) struct TransportationDecl {
    pub name: String,
    pub site: Site,
    pub reliable: bool,
}

pub(crate) struct Module {
    pub file: String,
    pub objects: Option<ClassDecl>,
    pub interactions: Option<ClassDecl>,
    pub dimensions: Vec<DimensionDecl>,
    pub transportations: Vec<TransportationDecl>,
}

struct Parser<'a> {
    file: &'a str,
    doc: &'a Document<'a>,
    errors: Vec<FomError>,
}

fn children<'a, 'i>(node: Node<'a, 'i>, tag: &'static str) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == tag)
}

fn child<'a, 'i>(node: Node<'a, 'i>, tag: &'static str) -> Option<Node<'a, 'i>> {
    children(node, tag).next()
}

/// The trimmed text of a child element, if present and not blank.
fn text(node: Node<'_, '_>, tag: &'static str) -> Option<String> {
    let value = child(node, tag)?.text()?.trim();
    (!value.is_empty()).then(|| value.to_owned())
}

impl Parser<'_> {
    fn site(&self, node: Node<'_, '_>) -> Site {
        Site {
            file: self.file.to_owned(),
            line: self.doc.text_pos_at(node.range().start).row,
        }
    }

    fn name(&mut self, node: Node<'_, '_>) -> Option<String> {
        let name = text(node, "name");
        if name.is_none() {
            let element = node.tag_name().name().to_owned();
            let site = self.site(node);
            self.errors.push(site.error(&element, "has no <name>"));
        }
        name
    }

    fn dimension_refs(&self, node: Node<'_, '_>) -> Option<Vec<(String, Site)>> {
        let dims = child(node, "dimensions")?;
        Some(
            children(dims, "dimension")
                .filter_map(|d| {
                    let name = d.text()?.trim();
                    (!name.is_empty()).then(|| (name.to_owned(), self.site(d)))
                })
                .collect(),
        )
    }

    fn member(&mut self, node: Node<'_, '_>) -> Option<MemberDecl> {
        let name = self.name(node)?;
        Some(MemberDecl {
            name,
            site: self.site(node),
            data_type: text(node, "dataType").unwrap_or_default(),
            transportation: text(node, "transportation"),
            order: text(node, "order"),
            dimensions: self.dimension_refs(node).unwrap_or_default(),
        })
    }

    fn class(
        &mut self,
        node: Node<'_, '_>,
        class_tag: &'static str,
        member_tag: &'static str,
    ) -> Option<ClassDecl> {
        let name = self.name(node)?;
        let members = children(node, member_tag)
            .filter_map(|m| self.member(m))
            .collect();
        let children = children(node, class_tag)
            .filter_map(|c| self.class(c, class_tag, member_tag))
            .collect();
        Some(ClassDecl {
            name,
            site: self.site(node),
            members,
            children,
            transportation: text(node, "transportation"),
            order: text(node, "order"),
            dimensions: self.dimension_refs(node),
        })
    }

    /// The single root class of a section, if the section is there.
    fn root(
        &mut self,
        section: Option<Node<'_, '_>>,
        class_tag: &'static str,
        member_tag: &'static str,
    ) -> Option<ClassDecl> {
        let section = section?;
        let mut roots = children(section, class_tag);
        let root = roots.next()?;
        for extra in roots {
            let site = self.site(extra);
            self.errors.push(site.error(
                class_tag,
                "a module has one root class per section; this is a second",
            ));
        }
        self.class(root, class_tag, member_tag)
    }

    fn dimensions(&mut self, root: Node<'_, '_>) -> Vec<DimensionDecl> {
        let Some(section) = child(root, "dimensions") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for node in children(section, "dimension") {
            let Some(name) = self.name(node) else {
                continue;
            };
            let site = self.site(node);
            let upper_bound = match text(node, "upperBound") {
                None => None,
                Some(raw) => {
                    match raw.parse::<u64>() {
                        Ok(bound) if bound > 0 => Some(bound),
                        _ => {
                            self.errors.push(site.error(
                            "upperBound",
                            format!("dimension {name}: upper bound {raw:?} is not a positive integer"),
                        ));
                            continue;
                        }
                    }
                }
            };
            out.push(DimensionDecl {
                name,
                site,
                upper_bound,
                data_type: text(node, "dataType").unwrap_or_default(),
            });
        }
        out
    }

    fn transportations(&mut self, root: Node<'_, '_>) -> Vec<TransportationDecl> {
        let Some(section) = child(root, "transportations") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for node in children(section, "transportation") {
            let Some(name) = self.name(node) else {
                continue;
            };
            let site = self.site(node);
            let reliable = match text(node, "reliable").as_deref() {
                Some("Yes") => true,
                Some("No") => false,
                other => {
                    self.errors.push(site.error(
                        "reliable",
                        format!(
                            "transportation {name}: <reliable> must be Yes or No, not {other:?}"
                        ),
                    ));
                    continue;
                }
            };
            out.push(TransportationDecl {
                name,
                site,
                reliable,
            });
        }
        out
    }
}

/// Parse one module. XML that does not parse is one error with its position.
pub(crate) fn parse_module(file: &str, xml: &str) -> Result<Module, Vec<FomError>> {
    let doc = Document::parse(xml).map_err(|e| {
        let pos = e.pos();
        vec![FomError {
            file: file.to_owned(),
            line: pos.row,
            element: "xml".into(),
            message: format!("not well-formed XML: {e}"),
        }]
    })?;
    let root = doc.root_element();
    if root.tag_name().name() != "objectModel" {
        return Err(vec![FomError {
            file: file.to_owned(),
            line: doc.text_pos_at(root.range().start).row,
            element: root.tag_name().name().to_owned(),
            message: "the root element of an object model module is <objectModel>".into(),
        }]);
    }
    let mut parser = Parser {
        file,
        doc: &doc,
        errors: Vec::new(),
    };
    let objects = parser.root(child(root, "objects"), "objectClass", "attribute");
    let interactions = parser.root(child(root, "interactions"), "interactionClass", "parameter");
    let dimensions = parser.dimensions(root);
    let transportations = parser.transportations(root);
    if !parser.errors.is_empty() {
        return Err(parser.errors);
    }
    Ok(Module {
        file: file.to_owned(),
        objects,
        interactions,
        dimensions,
        transportations,
    })
}
