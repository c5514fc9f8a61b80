//! The layering check of one crate: its `layers.toml` against the paths its
//! modules' non-test code names.
//!
//! Rules (the format is in docs/architecture.md):
//! - every top-level module (a `mod X;` of lib.rs: `src/X.rs` or
//!   `src/X/`) is listed exactly once, in a layer or, when lib.rs declares
//!   it `#[cfg(test)]`, under `test_only` (and only then);
//! - a module's non-test code names no module of a later layer: every
//!   `crate::NAME` path (in `use` lines, grouped `use crate::{a::X, b::{c,
//!   d}}` included, and in expressions) and every `super::` chain that
//!   climbs to the crate root is resolved to a top-level module, and that
//!   module's layer must not come after the user's;
//! - a `crate::NAME` that is no module resolves through lib.rs's `use` and
//!   `pub use` lines to the module it comes from; a name lib.rs defines
//!   itself (or does not import) is lib.rs's, later than every layer, and a
//!   glob of the crate root (`crate::*`) is lib.rs's too;
//! - a `test_only` module is named by test code only.
//!
//! Comments, literals, items marked `#[cfg(test)]` (a `mod tests { … }`, a
//! `#[cfg(test)] mod tests;` file, a single `use` or function) and files
//! marked `#![cfg(test)]` are not looked at; lib.rs and main.rs may use any
//! module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::lex::{Tok, Token, cfg_test_at, skip_group, tokenize, without_tests};

/// A crate's `layers.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayersFile {
    /// The layers, lowest first.
    pub layer: Vec<Layer>,
    /// Modules compiled only for tests, when given before the first layer.
    #[serde(default)]
    pub test_only: Vec<String>,
}

/// One layer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layer {
    /// Its name, for messages.
    pub name: String,
    /// What it holds: required, for readers; the check does not need it.
    #[expect(dead_code, reason = "read by people, not by the check")]
    pub doc: String,
    /// Its top-level modules.
    pub modules: Vec<String>,
    /// Modules compiled only for tests: a `test_only = [...]` line after the
    /// last `[[layer]]` is, to TOML, a key of that layer.
    #[serde(default)]
    pub test_only: Vec<String>,
}

/// Where a name of the crate root leads.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// A top-level module.
    Module(String),
    /// lib.rs itself: later than every layer.
    Root,
    /// Another crate (std, a dependency): no layer.
    Outside,
}

/// A module's place: the index of its layer, or test only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Layer(usize),
    TestOnly,
}

/// A `mod NAME;` declaration.
struct ModDecl {
    name: String,
    test_only: bool,
}

/// The crate being checked.
struct Crate<'a> {
    /// Its `src/`.
    src: PathBuf,
    /// What file names in messages are relative to.
    shown_from: &'a Path,
    layers: Vec<Layer>,
    places: BTreeMap<String, Place>,
    /// lib.rs's imported names and where they lead.
    root_names: BTreeMap<String, Target>,
}

/// Checks the crate at `dir` (which has a `layers.toml`); file names in the
/// messages are relative to `shown_from`. Returns one line per violation.
pub fn check_crate(dir: &Path, shown_from: &Path) -> Vec<String> {
    let shown = |p: &Path| {
        p.strip_prefix(shown_from)
            .unwrap_or(p)
            .display()
            .to_string()
    };
    let toml_path = dir.join("layers.toml");
    let text = match std::fs::read_to_string(&toml_path) {
        Ok(t) => t,
        Err(e) => return vec![format!("{}: {e}", shown(&toml_path))],
    };
    let file: LayersFile = match toml::from_str(&text) {
        Ok(f) => f,
        Err(e) => return vec![format!("{}: {e}", shown(&toml_path))],
    };
    let src = dir.join("src");
    let lib = src.join("lib.rs");
    let lib_toks = match std::fs::read_to_string(&lib) {
        Ok(t) => tokenize(&t),
        Err(e) => return vec![format!("{}: {e}", shown(&lib))],
    };
    let declared = mod_decls(&lib_toks);
    let mut out = Vec::new();
    let mut places = BTreeMap::new();
    let listed = file
        .layer
        .iter()
        .enumerate()
        .flat_map(|(n, l)| l.modules.iter().map(move |m| (m, Place::Layer(n))))
        .chain(
            file.test_only
                .iter()
                .chain(file.layer.iter().flat_map(|l| &l.test_only))
                .map(|m| (m, Place::TestOnly)),
        );
    for (module, place) in listed {
        if places.insert(module.clone(), place).is_some() {
            out.push(format!(
                "{}: module `{module}` is listed more than once",
                shown(&toml_path)
            ));
        }
    }
    for (module, place) in &places {
        match declared.iter().find(|d| d.name == *module) {
            None => out.push(format!(
                "{}: lists `{module}`, which lib.rs does not declare (`mod {module};`)",
                shown(&toml_path)
            )),
            Some(d) if d.test_only != (*place == Place::TestOnly) => out.push(format!(
                "{}: `{module}` is {} but lib.rs declares it {}",
                shown(&toml_path),
                if d.test_only {
                    "in a layer"
                } else {
                    "test_only"
                },
                if d.test_only {
                    "#[cfg(test)] (list it under test_only)"
                } else {
                    "for every build (list it in a layer)"
                },
            )),
            Some(_) => {}
        }
    }
    for d in &declared {
        if !places.contains_key(&d.name) {
            out.push(format!(
                "{}: module `{}` is not listed",
                shown(&toml_path),
                d.name
            ));
        }
    }
    let modules: BTreeSet<String> = declared.iter().map(|d| d.name.clone()).collect();
    let krate = Crate {
        src: src.clone(),
        shown_from,
        layers: file.layer,
        places,
        root_names: root_names(&without_tests(lib_toks), &modules),
    };
    for d in declared.iter().filter(|d| !d.test_only) {
        let Some(Place::Layer(layer)) = krate.places.get(&d.name).copied() else {
            continue;
        };
        match module_file(&src, &d.name) {
            Some((file, owns_dir)) => {
                let site = Site {
                    top: &d.name,
                    layer,
                };
                krate.check_file(
                    site,
                    &file,
                    owns_dir,
                    std::slice::from_ref(&d.name),
                    &mut out,
                );
            }
            None => out.push(format!(
                "{}: no src/{}.rs or src/{}/mod.rs",
                shown(&lib),
                d.name,
                d.name
            )),
        }
    }
    out
}

/// The file of module `name` declared in a file whose child modules live in
/// `dir`, and whether it is a `mod.rs` (whose children live beside it).
fn module_file(dir: &Path, name: &str) -> Option<(PathBuf, bool)> {
    let flat = dir.join(format!("{name}.rs"));
    let nested = dir.join(name).join("mod.rs");
    if flat.is_file() {
        Some((flat, false))
    } else if nested.is_file() {
        Some((nested, true))
    } else {
        None
    }
}

/// The `mod NAME;` declarations at the top of a file (not inline modules),
/// each with whether it is marked `#[cfg(test)]`.
fn mod_decls(toks: &[Token]) -> Vec<ModDecl> {
    let mut out = Vec::new();
    let (mut i, mut test_only, mut depth) = (0, false, 0usize);
    while i < toks.len() {
        if depth == 0
            && let Some(after) = cfg_test_at(toks, i, false)
        {
            test_only = true;
            i = after;
            continue;
        }
        let t = &toks[i];
        if depth == 0 && t.is_punct('#') {
            i = skip_group(toks, i + 1);
            continue;
        }
        match t.tok {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0
            && t.is_ident("mod")
            && let (Some(name), Some(semi)) = (toks.get(i + 1), toks.get(i + 2))
            && semi.is_punct(';')
            && let Some(name) = name.ident()
        {
            out.push(ModDecl {
                name: name.to_owned(),
                test_only,
            });
        }
        // an attribute applies to the next item only
        if depth == 0 && (t.is_punct(';') || t.is_punct('}')) {
            test_only = false;
        }
        i += 1;
    }
    out
}

/// The names lib.rs imports (`use` and `pub use`, at its top level) and
/// where each leads.
fn root_names(toks: &[Token], modules: &BTreeSet<String>) -> BTreeMap<String, Target> {
    let mut out = BTreeMap::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        match toks[i].tok {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && toks[i].is_ident("use") {
            let mut leaves = Vec::new();
            i = use_tree(toks, i + 1, Vec::new(), &mut leaves);
            for (path, bound) in leaves {
                let origin = match path.first().map(String::as_str) {
                    Some("crate" | "self") => path.get(1),
                    _ => path.first(),
                };
                let target = match origin {
                    Some(m) if modules.contains(m) => Target::Module(m.clone()),
                    _ => Target::Outside,
                };
                out.insert(bound, target);
            }
            continue;
        }
        i += 1;
    }
    out
}

/// Reads a use tree from `i` (after `use`, or inside a group) with the
/// path so far in `prefix`, adding each leaf as (its full path, the name it
/// binds) to `leaves`. Returns the index after the tree.
fn use_tree(
    toks: &[Token],
    mut i: usize,
    mut path: Vec<String>,
    leaves: &mut Vec<(Vec<String>, String)>,
) -> usize {
    while let Some(t) = toks.get(i) {
        match &t.tok {
            Tok::Ident(word) if word != "as" => {
                path.push(word.clone());
                i += 1;
                if toks.get(i).is_some_and(|t| t.tok == Tok::PathSep) {
                    i += 1;
                    continue;
                }
                break;
            }
            // a leading `::`: another crate
            Tok::PathSep => {
                path.push(String::new());
                i += 1;
            }
            Tok::Punct('{') => {
                i += 1;
                while toks.get(i).is_some_and(|t| !t.is_punct('}')) {
                    i = use_tree(toks, i, path.clone(), leaves);
                    if toks.get(i).is_some_and(|t| t.is_punct(',')) {
                        i += 1;
                    }
                }
                return i + 1;
            }
            // a glob binds nothing that can be named
            Tok::Punct('*') => return i + 1,
            _ => break,
        }
    }
    if toks.get(i).is_some_and(|t| t.is_ident("as")) {
        if let Some(alias) = toks.get(i + 1).and_then(Token::ident)
            && alias != "_"
        {
            leaves.push((path, alias.to_owned()));
        }
        return i + 2;
    }
    // `a::b::self` binds `b`
    if path.last().is_some_and(|w| w == "self") {
        path.pop();
    }
    if let Some(bound) = path.last().cloned() {
        leaves.push((path, bound));
    }
    i
}

/// Where code is: its top-level module and that module's layer.
#[derive(Clone, Copy)]
struct Site<'a> {
    top: &'a str,
    layer: usize,
}

impl Crate<'_> {
    fn shown(&self, p: &Path) -> String {
        p.strip_prefix(self.shown_from)
            .unwrap_or(p)
            .display()
            .to_string()
    }

    /// Where the crate root's `name` leads.
    fn root_target(&self, name: &str) -> Target {
        if self.places.contains_key(name) {
            return Target::Module(name.to_owned());
        }
        self.root_names.get(name).cloned().unwrap_or(Target::Root)
    }

    /// Checks `file`, whose module path is `path` (a file of `site`'s
    /// module), then the files of its non-test child modules. `owns_dir`:
    /// its children live in its own directory (a `mod.rs`), not in one named
    /// after it.
    fn check_file(
        &self,
        site: Site<'_>,
        file: &Path,
        owns_dir: bool,
        path: &[String],
        out: &mut Vec<String>,
    ) {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                out.push(format!("{}: {e}", self.shown(file)));
                return;
            }
        };
        let toks = without_tests(tokenize(&text));
        let child_dir = if owns_dir {
            file.parent().map(Path::to_path_buf)
        } else {
            file.parent().zip(file.file_stem()).map(|(d, s)| d.join(s))
        }
        .unwrap_or_else(|| self.src.clone());
        // (name, brace depth inside it) of the inline modules around a token
        let mut inline: Vec<(String, usize)> = Vec::new();
        let mut depth = 0usize;
        let mut pending_mod: Option<String> = None;
        let path_sep_at = |k: usize| toks.get(k).is_some_and(|t| t.tok == Tok::PathSep);
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            match t.tok {
                Tok::Punct('{') => {
                    depth += 1;
                    if let Some(name) = pending_mod.take() {
                        inline.push((name, depth));
                    }
                }
                Tok::Punct('}') => {
                    if inline.last().is_some_and(|(_, d)| *d == depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
            if t.is_ident("mod")
                && let Some(name) = toks.get(i + 1).and_then(Token::ident)
            {
                match toks.get(i + 2) {
                    Some(n) if n.is_punct('{') => pending_mod = Some(name.to_owned()),
                    Some(n) if n.is_punct(';') => {
                        let dir = inline.iter().fold(child_dir.clone(), |d, (n, _)| d.join(n));
                        let mut child_path = path.to_vec();
                        child_path.extend(inline.iter().map(|(n, _)| n.clone()));
                        child_path.push(name.to_owned());
                        match module_file(&dir, name) {
                            Some((child, owns)) => {
                                self.check_file(site, &child, owns, &child_path, out);
                            }
                            None => out.push(format!(
                                "{}:{}: no file for `mod {name};`",
                                self.shown(file),
                                t.line
                            )),
                        }
                    }
                    _ => {}
                }
            }
            if t.is_ident("crate") && path_sep_at(i + 1) {
                for (line, name) in root_segments(&toks, i + 2) {
                    self.judge(site, file, line, &format!("crate::{name}"), &name, out);
                }
                i += 2;
                continue;
            }
            if t.is_ident("super") && path_sep_at(i + 1) {
                let mut ups = 0;
                let mut j = i;
                while toks.get(j).is_some_and(|t| t.is_ident("super")) && path_sep_at(j + 1) {
                    ups += 1;
                    j += 2;
                }
                // a chain that climbs to the crate root; a shorter one stays
                // inside this top-level module
                if ups == path.len() + inline.len() {
                    let chain = "super::".repeat(ups);
                    for (line, name) in root_segments(&toks, j) {
                        self.judge(site, file, line, &format!("{chain}{name}"), &name, out);
                    }
                }
                i = j;
                continue;
            }
            i += 1;
        }
    }

    /// Reports the crate root's `name`, written `written` at `line` of
    /// `file`, when it leads to a later layer than `site`'s.
    fn judge(
        &self,
        site: Site<'_>,
        file: &Path,
        line: usize,
        written: &str,
        name: &str,
        out: &mut Vec<String>,
    ) {
        let head = format!(
            "{}:{line}: module `{}` (layer {}) uses `{written}`",
            self.shown(file),
            site.top,
            self.layers[site.layer].name
        );
        let line = match self.root_target(name) {
            Target::Outside => return,
            Target::Root => format!("{head} (lib.rs, later)"),
            Target::Module(m) => match self.places.get(&m) {
                Some(Place::Layer(l)) if *l > site.layer => {
                    format!("{head} (layer {}, later)", self.layers[*l].name)
                }
                Some(Place::TestOnly) => format!("{head} (test only)"),
                _ => return,
            },
        };
        if !out.contains(&line) {
            out.push(line);
        }
    }
}

/// The crate-root names a path names from `i`, just after its `crate::` or
/// its `super::` chain: one name, each first name of a group (`{a::X, b}`),
/// or `*` for a glob; each with its line.
fn root_segments(toks: &[Token], i: usize) -> Vec<(usize, String)> {
    let Some(t) = toks.get(i) else {
        return Vec::new();
    };
    match &t.tok {
        Tok::Ident(name) => vec![(t.line, name.clone())],
        Tok::Punct('*') => vec![(t.line, "*".into())],
        Tok::Punct('{') => {
            let end = skip_group(toks, i);
            let mut out = Vec::new();
            let mut depth = 0usize;
            let mut expect_first = true;
            for t in &toks[i + 1..end.saturating_sub(1)] {
                match &t.tok {
                    Tok::Punct('{') => depth += 1,
                    Tok::Punct('}') => depth = depth.saturating_sub(1),
                    Tok::Punct(',') if depth == 0 => {
                        expect_first = true;
                        continue;
                    }
                    Tok::Ident(name) if expect_first => out.push((t.line, name.clone())),
                    Tok::Punct('*') if expect_first => out.push((t.line, "*".into())),
                    _ => {}
                }
                expect_first = false;
            }
            out
        }
        _ => Vec::new(),
    }
}
