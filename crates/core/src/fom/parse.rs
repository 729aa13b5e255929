//! One OMT module's XML into declarations, with the line of each for later messages.

use super::datatypes::{parse_data_types, DataTypeDecl};
use super::error::{respelled, spellings, FomError, FomWarning, Site};
use super::format;
use super::lines::Lines;
use super::update_rates::UpdateRateDecl;
use roxmltree::{Document, Node};
use rustc_hash::FxHashMap;

pub(crate) struct MemberDecl {
    pub name: String,
    pub site: Site,
    pub data_type: String,
    pub transportation: Option<String>,
    pub order: Option<String>,
    pub dimensions: Vec<(String, Site)>,
    /// Compared when two modules define the same class; not used by the RTI otherwise.
    pub properties: MemberProperties,
}

/// The OMT properties of an attribute the merge rules compare (1516.2-2010 table 5).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct MemberProperties {
    pub update_type: Option<String>,
    pub update_condition: Option<String>,
    pub ownership: Option<String>,
    pub sharing: Option<String>,
    /// Trellis extension (`<keepLatest>true</keepLatest>` in an attribute): updates of the
    /// attribute are keep-latest (`federate`, `router::latest`). Modules defining the same
    /// class must agree on it, as on the standard's properties.
    pub keep_latest: Option<String>,
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
    pub sharing: Option<String>,
    /// Trellis extension (`<keepLatest>true</keepLatest>` in an object class): every
    /// attribute of its instances, and of its subclasses' instances, is keep-latest.
    pub keep_latest: Option<String>,
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
    /// The module's XML as read, for the MOM's HLAreportFOMmoduleData.
    pub text: std::sync::Arc<str>,
    /// The line of its `<objectModel>`, for messages about the module as a whole.
    pub line: u32,
    pub objects: Option<ClassDecl>,
    pub interactions: Option<ClassDecl>,
    pub dimensions: Vec<DimensionDecl>,
    pub transportations: Vec<TransportationDecl>,
    pub update_rates: Vec<UpdateRateDecl>,
    /// `<modelIdentification><name>`, to recognise the standard MIM given explicitly.
    pub model_name: Option<String>,
    pub data_types: Vec<DataTypeDecl>,
    /// What was read leniently (see [`FomWarning`]), in document order.
    pub warnings: Vec<FomWarning>,
}

/// Far deeper than real models nest (RPR 2.0 goes four levels below its roots).
const MAX_CLASS_DEPTH: usize = 64;

/// The element names of one class hierarchy.
#[derive(Copy, Clone)]
struct ClassTags {
    class: &'static str,
    member: &'static str,
}

const OBJECT_TAGS: ClassTags = ClassTags {
    class: "objectClass",
    member: "attribute",
};

const INTERACTION_TAGS: ClassTags = ClassTags {
    class: "interactionClass",
    member: "parameter",
};

pub(crate) struct Parser<'a> {
    file: &'a str,
    lines: &'a Lines,
    pub(crate) errors: Vec<FomError>,
    pub(crate) warnings: Vec<FomWarning>,
}

pub(crate) fn children<'a, 'i>(
    node: Node<'a, 'i>,
    tag: &'static str,
) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == tag)
}

pub(crate) fn child<'a, 'i>(node: Node<'a, 'i>, tag: &'static str) -> Option<Node<'a, 'i>> {
    children(node, tag).next()
}

/// The trimmed text of a child element, if present and not blank.
pub(crate) fn text(node: Node<'_, '_>, tag: &'static str) -> Option<String> {
    let value = child(node, tag)?.text()?.trim();
    (!value.is_empty()).then(|| value.to_owned())
}

impl Parser<'_> {
    pub(crate) fn site(&self, node: Node<'_, '_>) -> Site {
        Site {
            file: self.file.to_owned(),
            line: self.lines.of(node),
        }
    }

    /// The text of an enumerated element (`<order>`, `<sharing>`, ...), in the standard's
    /// spelling: a value written in another letter case is read as the standard's, with a
    /// warning; anything else is returned as written.
    pub(crate) fn enumerated(
        &mut self,
        node: Node<'_, '_>,
        tag: &'static str,
        allowed: &[&'static str],
    ) -> Option<String> {
        let raw = text(node, tag)?;
        let Some(standard) = respelled(&raw, allowed) else {
            return Some(raw);
        };
        let site = child(node, tag).map_or_else(|| self.site(node), |c| self.site(c));
        self.warnings.push(site.warning(
            tag,
            format!("{raw} is spelled {standard} by IEEE 1516.2-2010; read as {standard}"),
        ));
        Some(standard.to_owned())
    }

    pub(crate) fn name(&mut self, node: Node<'_, '_>) -> Option<String> {
        let element = node.tag_name().name();
        let Some(name) = text(node, "name") else {
            let site = self.site(node);
            self.errors.push(site.error(element, "has no <name>"));
            return None;
        };
        // A dot inside a name would make two different classes share a qualified name.
        if name.contains('.') {
            let site = self.site(node);
            self.errors.push(site.error(
                element,
                format!(
                    "name {name:?} contains a dot, which separates the parts of qualified names"
                ),
            ));
            return None;
        }
        Some(name)
    }

    fn dimension_refs(&mut self, node: Node<'_, '_>) -> Option<Vec<(String, Site)>> {
        let dims = child(node, "dimensions")?;
        let mut refs = Vec::new();
        for reference in children(dims, "dimension") {
            let site = self.site(reference);
            match reference
                .text()
                .map(str::trim)
                .filter(|name| !name.is_empty())
            {
                Some(name) => refs.push((name.to_owned(), site)),
                None => self
                    .errors
                    .push(site.error("dimension", "a dimension reference has no name")),
            }
        }
        Some(refs)
    }

    fn member(&mut self, node: Node<'_, '_>) -> Option<MemberDecl> {
        let name = self.name(node)?;
        Some(MemberDecl {
            name,
            site: self.site(node),
            data_type: text(node, "dataType").unwrap_or_default(),
            transportation: self.enumerated(node, "transportation", spellings::TRANSPORTATION),
            order: self.enumerated(node, "order", spellings::ORDER),
            dimensions: self.dimension_refs(node).unwrap_or_default(),
            properties: MemberProperties {
                update_type: self.enumerated(node, "updateType", spellings::UPDATE_TYPE),
                update_condition: text(node, "updateCondition"),
                ownership: self.enumerated(node, "ownership", spellings::OWNERSHIP),
                sharing: self.enumerated(node, "sharing", spellings::SHARING),
                keep_latest: text(node, "keepLatest"),
            },
        })
    }

    fn class(&mut self, node: Node<'_, '_>, tags: ClassTags, depth: usize) -> Option<ClassDecl> {
        let site = self.site(node);
        // Real models nest a handful of levels; a limit keeps hostile input from exhausting
        // the stack here or memory in the quadratic growth of qualified names.
        if depth > MAX_CLASS_DEPTH {
            self.errors.push(site.error(
                tags.class,
                format!("classes nest deeper than {MAX_CLASS_DEPTH} levels"),
            ));
            return None;
        }
        let name = self.name(node)?;
        let members = children(node, tags.member)
            .filter_map(|m| self.member(m))
            .collect();
        let mut subclasses: Vec<ClassDecl> = Vec::new();
        let mut lines_by_name: FxHashMap<String, u32> = FxHashMap::default();
        for subclass in children(node, tags.class) {
            let Some(decl) = self.class(subclass, tags, depth + 1) else {
                continue;
            };
            match lines_by_name.get(&decl.name) {
                Some(first_line) => self.errors.push(decl.site.error(
                    tags.class,
                    format!(
                        "{} is declared twice under {name} in this module (first at line {first_line})",
                        decl.name
                    ),
                )),
                None => {
                    lines_by_name.insert(decl.name.clone(), decl.site.line);
                    subclasses.push(decl);
                }
            }
        }
        Some(ClassDecl {
            name,
            site,
            members,
            children: subclasses,
            transportation: self.enumerated(node, "transportation", spellings::TRANSPORTATION),
            order: self.enumerated(node, "order", spellings::ORDER),
            dimensions: self.dimension_refs(node),
            sharing: self.enumerated(node, "sharing", spellings::SHARING),
            keep_latest: text(node, "keepLatest"),
        })
    }

    /// The single root class of a section, if the section is there.
    fn root(&mut self, section: Option<Node<'_, '_>>, tags: ClassTags) -> Option<ClassDecl> {
        let section = section?;
        let mut roots = children(section, tags.class);
        let root = roots.next()?;
        for extra in roots {
            let site = self.site(extra);
            self.errors.push(site.error(
                tags.class,
                "a module has one root class per section; this is a second",
            ));
        }
        self.class(root, tags, 0)
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
            let reliable = match self
                .enumerated(node, "reliable", spellings::RELIABLE)
                .as_deref()
            {
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
    if let Some(refused) = format::refuse_hla13(file, xml) {
        return Err(vec![refused]);
    }
    let not_well_formed = |e: roxmltree::Error| {
        vec![FomError {
            file: file.to_owned(),
            line: e.pos().row,
            element: "xml".into(),
            message: format!("not well-formed XML: {e}"),
        }]
    };
    match Document::parse(xml) {
        Ok(doc) => parse_document(file, &doc, Vec::new()),
        Err(e) => {
            // A root that uses xsi:schemaLocation without declaring xmlns:xsi: declare it.
            let Some((patched, warning)) = format::declare_xsi(file, xml, &e) else {
                return Err(not_well_formed(e));
            };
            let doc = Document::parse(&patched).map_err(not_well_formed)?;
            parse_document(file, &doc, vec![warning])
        }
    }
}

fn parse_document(
    file: &str,
    doc: &Document<'_>,
    warnings: Vec<FomWarning>,
) -> Result<Module, Vec<FomError>> {
    let root = doc.root_element();
    if let Some(refused) = format::refuse_1516_2000(file, doc) {
        return Err(vec![refused]);
    }
    if root.tag_name().name() != "objectModel" {
        return Err(vec![FomError {
            file: file.to_owned(),
            line: doc.text_pos_at(root.range().start).row,
            element: root.tag_name().name().to_owned(),
            message: "the root element of an object model module is <objectModel>".into(),
        }]);
    }
    let lines = Lines::new(doc.input_text());
    let mut parser = Parser {
        file,
        lines: &lines,
        errors: Vec::new(),
        warnings,
    };
    let objects = parser.root(child(root, "objects"), OBJECT_TAGS);
    let interactions = parser.root(child(root, "interactions"), INTERACTION_TAGS);
    let dimensions = parser.dimensions(root);
    let transportations = parser.transportations(root);
    let update_rates = parser.update_rates(root);
    let model_name = child(root, "modelIdentification").and_then(|id| text(id, "name"));
    let (data_types, data_type_errors, data_type_warnings) = parse_data_types(file, &lines, root);
    parser.errors.extend(data_type_errors);
    parser.warnings.extend(data_type_warnings);
    if !parser.errors.is_empty() {
        return Err(parser.errors);
    }
    // In the order of the file, whatever order the sections were read in.
    parser.warnings.sort_by_key(|w| w.line);
    Ok(Module {
        file: file.to_owned(),
        text: std::sync::Arc::from(doc.input_text()),
        line: lines.of(root),
        objects,
        interactions,
        dimensions,
        transportations,
        update_rates,
        model_name,
        data_types,
        warnings: parser.warnings,
    })
}
