//! The architecture's invariants, checked on the source itself (ARCHITECTURE.md, "Invariants"):
//! - no import cycle between modules anywhere in `src/` (a module's own submodules and ancestors aside: a
//!   folder is made of its files), and none between the top-level modules;
//! - each top-level module imports only the modules its layer may import (the code map's "may import");
//! - the pure layers do no I/O: no tokio, teloxide, `std::fs`, `std::net` or HTTP client in them.
//!
//! The graph is read from the text: every `crate::`, `super::` and `self::` path (use trees expanded), resolved
//! to the deepest module file it names, following `pub use` re-exports to the file that defines the item.
//! Test code (`#[cfg(test)]` blocks and `*tests.rs` / `test_support.rs` files) is left out: tests may reach
//! anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What each top-level module may import (besides `serde_message`, `sync` and `clock`, the leaves every layer
/// may use). ARCHITECTURE.md's code map says the same in words; a new module must be placed here.
const MAY_IMPORT: &[(&str, &[&str])] = &[
    ("plan", &[]),
    ("quiet", &["digest"]),
    ("digest", &["plan"]),
    ("stats", &["plan"]),
    ("config", &["quiet", "digest"]),
    ("queue", &["plan"]),
    ("actions", &["plan", "queue"]),
    ("telegram", &["plan", "actions", "stats", "digest"]),
    ("agent", &["plan", "queue", "actions", "config"]),
    ("remote", &["agent", "config"]),
    (
        "mcp",
        &["plan", "queue", "actions", "agent", "config", "remote"],
    ),
    (
        "web",
        &[
            "plan", "queue", "actions", "stats", "telegram", "mcp", "config",
        ],
    ),
    (
        "bot",
        &[
            "plan", "queue", "actions", "stats", "telegram", "digest", "quiet", "config", "web",
        ],
    ),
    ("schedule", &["plan", "queue", "actions", "digest", "bot"]),
    (
        "daemon",
        &[
            "plan", "queue", "actions", "config", "digest", "quiet", "web", "bot", "schedule",
        ],
    ),
    ("fakebot", &["telegram"]),
    ("init", &["plan", "config", "queue"]),
    (
        "demo",
        &[
            "plan", "queue", "agent", "config", "daemon", "fakebot", "telegram",
        ],
    ),
    (
        "cli",
        &[
            "plan", "queue", "actions", "agent", "config", "stats", "mcp", "web", "daemon", "init",
            "demo", "telegram", "digest", "quiet", "remote",
        ],
    ),
];

/// Leaves any module may use.
const LEAVES: &[&str] = &["serde_message", "sync", "clock"];

/// The pure layers: parse, edit, decide and draw; no I/O.
const PURE: &[&str] = &[
    "plan",
    "telegram",
    "stats",
    "actions::access",
    "actions::decide",
    "actions::outcome",
    "actions::seen",
];

/// What a pure layer must not name.
const IO: &[&str] = &[
    "tokio", "teloxide", "std::fs", "std::net", "reqwest", "axum", "notify::",
];

struct Module {
    /// `a::b` for src/a/b.rs (or src/a/b/mod.rs); "" for lib.rs.
    path: String,
    file: PathBuf,
    /// The file's non-test code.
    code: String,
}

fn modules() -> Vec<Module> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    let mut out = Vec::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap().with_extension("");
        let mut parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let name = parts.last().cloned().unwrap_or_default();
        if name.ends_with("tests") || name == "test_support" || parts[0] == "bin" {
            continue;
        }
        if name == "mod" || (parts.len() == 1 && (name == "lib" || name == "main")) {
            parts.pop();
        }
        let text = std::fs::read_to_string(&file).unwrap();
        out.push(Module {
            path: parts.join("::"),
            file,
            code: without_tests(&text),
        });
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The text without comments, string literals' contents and `#[cfg(test)]` items (a `mod tests { … }` block or
/// a `mod tests;` line).
fn without_tests(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            // Skip the next item: up to its matching closing brace, or one line when it ends with `;`.
            let mut depth = 0i32;
            let mut opened = false;
            for l in lines.by_ref() {
                let l = code_of(l);
                depth += l.matches('{').count() as i32 - l.matches('}').count() as i32;
                opened |= l.contains('{');
                if (opened && depth <= 0) || (!opened && l.trim_end().ends_with(';')) {
                    break;
                }
            }
            continue;
        }
        out.push_str(&code_of(line));
        out.push('\n');
    }
    out
}

/// A line without its `//` comment and with string literals emptied (so a path in a message or a doc comment is
/// no import).
fn code_of(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        if in_str {
            if c == '\\' {
                chars.next();
            } else if c == '"' {
                in_str = false;
                out.push('"');
            }
            continue;
        }
        if c == '/' && chars.peek() == Some(&'/') {
            break;
        }
        if c == '"' {
            in_str = true;
        }
        out.push(c);
    }
    out
}

/// Every path the code names that starts with `crate`, `super` or `self`, with use trees expanded
/// (`use super::{a::B, c}` → `super::a::B`, `super::c`).
fn paths(code: &str) -> Vec<Vec<String>> {
    let tokens = tokenize(code);
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        let starts = matches!(t, "crate" | "super" | "self")
            && tokens.get(i + 1).map(String::as_str) == Some("::")
            && (i == 0 || tokens[i - 1] != "::");
        if starts {
            let (mut found, next) = tree(&tokens, i);
            out.append(&mut found);
            i = next;
        } else {
            i += 1;
        }
    }
    out
}

fn tokenize(code: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            tokens.push("::".into());
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            tokens.push(c.to_string());
            i += 1;
        }
    }
    tokens
}

/// Reads a path (and a use tree after it) starting at `i`; returns the expanded paths and the index after it.
fn tree(tokens: &[String], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let mut prefix = Vec::new();
    while let Some(t) = tokens.get(i) {
        if t == "{" {
            let mut out = Vec::new();
            i += 1;
            loop {
                match tokens.get(i).map(String::as_str) {
                    None => return (out, i),
                    Some("}") => {
                        i += 1;
                        break;
                    }
                    Some(",") => i += 1,
                    Some(_) => {
                        let (inner, next) = tree(tokens, i);
                        for p in inner {
                            let mut full = prefix.clone();
                            full.extend(p);
                            out.push(full);
                        }
                        if next == i {
                            i += 1;
                        } else {
                            i = next;
                        }
                    }
                }
            }
            return (out, i);
        }
        if t.chars().all(|c| c.is_alphanumeric() || c == '_') {
            prefix.push(t.clone());
            i += 1;
            if tokens.get(i).map(String::as_str) == Some("::") {
                i += 1;
                continue;
            }
        }
        break;
    }
    (vec![prefix], i)
}

struct Graph {
    /// Module path → the module paths it names (resolved to files).
    edges: BTreeMap<String, BTreeSet<String>>,
    files: BTreeMap<String, PathBuf>,
}

fn graph() -> Graph {
    let mods = modules();
    let known: BTreeSet<String> = mods.iter().map(|m| m.path.clone()).collect();
    // `pub use child::Name` in a module: parent::Name is defined in parent::child.
    let mut reexports: BTreeMap<String, String> = BTreeMap::new();
    for m in &mods {
        for line in m.code.lines() {
            let t = line.trim_start();
            if !(t.starts_with("pub use ") || t.starts_with("pub(crate) use ")) {
                continue;
            }
            let use_part = &t[t.find("use ").unwrap() + 4..];
            let toks = tokenize(use_part);
            let mut start = 0;
            if toks.first().map(String::as_str) == Some("self")
                && toks.get(1).map(String::as_str) == Some("::")
            {
                start = 2;
            }
            if toks.first().is_some_and(|t| t == "crate" || t == "super") {
                continue; // re-exported from elsewhere: resolved through the path's own text below
            }
            let (found, _) = tree(&toks, start);
            for p in found {
                let Some(name) = p.last() else { continue };
                let target = resolve(&known, &join(&m.path, &p[..p.len() - 1]));
                reexports.insert(join(&m.path, std::slice::from_ref(name)), target);
            }
        }
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for m in &mods {
        let own = edges.entry(m.path.clone()).or_default();
        for p in paths(&m.code) {
            let Some(absolute) = absolute(&m.path, &p) else {
                continue;
            };
            let mut target = resolve(&known, &absolute);
            // `parent::Name` re-exported from a child: the child defines it.
            let next = absolute
                .strip_prefix(&format!("{target}::"))
                .or(target.is_empty().then_some(absolute.as_str()))
                .and_then(|rest| rest.split("::").next())
                .map(|name| join(&target, &[name.to_owned()]));
            if let Some(t) = next.and_then(|n| reexports.get(&n)) {
                target = t.clone();
            }
            if target != m.path {
                own.insert(target);
            }
        }
    }
    Graph {
        edges,
        files: mods.into_iter().map(|m| (m.path, m.file)).collect(),
    }
}

fn join(base: &str, rest: &[String]) -> String {
    let mut parts: Vec<&str> = base.split("::").filter(|s| !s.is_empty()).collect();
    parts.extend(rest.iter().map(String::as_str));
    parts.join("::")
}

/// The absolute module path (without `crate`) that `path`, written in module `here`, names.
fn absolute(here: &str, path: &[String]) -> Option<String> {
    let mut base: Vec<&str> = here.split("::").filter(|s| !s.is_empty()).collect();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    let mut parts: Vec<String> = base.into_iter().map(str::to_owned).collect();
    parts.extend(rest.iter().cloned());
    Some(parts.join("::"))
}

/// The deepest known module that `path` starts with.
fn resolve(known: &BTreeSet<String>, path: &str) -> String {
    let parts: Vec<&str> = path.split("::").collect();
    for n in (1..=parts.len()).rev() {
        let candidate = parts[..n].join("::");
        if known.contains(&candidate) {
            return candidate;
        }
    }
    String::new()
}

fn is_within(a: &str, b: &str) -> bool {
    b.is_empty() || a == b || a.starts_with(&format!("{b}::"))
}

/// The strongly connected components with more than one member (Tarjan), each sorted.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, v: &'a str) {
        w.index.insert(v, w.next);
        w.low.insert(v, w.next);
        w.next += 1;
        w.stack.push(v);
        w.on_stack.insert(v);
        if let Some(targets) = w.edges.get(v) {
            for t in targets {
                let t = t.as_str();
                if !w.index.contains_key(t) {
                    visit(w, t);
                    let low = w.low[v].min(w.low[t]);
                    w.low.insert(v, low);
                } else if w.on_stack.contains(t) {
                    let low = w.low[v].min(w.index[t]);
                    w.low.insert(v, low);
                }
            }
        }
        if w.low[v] == w.index[v] {
            let mut component = Vec::new();
            while let Some(x) = w.stack.pop() {
                w.on_stack.remove(x);
                component.push(x.to_owned());
                if x == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                w.found.push(component);
            }
        }
    }
    let mut w = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !w.index.contains_key(v.as_str()) {
            visit(&mut w, v);
        }
    }
    w.found
}

fn top(path: &str) -> &str {
    path.split("::").next().unwrap_or("")
}

#[test]
fn no_import_cycle_between_modules() {
    let g = graph();
    // A module's own submodules and ancestors are part of it, not imports.
    let edges: BTreeMap<String, BTreeSet<String>> = g
        .edges
        .iter()
        .map(|(from, to)| {
            let kept = to
                .iter()
                .filter(|t| !is_within(t, from) && !is_within(from, t))
                .cloned()
                .collect();
            (from.clone(), kept)
        })
        .collect();
    let found = cycles(&edges);
    let described: Vec<String> = found
        .iter()
        .map(|c| {
            let members: Vec<String> = c
                .iter()
                .map(|m| {
                    let inside: Vec<&String> = edges[m].iter().filter(|t| c.contains(t)).collect();
                    format!("  {} ({}) → {inside:?}", m, g.files[m].display())
                })
                .collect();
            members.join("\n")
        })
        .collect();
    assert!(
        found.is_empty(),
        "import cycles in src/:\n{}",
        described.join("\n\n")
    );
}

#[test]
fn top_level_modules_import_only_what_their_layer_may() {
    let g = graph();
    let allowed: BTreeMap<&str, &[&str]> = MAY_IMPORT.iter().copied().collect();
    let mut wrong = Vec::new();
    for (from, to) in &g.edges {
        let from_top = top(from);
        if from.is_empty() || from_top == "main" || LEAVES.contains(&from_top) {
            continue;
        }
        let Some(may) = allowed.get(from_top) else {
            wrong.push(format!(
                "{from_top} ({}) is not in MAY_IMPORT: place it in a layer",
                g.files[from].display()
            ));
            continue;
        };
        for t in to {
            let t_top = top(t);
            if t.is_empty() || t_top == from_top || LEAVES.contains(&t_top) {
                continue;
            }
            if !may.contains(&t_top) {
                wrong.push(format!("{from} ({}) imports {t}", g.files[from].display()));
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
    // The allow-list itself has no cycle, so the layers are layers.
    let layers: BTreeMap<String, BTreeSet<String>> = MAY_IMPORT
        .iter()
        .map(|(m, may)| (m.to_string(), may.iter().map(|s| s.to_string()).collect()))
        .collect();
    assert!(cycles(&layers).is_empty(), "MAY_IMPORT has a cycle");
}

#[test]
fn pure_layers_do_no_io() {
    let mut found = Vec::new();
    for m in modules() {
        if !PURE.iter().any(|p| is_within(&m.path, p)) {
            continue;
        }
        for (n, line) in m.code.lines().enumerate() {
            for io in IO {
                let named = line.contains(io)
                    || (*io == "std::fs" && line.contains("use std::{") && line.contains("fs"));
                if named {
                    found.push(format!("{}:{}: {}", m.file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "I/O in a pure layer:\n{}",
        found.join("\n")
    );
}

/// A plan's file is changed only through the action layer: the store's edit (`Queue::edit_with`, crate-private)
/// is called from `actions` alone (and defined in `queue`), so every change is decided in `access.rs` and writes
/// its audit line.
#[test]
fn only_the_action_layer_edits_a_plan() {
    let mut found = Vec::new();
    let mut callers = 0;
    for m in modules() {
        for (n, line) in m.code.lines().enumerate() {
            if !line.contains(".edit_with(") {
                continue;
            }
            if is_within(&m.path, "actions") {
                callers += 1;
            } else if !is_within(&m.path, "queue") {
                found.push(format!("{}:{}: {}", m.file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        callers > 0,
        "the check sees no call of the store's edit at all"
    );
    assert!(
        found.is_empty(),
        "a plan edited outside the action layer:\n{}",
        found.join("\n")
    );
}

/// The checks above would pass on anything if they read nothing: they must see the modules and the edges
/// every adapter has.
#[test]
fn the_graph_sees_the_imports() {
    let g = graph();
    assert!(g.files.len() > 100, "{} modules", g.files.len());
    let actions = &g.edges["actions"];
    assert!(actions.iter().any(|t| top(t) == "queue"), "{actions:?}");
    let sample = "use super::{a::B, c};\nfn f() { crate::x::y::z(); }\n";
    assert_eq!(
        paths(sample),
        vec![
            vec!["super".to_string(), "a".into(), "B".into()],
            vec!["super".to_string(), "c".into()],
            vec!["crate".to_string(), "x".into(), "y".into(), "z".into()],
        ]
    );
    let cyclic: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["a".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into();
    assert_eq!(cycles(&cyclic), vec![vec!["a".to_string(), "b".into()]]);
}
