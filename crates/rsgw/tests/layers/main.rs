//! The layering check: every crate under `crates/` with a `layers.toml`
//! keeps its modules in the layers it lists (rules in `check.rs`), and the
//! check finds violations planted in a small crate.

mod check;
mod lex;

use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/rsgw sits two levels below the workspace")
        .to_path_buf()
}

#[test]
fn every_layered_crate_keeps_its_layers() {
    let root = workspace();
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("layers.toml").is_file())
        .collect();
    crates.sort();
    // rsgw-bench has one at least: a check that finds nothing to check fails
    assert!(
        crates.iter().any(|c| c.ends_with("rsgw-bench")),
        "no layers.toml found under {}",
        root.join("crates").display()
    );
    let violations: Vec<String> = crates
        .iter()
        .flat_map(|c| check::check_crate(c, &root))
        .collect();
    for v in &violations {
        eprintln!("{v}");
    }
    assert!(
        violations.is_empty(),
        "layering violations ({}):\n{}",
        violations.len(),
        violations.join("\n")
    );
}

/// A crate with three layers (model: `model`, `error`; engine; ops) and a
/// test-only module. Lines ending in `// planted` break the rules; the clean
/// crate is this one without them.
const PLANTED: &[(&str, &str)] = &[
    (
        "layers.toml",
        r#"[[layer]]
name = "model"
doc = "records"
modules = ["model", "error"]

[[layer]]
name = "engine"
doc = "how records are written"
modules = ["engine"]

[[layer]]
name = "ops"
doc = "operations"
modules = ["ops"]

test_only = ["testutil"]
"#,
    ),
    (
        "src/lib.rs",
        r#"//! A crate in layers. crate::ops in a comment.
#![forbid(unsafe_code)]

mod engine;
mod error;
mod model;
mod ops;
mod stray; // planted
#[cfg(test)]
mod testutil;

use std::sync::Arc;

pub use error::Error as Failure;
pub use ops::{Runner, run as start};

/// Defined here: the top.
pub struct Top(Arc<Runner>);
"#,
    ),
    (
        "src/model/mod.rs",
        r##"//! Records; mentions crate::ops in a doc comment.
mod deep;
#[cfg(test)]
mod tests_file;

use crate::error::Error;
use crate::ops::run; // planted
use std::sync::Arc;

/// A record.
pub struct Rec(pub Arc<str>);

pub(crate) fn describe() -> &'static str {
    let _ = "crate::ops::run in a string";
    let _ = r#"super::ops in a raw string"#;
    let _ = 'c';
    "rec"
}

pub(crate) fn runner() -> crate::Runner { // planted
    todo!() // planted
} // planted

/* a block comment: crate::engine::go */
pub(crate) fn fail() -> crate::Failure {
    Error
}

#[cfg(test)]
mod tests {
    use crate::ops::run;
    use crate::testutil::fake;
}
"##,
    ),
    (
        "src/model/deep.rs",
        r#"use super::Rec;

pub(crate) fn deep() -> Rec {
    let _ = super::super::engine::go(); // planted
    super::super::error::make()
}

#[cfg(test)]
fn helper() {
    super::super::ops::run();
}
"#,
    ),
    (
        "src/model/tests_file.rs",
        "use crate::ops::run;\nuse crate::Top;\n",
    ),
    (
        "src/error.rs",
        r#"/// An error.
pub struct Error;

pub(crate) fn make() -> crate::model::Rec {
    let _top: Option<crate::Top> = None; // planted
    todo!()
}
"#,
    ),
    (
        "src/engine.rs",
        r#"use crate::{
    Failure,
    model::{Rec, describe},
    ops::{run, Runner}, // planted
};
use crate::testutil::fake; // planted
#[cfg(test)]
use crate::ops::Runner;

pub(crate) fn go() -> Result<Rec, Failure> {
    todo!()
}

mod inner {
    use super::super::model::Rec;

    fn later() {
        super::super::ops::run(); // planted
        super::go();
    }
}
"#,
    ),
    (
        "src/ops.rs",
        r#"use crate::engine::go;
use crate::{Failure, model::Rec};

/// Runs.
pub struct Runner;

/// Starts.
pub fn run() -> Result<Rec, Failure> {
    go()
}
"#,
    ),
    ("src/stray.rs", "use crate::ops::run; // planted\n"),
    ("src/testutil.rs", "use crate::ops::run;\n"),
];

/// Writes the planted crate into `dir`, without the planted lines when
/// `clean`.
fn write_crate(dir: &Path, clean: bool) {
    for (name, text) in PLANTED {
        let text: String = text
            .lines()
            .filter(|l| !(clean && l.ends_with("// planted")))
            .map(|l| format!("{l}\n"))
            .collect();
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
    }
}

/// The line of `file` in the planted crate that contains `needle`.
fn line_of(file: &str, needle: &str) -> usize {
    let (_, text) = PLANTED
        .iter()
        .find(|(name, _)| *name == file)
        .expect("a planted file");
    text.lines()
        .position(|l| l.contains(needle))
        .map_or_else(|| panic!("{needle:?} not in {file}"), |n| n + 1)
}

#[test]
fn planted_violations_are_reported_and_a_clean_crate_passes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dirty = dir.path().join("dirty");
    write_crate(&dirty, false);
    let found = check::check_crate(&dirty, &dirty);
    let at =
        |file: &str, needle: &str, rest: &str| format!("{file}:{}: {rest}", line_of(file, needle));
    let want = [
        "layers.toml: module `stray` is not listed".to_owned(),
        at(
            "src/model/mod.rs",
            "use crate::ops::run; // planted",
            "module `model` (layer model) uses `crate::ops` (layer ops, later)",
        ),
        // a name of lib.rs, re-exported there from a later layer's module
        at(
            "src/model/mod.rs",
            "-> crate::Runner",
            "module `model` (layer model) uses `crate::Runner` (layer ops, later)",
        ),
        at(
            "src/model/deep.rs",
            "engine::go",
            "module `model` (layer model) uses `super::super::engine` (layer engine, later)",
        ),
        at(
            "src/error.rs",
            "crate::Top",
            "module `error` (layer model) uses `crate::Top` (lib.rs, later)",
        ),
        // grouped, over several lines: the line of the group's member
        at(
            "src/engine.rs",
            "ops::{run, Runner}",
            "module `engine` (layer engine) uses `crate::ops` (layer ops, later)",
        ),
        at(
            "src/engine.rs",
            "testutil::fake",
            "module `engine` (layer engine) uses `crate::testutil` (test only)",
        ),
        // from an inline module: two levels up is the crate root
        at(
            "src/engine.rs",
            "super::super::ops::run()",
            "module `engine` (layer engine) uses `super::super::ops` (layer ops, later)",
        ),
    ];
    let mut sorted_found = found.clone();
    sorted_found.sort();
    let mut sorted_want = want.to_vec();
    sorted_want.sort();
    assert_eq!(sorted_found, sorted_want, "found:\n{}", found.join("\n"));

    let clean = dir.path().join("clean");
    write_crate(&clean, true);
    assert_eq!(check::check_crate(&clean, &clean), Vec::<String>::new());
}

#[test]
fn layers_files_are_checked_against_lib_rs() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_crate(dir.path(), true);
    let toml = dir.path().join("layers.toml");
    let text = std::fs::read_to_string(&toml).expect("read");
    let broken = text
        .replace(
            r#"modules = ["ops"]"#,
            r#"modules = ["ops", "engine", "ghost", "testutil"]"#,
        )
        .replace(r#"test_only = ["testutil"]"#, r#"test_only = ["model"]"#);
    std::fs::write(&toml, broken).expect("write");
    let mut found = check::check_crate(dir.path(), dir.path());
    // (and `model`, now test only, is reported where other modules use it)
    found.retain(|v| v.starts_with("layers.toml"));
    found.sort();
    assert_eq!(
        found,
        [
            "layers.toml: `model` is test_only but lib.rs declares it for every build (list it in a layer)",
            "layers.toml: `testutil` is in a layer but lib.rs declares it #[cfg(test)] (list it under test_only)",
            "layers.toml: lists `ghost`, which lib.rs does not declare (`mod ghost;`)",
            "layers.toml: module `engine` is listed more than once",
            "layers.toml: module `model` is listed more than once",
        ],
        "{}",
        found.join("\n")
    );
    std::fs::write(&toml, "[[layer]]\nname = \"x\"\nmodules = []\n").expect("write");
    let found = check::check_crate(dir.path(), dir.path());
    assert!(found[0].starts_with("layers.toml: "), "{found:?}");
}
