//! The layout's one rule that the compiler does not check: no two source files import
//! each other. Each file's imports are read from its `use` lines and `crate::` paths
//! (outside its `mod tests`), resolved to the file that defines the module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (`search::node`) → file, for every file under `src/` but `main.rs`.
fn modules(src: &Path) -> BTreeMap<String, PathBuf> {
    let mut found = BTreeMap::new();
    let mut folders = vec![src.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", folder.display()));
        for entry in entries.map(|e| e.expect("a directory entry").path()) {
            if entry.is_dir() {
                folders.push(entry);
            } else if entry.extension().is_some_and(|e| e == "rs") {
                let relative = entry.strip_prefix(src).unwrap().with_extension("");
                let mut parts: Vec<String> = relative
                    .iter()
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect();
                match parts.last().map(String::as_str) {
                    Some("main") => continue,
                    Some("mod" | "lib") => {
                        parts.pop();
                    }
                    _ => {}
                }
                found.insert(parts.join("::"), entry);
            }
        }
    }
    found
}

/// The module a path names: its longest prefix that is a file's module.
fn owner<'a>(path: &[&str], modules: &'a BTreeMap<String, PathBuf>) -> Option<&'a String> {
    (0..=path.len())
        .rev()
        .find_map(|n| modules.get_key_value(&path[..n].join("::")).map(|(k, _)| k))
}

/// The modules `module`'s code imports, tests left out.
fn imports(module: &str, file: &Path, modules: &BTreeMap<String, PathBuf>) -> BTreeSet<String> {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
    let code = text
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or_default();
    let here: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
    let folder = file.ends_with("mod.rs") || file.ends_with("lib.rs");
    let mut found = BTreeSet::new();
    for line in code.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
        // `use child::…` in a folder's mod.rs names a module below it.
        let relative = line
            .strip_prefix("pub use ")
            .or_else(|| line.strip_prefix("use "))
            .filter(|rest| folder && !rest.starts_with("crate::") && !rest.starts_with("super::"));
        let path = match (
            line.find("crate::").or_else(|| line.find("super::")),
            relative,
        ) {
            (Some(start), _) => &line[start..],
            (None, Some(rest)) => rest,
            (None, None) => continue,
        };
        let words: Vec<&str> = path
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .next()
            .unwrap_or_default()
            .split("::")
            .filter(|w| !w.is_empty())
            .collect();
        let (mut full, rest): (Vec<&str>, &[&str]) = match words.first() {
            Some(&"crate") => (Vec::new(), &words[1..]),
            // `super` of a folder's mod.rs is the folder's parent, as for any file.
            Some(&"super") => (here[..here.len().saturating_sub(1)].to_vec(), &words[1..]),
            Some(_) => (here.clone(), &words[..]),
            None => continue,
        };
        full.extend(rest);
        // `use a::b::{c, d}`: each braced name may be a module of its own.
        let braced = path.find('{').map(|at| &path[at + 1..]);
        let names: Vec<&str> = braced
            .map(|rest| {
                rest.split(['}', ','])
                    .map(|n| n.trim().split("::").next().unwrap_or_default())
                    .filter(|n| !n.is_empty() && *n != "self")
                    .collect()
            })
            .unwrap_or_default();
        let mut targets = vec![full.clone()];
        targets.extend(names.iter().map(|n| {
            let mut t = full.clone();
            t.push(n);
            t
        }));
        for target in targets {
            if let Some(owner) = owner(&target, modules)
                && owner != module
            {
                found.insert(owner.clone());
            }
        }
    }
    found
}

#[test]
fn no_two_source_files_import_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = modules(&src);
    assert!(modules.len() > 20, "only {} modules found", modules.len());
    let graph: BTreeMap<&String, BTreeSet<String>> = modules
        .iter()
        .map(|(module, file)| (module, imports(module, file, &modules)))
        .collect();
    let mut cycles = Vec::new();
    for (a, deps) in &graph {
        for b in deps {
            if a.as_str() < b.as_str() && graph[b].contains(a.as_str()) {
                cycles.push(format!(
                    "{} <-> {}",
                    modules[*a].display(),
                    modules[b].display()
                ));
            }
        }
    }
    assert!(
        cycles.is_empty(),
        "files that import each other:\n{}",
        cycles.join("\n")
    );
    // The reader does see imports, through `super::`, `crate::` and a folder's own.
    assert!(graph[&"search::node".to_string()].contains("search::worker"));
    assert!(graph[&"search::worker".to_string()].contains("eval"));
    assert!(graph[&"search".to_string()].contains("search::engine"));
}
