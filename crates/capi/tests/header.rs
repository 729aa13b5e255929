//! The committed C header is what cbindgen makes of the sources today.
//! `TRELLIS_BLESS=1 cargo test -p trellis-capi --test header` rewrites it.

use std::path::Path;

#[test]
fn committed_header_is_generated_from_the_sources() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config =
        cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let path = crate_dir.join("include/trellis_rti.h");
    if std::env::var_os("TRELLIS_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write the header");
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "crates/capi/include/trellis_rti.h is stale: run `TRELLIS_BLESS=1 cargo test -p trellis-capi --test header`"
    );
}
