//! librados ships no pkg-config file on Debian: link `-lrados` directly and
//! fail early, with the package to install, when the library is missing.
fn main() {
    println!("cargo:rerun-if-env-changed=RADOS_LIB_DIR");
    if let Ok(dir) = std::env::var("RADOS_LIB_DIR") {
        println!("cargo:rustc-link-search=native={dir}");
    }
    let found = std::env::var("RADOS_LIB_DIR").is_ok()
        || [
            "/usr/lib/x86_64-linux-gnu",
            "/usr/lib/aarch64-linux-gnu",
            "/usr/lib64",
            "/usr/lib",
            "/usr/local/lib",
        ]
        .iter()
        .any(|d| std::path::Path::new(d).join("librados.so").exists());
    if !found {
        panic!(
            "librados.so not found: install librados-dev (Debian/Ubuntu) or \
             librados-devel (RPM), or set RADOS_LIB_DIR; build rsgw without \
             `--features rados` to use only the embedded backend"
        );
    }
    println!("cargo:rustc-link-lib=dylib=rados");
}
