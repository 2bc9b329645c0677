//! The driver crate's modules import each other without a circle (issue 31): the shared
//! vocabulary (`reply`, `recorder`) sits at the bottom, and no module reaches a sibling that
//! reaches it back.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Per module (a file of `src/`), the sibling modules it names as `crate::<module>`.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files: Vec<_> = std::fs::read_dir(&src)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", src.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|p| p.file_stem().and_then(|s| s.to_str()).map(str::to_string))
        .filter(|m| m != "lib")
        .collect();
    let mut graph = BTreeMap::new();
    for path in &files {
        let Some(name) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if name == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let used = text
            .match_indices("crate::")
            .filter_map(|(at, _)| {
                let rest = &text[at + "crate::".len()..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                let module = &rest[..end];
                (modules.contains(module) && module != name).then(|| module.to_string())
            })
            .collect();
        graph.insert(name.to_string(), used);
    }
    graph
}

/// A circle through `from`, if one exists, as the modules on it.
fn circle(
    graph: &BTreeMap<String, BTreeSet<String>>,
    from: &str,
    path: &mut Vec<String>,
) -> Option<Vec<String>> {
    if let Some(start) = path.iter().position(|m| m == from) {
        let mut found = path[start..].to_vec();
        found.push(from.to_string());
        return Some(found);
    }
    path.push(from.to_string());
    for next in graph.get(from).into_iter().flatten() {
        if let Some(found) = circle(graph, next, path) {
            return Some(found);
        }
    }
    path.pop();
    None
}

#[test]
fn no_module_imports_a_sibling_that_imports_it_back() {
    let graph = imports();
    assert!(graph.len() >= 10, "found only {:?}", graph.keys());
    for module in graph.keys() {
        if let Some(found) = circle(&graph, module, &mut Vec::new()) {
            panic!("an import circle: {}", found.join(" → "));
        }
    }
    for bottom in ["reply", "recorder"] {
        assert_eq!(
            graph.get(bottom),
            Some(&BTreeSet::new()),
            "{bottom} imports no sibling"
        );
    }
}
