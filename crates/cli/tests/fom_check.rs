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
    assert!(json.contains("\"data_type_errors\": []"), "{json}");
    for (key, value) in [
        ("object_classes", 64),
        ("interaction_classes", 79),
        ("attributes", 311),
        ("parameters", 277),
        ("dimensions", 0),
        ("data_types", 286),
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
         <attribute><name>Where</name><dataType>Location</dataType></attribute>\n\
         </objectClass></objects>\n</objectModel>\n",
    )
    .unwrap();
    let out = trellis(&["fom", "check", "--json", unknown.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!(
            "{}:3: <attribute>: HLAobjectRoot.Where: data type Location is not declared",
            unknown.display()
        )),
        "{stderr}"
    );
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(json.contains("\"line\": 3"), "{json}");
    assert!(
        json.contains("data type Location is not declared"),
        "{json}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
