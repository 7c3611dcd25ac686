//! Synthetic suites for benchmarks: the real suite multiplied.
//!
//! `scale(suite, k)` gives a suite with the same sections and `k` times the cases: every
//! `cases` array (at section level or under a sub-key) holds its original cases followed by
//! `k − 1` copies of each, named `<name>-x<n>` (unnamed rows stay unnamed and get new
//! indices); every fixture a copied case references is copied to `<stem>-x<n>.json`. Sub-key
//! single cases (projections, dedup_key) are not multiplied. Invariants: the result validates
//! exactly as cleanly as the input (no orphans, unique ids, every reference resolves), and it
//! is a pure function of the loaded suite — nothing is read from disk again.
//!
//! [`floor`] is the yardstick every load and validate measurement is stated against: the same
//! files as [`Suite::load`] reads, each read and (when `.json`) parsed once with
//! `serde_json::from_slice` into the same value type, on one thread, with no check at all.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::suite::{self, Suite};
use crate::validate::FILE_REF_KEYS;

/// The files of a scaled suite, by suite-relative path.
pub type Files = BTreeMap<String, Vec<u8>>;

/// Multiply the cases of `suite` by `factor` (≥ 1).
pub fn scale(suite: &Suite, factor: usize) -> Result<Files, String> {
    let mut manifest = Value::Object(suite.manifest_or_why()?.clone());
    let mut files: Files = suite.files().map(|f| (f.rel.clone(), f.bytes().to_vec())).collect();
    // The changelog is no suite file, but a suite without it does not validate.
    if let Some(changelog) = suite.changelog() {
        files.insert(suite::CHANGELOG.to_owned(), changelog.bytes().to_vec());
    }
    let sections: Vec<String> = manifest
        .as_object()
        .into_iter()
        .flat_map(|m| m.keys())
        .filter(|k| !suite::METADATA_KEYS.contains(&k.as_str()))
        .cloned()
        .collect();
    for name in sections {
        let block = &mut manifest[&name];
        if let Value::Array(cases) = block {
            multiply(cases, factor, suite, &mut files)?;
            continue;
        }
        let Value::Object(map) = block else { continue };
        for (key, value) in map.iter_mut() {
            if crate::suite::ids::NOT_CASES.contains(&key.as_str()) {
                continue;
            }
            let list = if key == "cases" { Some(value) } else { value.get_mut("cases") };
            if let Some(Value::Array(cases)) = list {
                multiply(cases, factor, suite, &mut files)?;
            }
        }
    }
    let mut text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    text.push('\n');
    files.insert(suite::MANIFEST.to_owned(), text.into_bytes());
    Ok(files)
}

fn multiply(cases: &mut Vec<Value>, factor: usize, suite: &Suite, files: &mut Files) -> Result<(), String> {
    let originals = cases.clone();
    for n in 2..=factor {
        for case in &originals {
            let mut copy = case.clone();
            if let Some(Value::String(name)) = copy.get_mut("name") {
                name.push_str(&format!("-x{n}"));
            }
            rename_refs(&mut copy, n, suite, files)?;
            cases.push(copy);
        }
    }
    Ok(())
}

fn rename_refs(v: &mut Value, n: usize, suite: &Suite, files: &mut Files) -> Result<(), String> {
    match v {
        Value::Object(m) => {
            for (k, child) in m.iter_mut() {
                match child {
                    Value::String(rel) if FILE_REF_KEYS.contains(&k.as_str()) && rel.starts_with("fixtures/") => {
                        let bytes =
                            suite.file(rel).ok_or_else(|| format!("{rel} is referenced but missing"))?.bytes().to_vec();
                        let stem = rel.strip_suffix(".json").unwrap_or(rel);
                        let renamed = format!("{stem}-x{n}.json");
                        files.insert(renamed.clone(), bytes);
                        *rel = renamed;
                    }
                    _ => rename_refs(child, n, suite, files)?,
                }
            }
        }
        Value::Array(a) => {
            for child in a {
                rename_refs(child, n, suite, files)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// What [`floor`] read: how many files, how many bytes, how many of them parsed as JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Floor {
    pub files: usize,
    pub bytes: u64,
    pub parsed: usize,
}

/// The floor of loading the suite at `root`: every file [`Suite::load`] would read (the
/// top-level files present, everything under `schema/` and `fixtures/`, in the same order),
/// read whole and, for `.json` files, parsed with `serde_json::from_slice::<Value>`; nothing is
/// kept, checked or located. An unreadable file is an error (the floor is measured on suites
/// that load cleanly).
pub fn floor(root: &std::path::Path) -> std::io::Result<Floor> {
    let mut out = Floor { files: 0, bytes: 0, parsed: 0 };
    let mut one = |path: &std::path::Path| -> std::io::Result<()> {
        let bytes = std::fs::read(path)?;
        out.files += 1;
        out.bytes += bytes.len() as u64;
        let json = path.extension().is_some_and(|e| e == "json");
        if json && serde_json::from_slice::<Value>(&bytes).is_ok() {
            out.parsed += 1;
        }
        Ok(())
    };
    for rel in suite::TOP_FILES.into_iter().chain([suite::CHANGELOG]) {
        let path = root.join(rel);
        if path.is_file() {
            one(&path)?;
        }
    }
    for dir in suite::SUITE_DIRS {
        for entry in walkdir::WalkDir::new(root.join(dir)).follow_links(false).sort_by_file_name() {
            let entry = entry.map_err(std::io::Error::other)?;
            if entry.file_type().is_file() {
                one(entry.path())?;
            }
        }
    }
    Ok(out)
}

/// Write `files` as a new suite at `out` (which must not exist): written into a staging
/// directory beside it ([`crate::staging`]), then renamed into place.
pub fn write(files: &Files, out: &std::path::Path) -> std::io::Result<()> {
    if out.exists() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!("{} already exists", out.display()),
        ));
    }
    let staging = crate::staging::Staged::dir(out, crate::staging::Kind::Stage)?;
    for (rel, bytes) in files {
        let p = staging.path().join(rel);
        std::fs::create_dir_all(p.parent().expect("a file has a parent"))?;
        std::fs::write(p, bytes)?;
    }
    std::fs::rename(staging.path(), out)?;
    staging.disarm();
    Ok(())
}
