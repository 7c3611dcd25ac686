//! Pin awareness: which suite tag an SDK's CI checks its vendored copy against.
//!
//! The spec's CI guard shallow-clones the suite at the tag the SDK pins (`git clone --depth 1
//! --branch vX.Y.Z …`) and diffs the vendored copy against it, so an SDK left behind on both the
//! old copy and the old pin stays green there. This module finds the pin and classifies it.
//!
//! Rules: a pin is every `--branch vX.Y.Z` or `--branch=vX.Y.Z` (quotes allowed around the tag,
//! `X.Y.Z` any SemVer version) of a command that clones this repository, and every use of this
//! repository's GitHub Action at a release tag, `BabelQueue/conformance@vX.Y.Z` (owner and name
//! in any letter case, as GitHub reads them), or at a commit SHA followed by the comment that
//! names its tag, `BabelQueue/conformance@<40 hex> # vX.Y.Z` (the form Dependabot and Renovate
//! keep up to date, and the README recommends), in a regular `*.yml` / `*.yaml` file directly
//! in the repository's `.github/workflows/` (never reached through a symlink out of the
//! repository). A command clones this repository unless it names only other repositories: a
//! `--branch` whose command (its line, with `\` continuations, up to `;`, `&&`, `||` or `|`)
//! holds a repository URL (`scheme://…`, `git@…`, `….git`) none of which ends in `conformance`
//! (`.git` aside) clones another project at its own tag, and is no pin; one with no URL (a
//! variable) is counted, since it may be this one. A line whose first character other than
//! white space is `#` is a comment of YAML or of the shell, and pins nothing. A `--branch` or
//! action ref whose value is not `v` + SemVer (a branch name, a bare commit SHA, a major tag such
//! as `v1`, an expression) is not a pin.
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
    let live = without_comment_lines(text);
    let mut at: Vec<(usize, &str)> = branch_flags(&live);
    at.extend(action_refs(&live));
    at.sort_unstable_by_key(|(offset, _)| *offset);
    // The tags are read from `live`, whose bytes are `text`'s wherever a pin can be.
    at.into_iter().map(|(offset, tag)| (tag.to_owned(), span_at(text, offset))).collect()
}

/// `text` with every comment line (first character other than white space `#`) blanked, byte
/// for byte, so that offsets stay `text`'s.
fn without_comment_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with('#') {
            let body = line.strip_suffix('\n');
            out.extend(std::iter::repeat_n(' ', body.map_or(line.len(), str::len)));
            if body.is_some() {
                out.push('\n');
            }
        } else {
            out.push_str(line);
        }
    }
    out
}

/// The command around byte `at` of `text`: from the separator before it to the one after it
/// (a line end not escaped by `\`, `;`, `&&`, `||`, `|`).
fn command_around(text: &str, at: usize) -> &str {
    let is_end = |bytes: &[u8], i: usize| match bytes[i] {
        b';' | b'|' => true,
        b'&' => bytes.get(i + 1) == Some(&b'&') || (i > 0 && bytes[i - 1] == b'&'),
        b'\n' => !(i > 0 && bytes[i - 1] == b'\\' || i > 1 && bytes[i - 1] == b'\r' && bytes[i - 2] == b'\\'),
        _ => false,
    };
    let bytes = text.as_bytes();
    let start = (0..at).rev().find(|&i| is_end(bytes, i)).map_or(0, |i| i + 1);
    let end = (at..bytes.len()).find(|&i| is_end(bytes, i)).unwrap_or(bytes.len());
    &text[start..end]
}

/// Does `command` clone another repository than this one: does it name repository URLs, none
/// of them this repository's (a last path segment ending in `conformance`, `.git` aside)?
fn clones_another_repository(command: &str) -> bool {
    let urls: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || c == '\\')
        .map(|w| w.trim_matches(|c| c == '"' || c == '\''))
        .filter(|w| w.contains("://") || w.starts_with("git@") || w.ends_with(".git"))
        .collect();
    let this_one = |url: &str| {
        let last = url.trim_end_matches('/').rsplit(['/', ':']).next().unwrap_or_default();
        last.strip_suffix(".git").unwrap_or(last).to_ascii_lowercase().ends_with("conformance")
    };
    !urls.is_empty() && !urls.iter().any(|u| this_one(u))
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
        if !preceded {
            continue;
        }
        if is_release_tag(tag) {
            out.push((start, tag));
        } else if tag.len() == 40 && tag.bytes().all(|b| b.is_ascii_hexdigit()) {
            // A commit SHA with its tag in the comment after it: `@<sha> # vX.Y.Z`.
            let tag_len = tag.len();
            let after = &text[start + tag_len..];
            let line = after.split('\n').next().unwrap_or_default();
            let rest = line.trim_start_matches(['"', '\'']).trim_start();
            if let Some(comment) = rest.strip_prefix('#') {
                let named = comment.trim_start();
                let tag = named.split(|c: char| c.is_whitespace()).next().unwrap_or_default();
                if is_release_tag(tag) {
                    out.push((start + tag_len + line.len() - named.len(), tag));
                }
            }
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
        if is_release_tag(tag) && !clones_another_repository(command_around(text, at)) {
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
  - uses: BabelQueue/conformance@0123456789abcdef0123456789abcdef01234567
  - uses: BabelQueue/conformance@main
  - uses: other/BabelQueue/conformance@v9.9.9
  - uses: MyBabelQueue/conformance@v9.9.8
";
        let found: Vec<_> = scan(text).into_iter().map(|(t, s)| (t, s.line, s.column)).collect();
        assert_eq!(found, [("v1.5.0".to_owned(), 2, 34), ("v1.6.0".into(), 3, 35), ("v1.4.0".into(), 4, 29)]);
    }

    /// Another project cloned at its own tag is no pin of this suite, nor is a commented-out
    /// line; a clone of this repository (a mirror too) or of a URL it cannot read is.
    #[test]
    fn scan_counts_only_clones_of_this_repository_and_no_comment() {
        let text = "\
steps:
  - run: git clone --depth 1 --branch v2.3.0 https://github.com/confluentinc/librdkafka
  - run: git clone https://github.com/tdlib/td.git /tmp/td --branch v1.5.0
  - run: |
      git clone --depth 1 \\
        --branch v1.6.0 \\
        https://github.com/BabelQueue/conformance.git suite
      git clone --branch v1.4.0 git@mirror.example:babelqueue-conformance suite2 && git clone --branch v9.0.0 https://x.test/other.git
      git clone --branch v1.3.0 \"$SUITE_URL\" suite3
      # git clone --branch v1.2.0 https://github.com/BabelQueue/conformance
  # - uses: BabelQueue/conformance@v1.1.0
";
        let found: Vec<_> = scan(text).into_iter().map(|(t, s)| (t, s.line)).collect();
        assert_eq!(found, [("v1.6.0".to_owned(), 6), ("v1.4.0".into(), 8), ("v1.3.0".into(), 9)]);
    }

    /// `@<sha> # vX.Y.Z`, as the README recommends and Dependabot writes, pins the tag its
    /// comment names; a SHA alone, or a comment that names no release tag, pins nothing.
    #[test]
    fn scan_reads_the_tag_beside_a_commit_sha() {
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let text = format!(
            "steps:\n  - uses: BabelQueue/conformance@{sha} # v1.6.0\n  - uses: BabelQueue/conformance@{sha}\n  - uses: \"BabelQueue/conformance@{sha}\" #v1.5.0 pinned\n  - uses: BabelQueue/conformance@{sha} # main\n"
        );
        let found: Vec<_> = scan(&text).into_iter().map(|(t, s)| (t, s.line, s.column)).collect();
        assert_eq!(found, [("v1.6.0".to_owned(), 2, 77), ("v1.5.0".into(), 4, 78)]);
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
