//! Gives the shared library the name it is linked by (`DT_SONAME`). Without one, a program
//! linked against `libbgfast.so` by its path, as CMake and Meson link imported libraries,
//! records that path (the build directory) and fails to start once the library is
//! installed elsewhere; with it, the program asks for `libbgfast.so` and the loader finds
//! it on the usual search path (`-rpath`, `LD_LIBRARY_PATH`, `/usr/local/lib`).

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if matches!(
        os.as_str(),
        "linux" | "freebsd" | "netbsd" | "openbsd" | "dragonfly"
    ) {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libbgfast.so");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
