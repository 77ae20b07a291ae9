//! The checked-in header `include/bgfast.h` is what cbindgen generates from the crate now;
//! `BGFAST_BLESS=1 cargo test -p bgfast-c --test header` rewrites it.

use std::path::Path;

#[test]
fn the_checked_in_header_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate")
        .write(&mut generated);
    let path = dir.join("include").join("bgfast.h");
    if std::env::var_os("BGFAST_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write the header");
        return;
    }
    let checked_in = std::fs::read(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "rust/bgfast-c/include/bgfast.h is stale: run \
         BGFAST_BLESS=1 cargo test -p bgfast-c --test header, and commit it"
    );
}
