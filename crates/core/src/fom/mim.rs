//! The standard MIM (IEEE 1516.1-2010 clause 11, 1516.2-2010): HLAobjectRoot with
//! HLAprivilegeToDeleteObject, the MOM classes under HLAmanager, the HLAreliable and
//! HLAbestEffort transportations, the HLAfederate and HLAserviceGroup dimensions and the
//! HLA data types. Every federation's model starts with it: loaded first, implicitly,
//! unless the caller names it (or gives another MIM in its place).

use super::parse::Module;

/// The designator and `<modelIdentification><name>` of the standard MIM.
pub const STANDARD_MIM_NAME: &str = "HLAstandardMIM";

/// The `<modelIdentification><name>` of the standard's own HLAstandardMIM.xml.
pub const STANDARD_MIM_MODEL_NAME: &str =
    "Standard MOM and Initialization Module (MIM) for HLA IEEE 1516-2010";

/// The name the built-in MIM goes by in messages: the file it ships as, whose lines the
/// messages' line numbers refer to.
pub const STANDARD_MIM_FILE: &str = "HLAstandardMIM.xml";

/// The standard MIM as published with IEEE 1516.1-2010 (`foms/HLAstandardMIM.xml`, the
/// standard's file unchanged), built in so that core reads no files.
pub const STANDARD_MIM_XML: &str = include_str!("../../../../foms/HLAstandardMIM.xml");

/// Whether `designator` names the standard MIM itself: "HLAstandardMIM", or a path whose
/// file name is HLAstandardMIM.xml.
pub fn is_standard_mim_designator(designator: &str) -> bool {
    let file_name = designator.rsplit(['/', '\\']).next().unwrap_or(designator);
    file_name == STANDARD_MIM_NAME || file_name == STANDARD_MIM_FILE
}

/// Whether a module the caller gave is a MIM standing in for the built-in one: named so by
/// its file or by its model identification.
pub(crate) fn is_mim(module: &Module) -> bool {
    is_standard_mim_designator(&module.file)
        || matches!(
            module.model_name.as_deref(),
            Some(STANDARD_MIM_NAME | STANDARD_MIM_MODEL_NAME)
        )
}
