//! Pin awareness: which suite tag an SDK's CI checks its vendored copy against.
//!
//! The spec's CI guard shallow-clones the suite at the tag the SDK pins (`git clone --depth 1
//! --branch vX.Y.Z …`) and diffs the vendored copy against it, so an SDK left behind on both the
//! old copy and the old pin stays green there. This module finds the pin and classifies it.
//!
//! Rules: a pin is every `--branch vX.Y.Z` or `--branch=vX.Y.Z` (quotes allowed around the tag,
//! `X.Y.Z` any SemVer version), and every use of this repository's GitHub Action at a release
//! tag, `BabelQueue/conformance@vX.Y.Z` (owner and name in any letter case, as GitHub reads
//! them), in a regular `*.yml` / `*.yaml` file directly in the repository's `.github/workflows/`
//! (never reached through a symlink out of the repository). A `--branch` or action ref whose
//! value is not `v` + SemVer (a branch name, a commit SHA, a major tag such as `v1`, an
//! expression) is not a pin.
//! Given the copy's `CONFORMANCE_VERSION` and the canonical version: no pin → unpinned; several
//! different tags → conflict; the one tag ≠ the copy's version (or no copy) → mismatch; equal
//! and the same as the canonical version → in sync; equal and older → behind; equal and newer
//! → ahead. Versions compare as SemVer (`1.7.0-pre < 1.7.0`).

use std::cmp::Ordering;
use std::path::Path;

use semver::Version;

use crate::diag::Span;
use crate::suite::span::span_at;

use super::place::resolve_inside;

/// Where the workflows live, relative to the repository.
pub const WORKFLOWS: &str = ".github/workflows";

/// One `--branch vX.Y.Z` in a workflow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// The tag, e.g. `v1.6.0`.
    pub tag: String,
    /// The workflow file, relative to the repository.
    pub file: String,
    /// Where the tag starts.
    pub span: Span,
}

impl Pin {
    /// The pinned version (the tag without its `v`).
    pub fn version(&self) -> &str {
        &self.tag[1..]
    }
}

/// How a copy, its pin and the canonical suite relate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinStatus {
    InSync,
    Behind,
    Ahead,
    Mismatch,
    Conflict,
    Unpinned,
}

impl PinStatus {
    /// The kebab-case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            PinStatus::InSync => "in-sync",
            PinStatus::Behind => "behind",
            PinStatus::Ahead => "ahead",
            PinStatus::Mismatch => "mismatch",
            PinStatus::Conflict => "conflict",
            PinStatus::Unpinned => "unpinned",
        }
    }
}

/// Every pin in `text`, with its position, in text order.
pub fn scan(text: &str) -> Vec<(String, Span)> {
    let mut at: Vec<(usize, &str)> = branch_flags(text);
    at.extend(action_refs(text));
    at.sort_unstable_by_key(|(offset, _)| *offset);
    at.into_iter().map(|(offset, tag)| (tag.to_owned(), span_at(text, offset))).collect()
}

/// Is `tag` `v` + a SemVer version?
fn is_release_tag(tag: &str) -> bool {
    tag.strip_prefix('v').is_some_and(|v| Version::parse(v).is_ok())
}

/// `uses: BabelQueue/conformance@vX.Y.Z`: (offset of the tag, tag).
fn action_refs(text: &str) -> Vec<(usize, &str)> {
    const ACTION: &str = "babelqueue/conformance@";
    // ASCII lowercasing keeps every byte offset.
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    for (at, _) in lower.match_indices(ACTION) {
        let start = at + ACTION.len();
        let preceded =
            text[..at].chars().next_back().is_none_or(|c| !(c.is_ascii_alphanumeric() || "-_./".contains(c)));
        let tag = text[start..].split(|c: char| c.is_whitespace() || "\"'#".contains(c)).next().unwrap_or_default();
        if preceded && is_release_tag(tag) {
            out.push((start, tag));
        }
    }
    out
}

/// `--branch vX.Y.Z`, `--branch=vX.Y.Z`, quoted or not: (offset of the tag, tag).
fn branch_flags(text: &str) -> Vec<(usize, &str)> {
    const FLAG: &str = "--branch";
    let mut out = Vec::new();
    for (at, _) in text.match_indices(FLAG) {
        let rest = &text[at + FLAG.len()..];
        let value = match rest.chars().next() {
            Some('=') => &rest[1..],
            Some(' ' | '\t') => rest.trim_start_matches([' ', '\t']),
            _ => continue,
        };
        let start = text.len() - value.len();
        let token = value.split(|c: char| c.is_whitespace() || c == ';').next().unwrap_or_default();
        let quoted =
            token.len() >= 2 && (token.starts_with('"') || token.starts_with('\'')) && token.ends_with(&token[..1]);
        let (tag, offset) = if quoted { (&token[1..token.len() - 1], 1) } else { (token, 0) };
        if is_release_tag(tag) {
            out.push((start + offset, tag));
        }
    }
    out
}

/// Every pin in the workflows of the repository at `repo` (a real path), in file order.
pub(crate) fn read(repo: &Path) -> Vec<Pin> {
    let Ok((dir, true)) = resolve_inside(repo, WORKFLOWS, "") else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yml") || n.ends_with(".yaml"))
        .collect();
    files.sort();
    let mut pins = Vec::new();
    for name in files {
        let Ok(text) = std::fs::read_to_string(dir.join(&name)) else { continue };
        for (tag, span) in scan(&text) {
            pins.push(Pin { tag, file: format!("{WORKFLOWS}/{name}"), span });
        }
    }
    pins
}

/// Classify a copy's version against its pins and the canonical version.
pub fn classify(copy: Option<&str>, pins: &[Pin], canonical: &Version) -> PinStatus {
    let mut tags: Vec<&str> = pins.iter().map(|p| p.tag.as_str()).collect();
    tags.sort_unstable();
    tags.dedup();
    let pinned = match tags.as_slice() {
        [] => return PinStatus::Unpinned,
        [one] => Version::parse(&one[1..]).expect("scan only keeps SemVer tags"),
        _ => return PinStatus::Conflict,
    };
    match copy.and_then(|c| Version::parse(c).ok()) {
        Some(c) if c == pinned => match c.cmp(canonical) {
            Ordering::Equal => PinStatus::InSync,
            Ordering::Less => PinStatus::Behind,
            Ordering::Greater => PinStatus::Ahead,
        },
        _ => PinStatus::Mismatch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_finds_tags_in_every_spelling_and_ignores_non_versions() {
        let text = "\
jobs:
  conformance:
    steps:
      - run: git clone --depth 1 --branch v1.6.0 https://example.test/conformance.git suite
      - run: git clone --branch=\"v1.5.0\" x; git clone --branch 'v2.0.0-pre' y
      - run: git clone --branch main x && git clone --branch ${{ env.TAG }} y --branches v9.9.9
      - run: git clone --branch v1.6 x
";
        let found: Vec<_> = scan(text).into_iter().map(|(t, s)| (t, s.line, s.column)).collect();
        assert_eq!(found, [("v1.6.0".to_owned(), 4, 43), ("v1.5.0".into(), 5, 34), ("v2.0.0-pre".into(), 5, 65)]);
    }

    #[test]
    fn scan_finds_the_action_at_release_tags_only() {
        let text = "\
steps:
  - uses: babelqueue/Conformance@v1.5.0
  - uses: \"BabelQueue/conformance@v1.6.0\" # the action
  - run: git clone --branch v1.4.0 x
  - uses: BabelQueue/conformance@v1
  - uses: BabelQueue/conformance@0123456789abcdef0123456789abcdef01234567 # v1.6.0
  - uses: BabelQueue/conformance@main
  - uses: other/BabelQueue/conformance@v9.9.9
  - uses: MyBabelQueue/conformance@v9.9.8
";
        let found: Vec<_> = scan(text).into_iter().map(|(t, s)| (t, s.line, s.column)).collect();
        assert_eq!(found, [("v1.5.0".to_owned(), 2, 34), ("v1.6.0".into(), 3, 35), ("v1.4.0".into(), 4, 29)]);
    }

    fn pins(tags: &[&str]) -> Vec<Pin> {
        tags.iter()
            .map(|t| Pin { tag: (*t).into(), file: "ci.yml".into(), span: Span { line: 1, column: 1 } })
            .collect()
    }

    #[test]
    fn classify_covers_every_relation() {
        let v = Version::parse("1.6.0").unwrap();
        assert_eq!(classify(Some("1.6.0"), &pins(&["v1.6.0", "v1.6.0"]), &v), PinStatus::InSync);
        assert_eq!(classify(Some("1.5.0"), &pins(&["v1.5.0"]), &v), PinStatus::Behind);
        assert_eq!(classify(Some("1.7.0"), &pins(&["v1.7.0"]), &v), PinStatus::Ahead);
        assert_eq!(classify(Some("1.6.0"), &pins(&["v1.5.0"]), &v), PinStatus::Mismatch);
        assert_eq!(classify(None, &pins(&["v1.6.0"]), &v), PinStatus::Mismatch);
        assert_eq!(classify(Some("garbage"), &pins(&["v1.6.0"]), &v), PinStatus::Mismatch);
        assert_eq!(classify(Some("1.6.0"), &pins(&["v1.5.0", "v1.6.0"]), &v), PinStatus::Conflict);
        assert_eq!(classify(Some("1.6.0"), &[], &v), PinStatus::Unpinned);
        let pre = Version::parse("1.7.0-pre").unwrap();
        assert_eq!(classify(Some("1.6.0"), &pins(&["v1.6.0"]), &pre), PinStatus::Behind);
    }
}
