//! The design's one-way data flow, enforced as an allow-list of module-to-module edges.
//!
//! Every `crate::<module>` path in the code of a top-level module of `src/` (in `use` items,
//! grouped ones such as `use crate::{a, b::c}` included, and in paths written inline) is an
//! edge from that module to `<module>`. The edges are exactly [`ALLOWED`]: a new edge, such as
//! a sideways import between two checks or a lower layer reaching up, fails this test, and so
//! does an allowed edge nothing uses any more (so the list stays true).

use std::collections::BTreeSet;
use std::path::Path;

/// Every allowed edge `(from, to)`, by layer from the bottom up.
const ALLOWED: &[(&str, &str)] = &[
    // The reference core and the findings model use nothing of the tooling. Below the core:
    // the catalogue of its broken variants, the switches it consults (fault uses nothing).
    ("core", "fault"),
    ("fsutil", "staging"),
    ("suite", "diag"),
    ("suite", "fsutil"),
    // The SDK interface, and the reference core behind it (only `sdk::reference` knows it).
    ("sdk", "core"),
    // A Redis URL is shown without its password, as every URL is (diag::redact_url).
    ("sdk", "diag"),
    ("sdk", "fault"),
    ("results", "diag"),
    ("results", "fsutil"),
    ("results", "schema"),
    ("results", "suite"),
    // One home per section: the judge, over the suite and the SDK interface.
    ("sections", "diag"),
    ("sections", "results"),
    ("sections", "schema"),
    ("sections", "sdk"),
    ("sections", "suite"),
    // The adapter protocol: the SDK interface over a process boundary (a transport, no judging).
    ("adapter", "sdk"),
    // The adapter log is opened as every file beside user data is: never through a symlink.
    ("adapter", "fsutil"),
    // What an adapter writes is shown as every untrusted text is: terminal-safe (diag::escape).
    ("adapter", "diag"),
    // Where a reply departs from the protocol is said as a JSON pointer, built as every one is.
    ("adapter", "suite"),
    ("validate", "diag"),
    ("validate", "fsutil"),
    ("validate", "results"),
    ("validate", "schema"),
    ("validate", "sdk"),
    ("validate", "sections"),
    ("validate", "suite"),
    ("conformance", "adapter"),
    ("conformance", "results"),
    ("conformance", "sdk"),
    ("conformance", "sections"),
    ("conformance", "suite"),
    // The paths a refusal or a verdict names are listed as every capped list is (diag::listed).
    ("vendored", "diag"),
    ("vendored", "fsutil"),
    // Before a copy is replaced: its uncommitted changes, which the replacement would lose.
    ("vendored", "git"),
    ("vendored", "staging"),
    ("vendored", "suite"),
    ("synth", "staging"),
    ("synth", "suite"),
    ("synth", "validate"),
    // Release, fetch, sync and diff gate on validate; release hashes with `core::lower_hex`
    // and diff names JSON types with `core::json::type_name`.
    ("release", "core"),
    ("release", "diag"),
    ("release", "fsutil"),
    ("release", "staging"),
    ("release", "suite"),
    ("release", "validate"),
    ("sync", "diag"),
    ("sync", "fsutil"),
    ("sync", "git"),
    ("sync", "staging"),
    ("sync", "suite"),
    ("sync", "validate"),
    ("sync", "vendored"),
    ("fetch", "diag"),
    // A file:// source is read as every local input is: regular files only, within a cap.
    ("fetch", "fsutil"),
    ("fetch", "git"),
    ("fetch", "release"),
    ("fetch", "staging"),
    ("fetch", "suite"),
    ("fetch", "sync"),
    ("fetch", "vendored"),
    ("diff", "core"),
    ("diff", "diag"),
    ("diff", "fetch"),
    // `--changelog FILE` and an asset side are read within the per-file cap, regular files only.
    ("diff", "fsutil"),
    ("diff", "git"),
    ("diff", "release"),
    // Which case fields the old version's runners evaluate: the section's contract.
    ("diff", "sections"),
    ("diff", "suite"),
    ("diff", "validate"),
    // A file that differs only in line endings is told by the rule `sync --check` applies.
    ("diff", "vendored"),
    // The contract in human form: rendered from the suite, the registry (which case fields are
    // expectations), the code table, the adapter protocol's schema and the CHANGELOG's entries.
    ("docs", "adapter"),
    ("docs", "diag"),
    ("docs", "diff"),
    ("docs", "fsutil"),
    ("docs", "sections"),
    ("docs", "suite"),
    // The command line sits on top of everything.
    ("cli", "adapter"),
    ("cli", "conformance"),
    ("cli", "diag"),
    ("cli", "diff"),
    ("cli", "docs"),
    ("cli", "fetch"),
    ("cli", "fsutil"),
    ("cli", "release"),
    ("cli", "results"),
    ("cli", "sdk"),
    ("cli", "sections"),
    ("cli", "staging"),
    ("cli", "suite"),
    ("cli", "sync"),
    ("cli", "synth"),
    ("cli", "validate"),
];

/// The code of `text` without comments (line, doc and block comments) and without the contents
/// of string literals.
fn code(text: &str) -> String {
    let (mut out, mut chars) = (String::with_capacity(text.len()), text.chars().peekable());
    let (mut in_str, mut block) = (false, 0usize);
    while let Some(c) = chars.next() {
        match (block > 0, in_str, c, chars.peek()) {
            (true, _, '*', Some('/')) => {
                chars.next();
                block -= 1;
            }
            (true, _, _, _) => {}
            (false, false, '/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            // A char literal holding a quote ('"' or '\"') is no string.
            (false, false, '\'', Some('"' | '\\')) => {
                let lit: String = chars.clone().take(3).collect();
                if lit.starts_with("\"'") || lit.starts_with("\\\"'") {
                    chars.nth(lit.find('\'').unwrap_or(0));
                }
                out.push(c);
            }
            (false, false, '/', Some('*')) => {
                chars.next();
                block += 1;
            }
            (false, _, '"', _) => {
                in_str = !in_str;
                out.push(c);
            }
            (false, true, '\\', _) => {
                chars.next();
            }
            (false, true, _, _) => {}
            _ => out.push(c),
        }
    }
    out
}

/// The top-level modules named by `crate::` paths in `code`, grouped imports included.
fn targets(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        let boundary = rest[..i].chars().last().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        if boundary {
            if let Some(group) = after.strip_prefix('{') {
                // The top-level items of the group: split at depth-0 commas.
                let (mut depth, mut item) = (0usize, String::new());
                for c in group.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            out.extend(first_segment(&item));
                            item.clear();
                            continue;
                        }
                        _ => {}
                    }
                    item.push(c);
                }
                out.extend(first_segment(&item));
            } else {
                out.extend(first_segment(after));
            }
        }
        rest = after;
    }
    out
}

fn first_segment(path: &str) -> Option<String> {
    let name: String = path.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    (!name.is_empty() && name != "self").then_some(name)
}

/// Every edge of the crate: (module of the file, module it names).
fn edges() -> BTreeSet<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeSet::new();
    for e in walkdir::WalkDir::new(&src).into_iter().filter_map(Result::ok) {
        let rel = e.path().strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        if !rel.ends_with(".rs") || rel == "lib.rs" || rel == "main.rs" {
            continue;
        }
        let from = rel.split('/').next().unwrap().trim_end_matches(".rs").to_owned();
        for to in targets(&code(&std::fs::read_to_string(e.path()).unwrap())) {
            if to != from {
                out.insert((from.clone(), to));
            }
        }
    }
    out
}

#[test]
fn the_module_edges_are_exactly_the_allowed_ones() {
    let actual = edges();
    let allowed: BTreeSet<(String, String)> = ALLOWED.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect();
    let sideways: Vec<_> = actual.difference(&allowed).collect();
    assert!(
        sideways.is_empty(),
        "edges the design does not allow (fix the import or argue for the edge): {sideways:#?}"
    );
    let stale: Vec<_> = allowed.difference(&actual).collect();
    assert!(stale.is_empty(), "allowed edges nothing uses any more (remove them): {stale:#?}");
}

#[test]
fn the_parser_reads_grouped_imports_inline_paths_and_skips_comments() {
    let text = "use crate::{a, b::{c, d}, e::f};\nuse crate::g::h;\n// crate::comment\n/* crate::block */ fn x() { crate::i::j(); let s = \"crate::in_string\"; }\nfn q(c: char) -> bool { c == '\"' && crate::k::l() }\n";
    let got: Vec<String> = targets(&code(text)).into_iter().collect();
    assert_eq!(got, ["a", "b", "e", "g", "i", "k"]);
}

/// stderr carries diagnostics only: a message to it must never be able to panic (a closed pipe
/// would turn a clean run into exit 101). Every message goes through the crate's `note!`.
#[test]
fn no_code_writes_to_stderr_with_a_macro_that_panics_when_stderr_is_closed() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut offenders = Vec::new();
    for e in walkdir::WalkDir::new(&src).into_iter().filter_map(Result::ok) {
        if e.path().extension().is_some_and(|x| x == "rs") {
            let text = code(&std::fs::read_to_string(e.path()).unwrap());
            if text.contains("eprintln!") || text.contains("eprint!") {
                offenders.push(e.path().display().to_string());
            }
        }
    }
    assert!(offenders.is_empty(), "use note!/note_inline! instead of eprintln!/eprint! in {offenders:#?}");
}
