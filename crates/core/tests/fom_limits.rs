//! What the object-model loader refuses as a whole: models of more classes than a federation
//! can hold (at load, so at `fom check`, create and join alike), and module files that are
//! not UTF-8 (with the byte offset of the first byte that is not).

use std::path::PathBuf;
use trellis_core::fom::{FddErrorKind, FomError, MimErrorKind, ObjectModel, MAX_CLASSES};

/// A module of `classes` object classes named `{prefix}0`, `{prefix}1`, ... under
/// HLAobjectRoot, one attribute each; its `<objectModel>` is on line 2.
fn generated_module(prefix: &str, classes: usize) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <objectModel xmlns=\"http://standards.ieee.org/IEEE1516-2010\">\n\
         <objects><objectClass><name>HLAobjectRoot</name>\n",
    );
    for class in 0..classes {
        xml.push_str(&format!(
            "<objectClass><name>{prefix}{class}</name><attribute><name>Value</name>\
             <dataType>HLAinteger32BE</dataType></attribute></objectClass>\n"
        ));
    }
    xml.push_str("</objectClass></objects></objectModel>\n");
    xml
}

/// Classes of the standard MIM, which every model has (object and interaction).
fn mim_classes() -> usize {
    let mim = ObjectModel::from_sources(&[]).expect("the standard MIM alone loads");
    mim.object_classes().len() + mim.interaction_classes().len()
}

/// The one error of a refused load.
fn only_error(result: Result<ObjectModel, trellis_core::fom::FomErrors>) -> FomError {
    let errors = result.expect_err("refused");
    assert_eq!(errors.0.len(), 1, "{errors}");
    assert_eq!(errors.kind(), FddErrorKind::ErrorReading, "{errors}");
    errors.0[0].clone()
}

#[test]
fn a_model_of_exactly_as_many_classes_as_a_federation_holds_loads_and_one_more_is_refused() {
    // The module's classes hang under the MIM's HLAobjectRoot: each adds one class.
    let fitting = MAX_CLASSES - mim_classes();
    let xml = generated_module("Fits", fitting);
    let model = ObjectModel::from_sources(&[("fits.xml", &xml)]).expect("at the limit");
    let counts = model.counts();
    assert_eq!(
        counts.object_classes + counts.interaction_classes,
        MAX_CLASSES
    );

    let xml = generated_module("Over", fitting + 1);
    let error = only_error(ObjectModel::from_sources(&[("over.xml", &xml)]));
    assert_eq!(
        (error.file.as_str(), error.line, error.element.as_str()),
        ("over.xml", 2, "objectModel"),
        "{error}"
    );
    let total = format!("the model has {} classes", MAX_CLASSES + 1);
    let limit = format!("more than the {MAX_CLASSES} a federation can hold");
    let module = format!("this module's {} classes pass the limit", fitting + 1);
    for needed in [total, limit, module] {
        assert!(error.message.contains(&needed), "{needed:?} in {error}");
    }
}

/// A federate joining with additional modules loads the federation's modules and its own
/// together; when its own pass the limit, that load is refused naming its module, before
/// it asks to join, and the federation's modules load as they did.
#[test]
fn additional_modules_that_pass_the_limit_are_refused_naming_the_module_that_does() {
    let base = generated_module("Base", MAX_CLASSES / 2);
    let addition = generated_module("Added", MAX_CLASSES / 2);
    let federation = ObjectModel::from_sources(&[("base.xml", &base)]).expect("base fits");
    let error = only_error(ObjectModel::from_sources(&[
        ("base.xml", &base),
        ("addition.xml", &addition),
    ]));
    assert_eq!(
        (error.file.as_str(), error.element.as_str()),
        ("addition.xml", "objectModel"),
        "{error}"
    );
    let module = format!("this module's {} classes pass the limit", MAX_CLASSES / 2);
    assert!(error.message.contains(&module), "{error}");
    let again = ObjectModel::from_sources(&[("base.xml", &base)]).expect("base still fits");
    assert_eq!(again.fingerprint(), federation.fingerprint());
}

/// A file in the temporary directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, bytes: &[u8]) -> TempFile {
        let path =
            std::env::temp_dir().join(format!("trellis-fom-limits-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).expect("temporary file");
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A module written in Latin-1 that says so: é is the one byte 0xE9, on line 3.
fn latin1_module(declaration: &str) -> Vec<u8> {
    let mut bytes = format!("{declaration}\n<objectModel>\n<!-- caf").into_bytes();
    bytes.push(0xE9);
    bytes.extend_from_slice(b" -->\n</objectModel>\n");
    bytes
}

#[test]
fn a_module_that_is_not_utf8_is_refused_with_the_offset_and_line_of_the_first_bad_byte() {
    let bytes = latin1_module("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>");
    let offset = bytes.iter().position(|&b| b == 0xE9).expect("the é");
    let file = TempFile::new("latin1.xml", &bytes);
    let error = only_error(ObjectModel::load(&[&file.0], &|path| std::fs::read(path)));
    assert_eq!((error.line, error.element.as_str()), (3, "xml"), "{error}");
    let at = format!("not valid UTF-8 at byte offset {offset} (byte 0xE9)");
    assert!(error.message.contains(&at), "{at:?} in {error}");
    assert!(
        error.message.contains("declares encoding \"ISO-8859-1\""),
        "{error}"
    );

    // Undeclared, it is simply not UTF-8.
    let file = TempFile::new("undeclared.xml", &latin1_module("<?xml version=\"1.0\"?>"));
    let error = only_error(ObjectModel::load(&[&file.0], &|path| std::fs::read(path)));
    assert!(error.message.contains("not valid UTF-8"), "{error}");
    assert!(!error.message.contains("declares"), "{error}");
}

#[test]
fn a_mim_that_is_not_utf8_is_error_reading_mim_with_the_offset() {
    let bytes = latin1_module("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>");
    let offset = bytes.iter().position(|&b| b == 0xE9).expect("the é");
    let file = TempFile::new("mim.xml", &bytes);
    let designator = file.0.display().to_string();
    let error = ObjectModel::load_with_mim::<&str>(&designator, &[], &|path| std::fs::read(path))
        .expect_err("refused");
    assert_eq!(error.kind(), MimErrorKind::ErrorReadingMim, "{error}");
    let at = format!("{designator}:3: <xml>: not valid UTF-8 at byte offset {offset}");
    assert!(error.to_string().contains(&at), "{at:?} in {error}");
}
