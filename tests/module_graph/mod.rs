//! The module graph inside one crate, read from its source: which module's code names which
//! other module (`use crate::a::b`, `super::c`, `crate::d::f()` in an expression). The crate
//! graph (`cargo metadata`) cannot see inside a crate; this can, so the architecture test can
//! refuse an import circle between a crate's files, or an edge a layering rule forbids.
//!
//! What is read: each `.rs` file under `src/`, without comments and without its
//! `#[cfg(test)]` tail (a test may reach across the crate; the architecture is the code that
//! ships). A path is resolved to the longest module it names; naming an item of the file's
//! own module is no edge. A parent's `pub use child::X` is an edge like any other, so a
//! child that reaches an item through the crate root's re-exports (`crate::X`) is a circle:
//! name the module that defines it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A crate's modules (`""` is the crate root, `a::b` a nested one) and, for each, the other
/// modules its code names.
#[derive(Debug, Default)]
pub struct ModuleGraph {
    /// Module path → the file it is defined in, relative to the crate's `src/`.
    pub files: BTreeMap<String, PathBuf>,
    /// Module path → the modules it names.
    pub edges: BTreeMap<String, BTreeSet<String>>,
}

impl ModuleGraph {
    /// The graph of the crate whose sources are under `src`.
    pub fn of_crate(src: &Path) -> ModuleGraph {
        let mut sources = BTreeMap::new();
        for entry in walk(src) {
            let rel = entry.strip_prefix(src).unwrap_or(&entry).to_path_buf();
            let text = std::fs::read_to_string(&entry)
                .unwrap_or_else(|e| panic!("{}: {e}", entry.display()));
            sources.insert(module_of(&rel), (rel, text));
        }
        ModuleGraph::of_sources(sources)
    }

    /// The graph of in-memory sources: module path → (file name, text).
    pub fn of_sources(sources: BTreeMap<String, (PathBuf, String)>) -> ModuleGraph {
        let modules: BTreeSet<String> = sources.keys().cloned().collect();
        let mut graph = ModuleGraph::default();
        for (module, (file, text)) in sources {
            let code = shipped_code(&text);
            let to = named_paths(&code)
                .into_iter()
                .chain(relative_uses(&code, &module, &modules))
                .filter_map(|path| resolve(&module, &path, &modules))
                .filter(|target| *target != module)
                .collect();
            graph.files.insert(module.clone(), file);
            graph.edges.insert(module, to);
        }
        graph
    }

    /// Every import circle, each as `a -> b -> a` over the files involved (the strongly
    /// connected components of more than one module, each with one cycle through it).
    pub fn cycles(&self) -> Vec<String> {
        let mut out = Vec::new();
        for component in self.components() {
            if component.len() < 2 {
                continue;
            }
            let start = component[0].clone();
            let members: BTreeSet<&String> = component.iter().collect();
            let cycle = self.path_back(&start, &members);
            let shown: Vec<String> = cycle.iter().map(|m| self.shown(m)).collect();
            out.push(shown.join(" -> "));
        }
        out
    }

    /// Every edge from a module under one of `from` to a module under one of `to` (a module
    /// is under `x` when it is `x` or inside it), as `file -> file`.
    pub fn edges_between(&self, from: &[&str], to: &[&str]) -> Vec<String> {
        let under = |m: &str, roots: &[&str]| {
            roots
                .iter()
                .any(|r| m == *r || m.starts_with(&format!("{r}::")))
        };
        let mut out = Vec::new();
        for (a, targets) in &self.edges {
            if !under(a, from) {
                continue;
            }
            for b in targets.iter().filter(|b| under(b, to)) {
                out.push(format!("{} -> {}", self.shown(a), self.shown(b)));
            }
        }
        out
    }

    fn shown(&self, module: &str) -> String {
        self.files
            .get(module)
            .map(|f| f.display().to_string())
            .unwrap_or_else(|| module.to_string())
    }

    /// A shortest cycle from `start` back to itself inside `members` (breadth first).
    fn path_back(&self, start: &String, members: &BTreeSet<&String>) -> Vec<String> {
        let mut queue = std::collections::VecDeque::from([vec![start.clone()]]);
        let mut seen = BTreeSet::new();
        while let Some(path) = queue.pop_front() {
            let last = path.last().cloned().unwrap_or_default();
            for next in self.edges.get(&last).into_iter().flatten() {
                if next == start {
                    let mut done = path.clone();
                    done.push(start.clone());
                    return done;
                }
                if members.contains(next) && seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    queue.push_back(longer);
                }
            }
        }
        vec![start.clone()]
    }

    /// Tarjan's strongly connected components, each sorted.
    fn components(&self) -> Vec<Vec<String>> {
        struct Walk<'a> {
            graph: &'a ModuleGraph,
            index: BTreeMap<&'a str, usize>,
            low: BTreeMap<&'a str, usize>,
            stack: Vec<&'a str>,
            on_stack: BTreeSet<&'a str>,
            next: usize,
            out: Vec<Vec<String>>,
        }
        impl<'a> Walk<'a> {
            fn visit(&mut self, v: &'a str) {
                self.index.insert(v, self.next);
                self.low.insert(v, self.next);
                self.next += 1;
                self.stack.push(v);
                self.on_stack.insert(v);
                for w in self.graph.edges.get(v).into_iter().flatten() {
                    let w = w.as_str();
                    if !self.index.contains_key(w) {
                        self.visit(w);
                        let lw = self.low[w];
                        let lv = self.low.get_mut(v).unwrap_or_else(|| unreachable!());
                        *lv = (*lv).min(lw);
                    } else if self.on_stack.contains(w) {
                        let iw = self.index[w];
                        let lv = self.low.get_mut(v).unwrap_or_else(|| unreachable!());
                        *lv = (*lv).min(iw);
                    }
                }
                if self.low[v] == self.index[v] {
                    let mut component = Vec::new();
                    while let Some(w) = self.stack.pop() {
                        self.on_stack.remove(w);
                        component.push(w.to_string());
                        if w == v {
                            break;
                        }
                    }
                    component.sort();
                    self.out.push(component);
                }
            }
        }
        let mut walk = Walk {
            graph: self,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            on_stack: BTreeSet::new(),
            next: 0,
            out: Vec::new(),
        };
        for v in self.edges.keys() {
            if !walk.index.contains_key(v.as_str()) {
                walk.visit(v);
            }
        }
        walk.out.sort();
        walk.out
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    out
}

/// `lib.rs` → `""`, `a.rs` and `a/mod.rs` → `a`, `a/b.rs` → `a::b`.
fn module_of(rel: &Path) -> String {
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs").to_string();
        if stem != "mod" && !(parts.is_empty() && (stem == "lib" || stem == "main")) {
            parts.push(stem);
        }
    }
    parts.join("::")
}

/// The text without comments and without the `#[cfg(test)]` tail.
fn shipped_code(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        // A trailing `// …` comment; a `//` inside a string literal ends the line early,
        // which loses no path (paths are not written in strings).
        let code = line.split_once("//").map_or(line, |(code, _)| code);
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// Every `crate::…`, `super::…` and `self::…` path the code names, with `use` groups expanded
/// (`use crate::{a, b::{c, d}}` names `crate::a`, `crate::b::c`, `crate::b::d`).
fn named_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !(bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '_');
        let rest: String = bytes[i..bytes.len().min(i + 7)].iter().collect();
        let anchored = ["crate::", "super::", "self::"]
            .iter()
            .any(|a| rest.starts_with(a));
        if starts_word && anchored {
            let (paths, end) = read_path(&bytes, i);
            out.extend(paths);
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// The path (or `use` tree) starting at `at`, expanded; and where it ends.
fn read_path(chars: &[char], at: usize) -> (Vec<String>, usize) {
    let mut prefix = String::new();
    let mut i = at;
    loop {
        while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
            prefix.push(chars[i]);
            i += 1;
        }
        let ws = skip_ws(chars, i);
        if chars.get(ws) == Some(&':') && chars.get(ws + 1) == Some(&':') {
            i = skip_ws(chars, ws + 2);
            if chars.get(i) == Some(&'{') {
                let (inner, end) = read_group(chars, i + 1);
                let paths = inner
                    .into_iter()
                    .map(|p| {
                        if p == "self" {
                            prefix.clone()
                        } else {
                            format!("{prefix}::{p}")
                        }
                    })
                    .collect();
                return (paths, end);
            }
            if chars.get(i) == Some(&'*') {
                return (vec![prefix], i + 1);
            }
            prefix.push_str("::");
            continue;
        }
        return (vec![prefix], i);
    }
}

/// The comma-separated `use` trees of a `{…}` group starting after its `{`, relative to it.
fn read_group(chars: &[char], mut i: usize) -> (Vec<String>, usize) {
    let mut out = Vec::new();
    loop {
        i = skip_ws(chars, i);
        match chars.get(i) {
            None => return (out, i),
            Some('}') => return (out, i + 1),
            Some(',') => i += 1,
            Some(c) if c.is_alphanumeric() || *c == '_' => {
                let (paths, end) = read_path(chars, i);
                out.extend(paths);
                i = end;
                // `x as y`: skip the alias.
                let j = skip_ws(chars, i);
                let word: String = chars[j..chars.len().min(j + 3)].iter().collect();
                if word.starts_with("as ") {
                    i = j + 3;
                    while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                        i += 1;
                    }
                }
            }
            Some(_) => i += 1,
        }
    }
}

/// The `use child::…` statements of `module` that start at one of its own child modules
/// (edition 2018 paths relative to the module), as `self::child` paths.
fn relative_uses(code: &str, module: &str, modules: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for statement in code.split(';') {
        let words: Vec<&str> = statement.split_whitespace().collect();
        let Some(at) = words.iter().position(|w| *w == "use") else {
            continue;
        };
        let Some(first) = words.get(at + 1).and_then(|w| w.split("::").next()) else {
            continue;
        };
        let child = if module.is_empty() {
            first.to_string()
        } else {
            format!("{module}::{first}")
        };
        if modules.contains(&child) {
            out.push(format!("self::{first}"));
        }
    }
    out
}

fn skip_ws(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && chars[i].is_whitespace() {
        i += 1;
    }
    i
}

/// The module a path names from inside `module`: `crate::a::b::Item` → the longest of
/// `a::b`, `a`, `""` that is a module; `super::x` relative to the parent.
fn resolve(module: &str, path: &str, modules: &BTreeSet<String>) -> Option<String> {
    let mut segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut base: Vec<&str> = if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").collect()
    };
    match segments.first() {
        Some(&"crate") => {
            base.clear();
            segments.remove(0);
        }
        Some(&"self") => {
            segments.remove(0);
        }
        Some(&"super") => {
            while segments.first() == Some(&"super") {
                segments.remove(0);
                base.pop()?;
            }
        }
        _ => return None,
    }
    base.extend(segments);
    while !base.is_empty() {
        let candidate = base.join("::");
        if modules.contains(&candidate) {
            return Some(candidate);
        }
        base.pop();
    }
    Some(String::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(files: &[(&str, &str)]) -> ModuleGraph {
        ModuleGraph::of_sources(
            files
                .iter()
                .map(|(f, t)| (module_of(Path::new(f)), (PathBuf::from(f), t.to_string())))
                .collect(),
        )
    }

    #[test]
    fn use_groups_and_inline_paths_are_edges() {
        let g = graph(&[
            ("lib.rs", "mod a; mod b; mod c; mod d;"),
            (
                "a.rs",
                "use crate::{b::{X, Y as Z}, c};\nfn f() { crate::d::g(); }",
            ),
            ("b.rs", ""),
            ("c.rs", ""),
            ("d/mod.rs", "mod e;"),
            ("d/e.rs", "use super::super::b::X;"),
        ]);
        assert_eq!(
            g.edges["a"],
            BTreeSet::from(["b".to_string(), "c".to_string(), "d".to_string()])
        );
        assert_eq!(g.edges["d::e"], BTreeSet::from(["b".to_string()]));
        assert!(g.cycles().is_empty());
    }

    #[test]
    fn a_circle_is_reported_with_its_files_and_tests_and_comments_are_not_read() {
        let g = graph(&[
            ("lib.rs", "mod a; mod b;"),
            ("a.rs", "use crate::b::X; // crate::c\n"),
            ("b.rs", "use super::a::Y;\n"),
        ]);
        assert_eq!(g.cycles(), vec!["a.rs -> b.rs -> a.rs"]);
        let g = graph(&[
            ("lib.rs", "mod a; mod b;"),
            ("a.rs", "use crate::b::X;\n"),
            (
                "b.rs",
                "// use crate::a::Y;\n#[cfg(test)]\nmod tests { use crate::a::Y; }\n",
            ),
        ]);
        assert!(g.cycles().is_empty(), "{:?}", g.cycles());
        assert_eq!(g.edges_between(&["a"], &["b"]), vec!["a.rs -> b.rs"]);
    }

    #[test]
    fn an_item_of_the_crate_root_used_by_a_module_is_an_edge_to_lib() {
        let g = graph(&[
            ("lib.rs", "pub mod a;\npub use a::f;\npub struct R;"),
            ("a.rs", "use crate::R;\npub fn f() {}"),
        ]);
        assert_eq!(g.cycles(), vec!["lib.rs -> a.rs -> lib.rs"]);
    }
}
