//! `trellis fom check` on the real RPR FOM 2.0 modules and on broken input.

use std::path::PathBuf;
use std::process::Command;

fn trellis(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(args)
        .output()
        .unwrap()
}

fn rpr_modules() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fom/rpr-2.0");
    assert!(dir.is_dir(), "RPR FOM 2.0 expected in {}", dir.display());
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    files.sort();
    files
}

#[test]
fn the_rpr_fom_counts_as_json() {
    let mut args = vec!["fom", "check", "--json"];
    let modules = rpr_modules();
    args.extend(modules.iter().map(String::as_str));
    let out = trellis(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = String::from_utf8(out.stdout).unwrap();
    for (key, value) in [
        // RPR's own, merged after the standard MIM (4 object classes, 85 interaction
        // classes, 45 attributes, 101 parameters, 2 dimensions, 33 data types; the roots
        // count once).
        ("object_classes", 64 + 4 - 1),
        ("interaction_classes", 79 + 85 - 1),
        ("attributes", 311 + 45),
        ("parameters", 277 + 101),
        ("dimensions", 2),
        ("data_types", 286 + 33),
    ] {
        assert!(
            json.contains(&format!("\"{key}\": {value}")),
            "{key} in {json}"
        );
    }
}

#[test]
fn errors_name_file_and_line_and_exit_1() {
    let dir = std::env::temp_dir().join(format!("trellis-fom-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.xml");
    std::fs::write(&bad, "<objectModel>\n<objects>\n<objectClass><name>HLAobjectRoot</name>\n<attribute><transportation>x</transportation></attribute>\n</objectClass>\n</objects>\n</objectModel>\n").unwrap();
    let out = trellis(&["fom", "check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!("{}:4: <attribute>: has no <name>", bad.display())),
        "{stderr}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A file in a fresh temporary directory of this test process.
fn temp_file(test: &str, name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("trellis-fom-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn an_ieee_1516_2000_model_is_refused_with_what_to_do() {
    let old = temp_file(
        "old",
        "old.xml",
        "<objectModel DTDversion=\"1516.2\" name=\"Old\">\n<objects><objectClass name=\"HLAobjectRoot\"/></objects>\n</objectModel>\n",
    );
    let out = trellis(&["fom", "check", old.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!(
            "{}:1: <objectModel>: IEEE 1516-2000 object models are not supported; \
             convert to IEEE 1516-2010 (HLA Evolved) format",
            old.display()
        )),
        "{stderr}"
    );
    std::fs::remove_dir_all(old.parent().unwrap()).unwrap();
}

#[test]
fn two_definitions_of_a_class_that_differ_name_both_files() {
    let module = |attribute: &str| {
        format!(
            "<objectModel>\n<objects><objectClass><name>HLAobjectRoot</name>\n\
             <objectClass><name>Tank</name>\n\
             <attribute><name>{attribute}</name><dataType>HLAfloat32BE</dataType></attribute>\n\
             </objectClass></objectClass></objects></objectModel>\n"
        )
    };
    let first = temp_file("differ", "first.xml", &module("Speed"));
    let second = first.with_file_name("second.xml");
    std::fs::write(&second, module("Armour")).unwrap();
    let out = trellis(&[
        "fom",
        "check",
        first.to_str().unwrap(),
        second.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let expected = format!(
        "{}:4: <attribute>: HLAobjectRoot.Tank is defined differently at {}:3: \
         attribute Armour is defined here but not there",
        second.display(),
        first.display()
    );
    assert!(stderr.contains(&expected), "{expected}\n{stderr}");
    std::fs::remove_dir_all(first.parent().unwrap()).unwrap();
}

#[test]
fn the_standard_mim_is_named_and_loads_by_its_designator() {
    let out = trellis(&["fom", "check", "HLAstandardMIM"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.starts_with("1 modules: 4 object classes, 85 interaction classes"),
        "{stdout}"
    );
    assert!(stdout.contains("modules: HLAstandardMIM.xml"), "{stdout}");
}

#[test]
fn data_type_errors_name_file_and_line() {
    let dir = std::env::temp_dir().join(format!("trellis-fom-types-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let recursive = dir.join("recursive.xml");
    std::fs::write(
        &recursive,
        "<objectModel>\n<dataTypes>\n<fixedRecordDataTypes>\n\
         <fixedRecordData><name>Loop</name>\n\
         <field><name>Again</name><dataType>Loop</dataType></field>\n\
         </fixedRecordData>\n</fixedRecordDataTypes>\n</dataTypes>\n</objectModel>\n",
    )
    .unwrap();
    let out = trellis(&["fom", "check", recursive.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!(
            "{}:4: <fixedRecordData>: data type Loop contains itself",
            recursive.display()
        )),
        "{stderr}"
    );

    let unknown = dir.join("unknown.xml");
    std::fs::write(
        &unknown,
        "<objectModel>\n<objects><objectClass><name>HLAobjectRoot</name>\n\
         <objectClass><name>Thing</name>\n\
         <attribute><name>Where</name><dataType>Location</dataType></attribute>\n\
         </objectClass></objectClass></objects>\n</objectModel>\n",
    )
    .unwrap();
    let out = trellis(&["fom", "check", "--json", unknown.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!(
            "{}:4: <attribute>: HLAobjectRoot.Thing.Where: data type Location is not declared",
            unknown.display()
        )),
        "{stderr}"
    );
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(json.contains("\"line\": 4"), "{json}");
    assert!(
        json.contains("data type Location is not declared"),
        "{json}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// The sloppy-but-harmless modules of the core's tests, each with the line of its one
/// warning and the element it names.
const LENIENT: [(&str, u32, &str); 5] = [
    ("undeclared-xsi.xml", 3, "objectModel"),
    ("order-case.xml", 12, "order"),
    ("repeated-enumerator.xml", 18, "enumerator"),
    ("restated-inherited-attribute.xml", 18, "attribute"),
    ("restated-mim.xml", 6, "objectClass"),
];

fn lenient(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/data/fom/lenient")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn sloppy_modules_load_with_one_warning_each_and_strict_refuses_them() {
    for (name, line, element) in LENIENT {
        let file = lenient(name);
        let out = trellis(&["fom", "check", &file]);
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(out.status.success(), "{name}: {stderr}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.contains(", 1 warnings\n"), "{name}: {stdout}");
        let warnings: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("warning: "))
            .collect();
        let expected = format!("warning: {file}:{line}: <{element}>: ");
        assert!(
            warnings.len() == 1 && warnings[0].starts_with(&expected),
            "{expected}\n{stderr}"
        );

        let out = trellis(&["fom", "check", "--strict", &file]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(&expected), "{name}: {stderr}");
        assert!(stderr.contains("refused by --strict"), "{name}: {stderr}");
    }
}

#[test]
fn warnings_are_listed_as_json_with_file_and_line() {
    let file = lenient("order-case.xml");
    let out = trellis(&["fom", "check", "--json", &file]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings = json["warnings"].as_array().expect("a list of warnings");
    assert_eq!(warnings.len(), 1, "{json}");
    assert_eq!(warnings[0]["file"], file.as_str());
    assert_eq!(warnings[0]["line"], 12);
    assert_eq!(warnings[0]["element"], "order");
    assert!(
        (warnings[0]["message"].as_str().unwrap()).contains("read as TimeStamp"),
        "{json}"
    );
}

#[test]
fn strict_accepts_a_model_without_warnings() {
    let mut args = vec!["fom", "check", "--strict", "--json"];
    let modules = rpr_modules();
    args.extend(modules.iter().map(String::as_str));
    let out = trellis(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["warnings"], serde_json::json!([]));
}
