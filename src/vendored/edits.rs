//! Local edits: does a vendored copy that states another release hold exactly that release's
//! files, or that release with edits made by hand? `sync` (its report, under every mode) and
//! `fetch --check` ask it of a copy whose `CONFORMANCE_VERSION` names another version than the
//! one it is compared with, so that "1.5.0, untouched" (it only needs the upgrade) is told from
//! "1.5.0 with local edits" (the upgrade discards them, and the SDK has been testing against a
//! contract nobody released).
//!
//! Invariants:
//! - The release's files come from something that is that release, read without network by the
//!   caller: `sync` from the `v<VERSION>` tag of the canonical suite's own git repository, and
//!   only a tag that releases the suite (`diff::gate::released_copy`, which the command line
//!   hands to `sync`, a layer below `diff`); `fetch --check` from the release asset of a
//!   `file://` base, verified as every fetch is. Nothing else counts, and nothing is guessed:
//!   where the release's files cannot be read (no such tag, a shallow clone that may lack it, no
//!   git repository, a `-pre` version, which is never tagged, an asset not at hand) the answer
//!   is [`Verdict::Unknown`] with the reason and what to do about it.
//! - The comparison is the one definition of a copy ([`crate::vendored::compare`]): the
//!   release's `CONFORMANCE_VERSION`, `manifest.json`, `schema/` and `fixtures/` against every
//!   entry of the copy, its top-level `LICENSE` ignored; a local edit is any entry the copy adds,
//!   lacks or holds with other bytes (line endings included: they are counted, and said apart).
//! - Nothing here writes.

use std::collections::BTreeMap;

use crate::vendored::{self, Drift, Tree};

/// What a copy stating release `version` holds against that release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalEdits {
    /// The release the copy states (its `CONFORMANCE_VERSION`).
    pub version: String,
    pub verdict: Verdict,
}

/// The answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Byte for byte the release's copy files.
    Exact,
    /// The release with these local edits, from the copy's side (`added`: only in the copy).
    Edited(Drift),
    /// It could not be told: why, and how to make it tellable.
    Unknown(String),
}

impl Verdict {
    /// The JSON word: `exact`, `edited` or `unknown`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Exact => "exact",
            Verdict::Edited(_) => "edited",
            Verdict::Unknown(_) => "unknown",
        }
    }
}

impl LocalEdits {
    /// Judge `tree` against the copy files of its release (`release`: suite-relative path →
    /// bytes, any files of the release; only those of a copy are compared).
    pub fn judge(version: &str, release: &BTreeMap<String, Vec<u8>>, tree: &Tree) -> LocalEdits {
        let canonical = vendored::canonical(release.iter().map(|(p, b)| (p.as_str(), b.as_slice())));
        let verdict = match vendored::compare(&canonical, tree, (&format!("v{version}"), "vendored")) {
            None => Verdict::Exact,
            Some(d) => Verdict::Edited(d),
        };
        LocalEdits { version: version.to_owned(), verdict }
    }

    /// Could not be told, for `why`.
    pub fn unknown(version: &str, why: String) -> LocalEdits {
        LocalEdits { version: version.to_owned(), verdict: Verdict::Unknown(why) }
    }

    /// The edited paths, sorted (empty unless [`Verdict::Edited`]).
    pub fn paths(&self) -> Vec<String> {
        let Verdict::Edited(d) = &self.verdict else { return Vec::new() };
        let mut all: Vec<String> =
            d.added.iter().chain(&d.removed).cloned().chain(d.modified.iter().map(|m| m.file.clone())).collect();
        all.sort();
        all
    }

    /// `exactly release 1.5.0`, `release 1.5.0 with 2 local edits (2 files: a, b)`, or
    /// `whether it holds local edits is not told`: the table's words.
    pub fn words(&self) -> String {
        let v = &self.version;
        match &self.verdict {
            Verdict::Exact => format!("exactly release {v}"),
            Verdict::Edited(_) => {
                let paths = self.paths();
                format!("release {v} with {} ({})", count(paths.len()), crate::diag::listed(&paths))
            }
            Verdict::Unknown(_) => "whether it holds local edits is not told".to_owned(),
        }
    }

    /// The edits said for a message: `2 local edits (2 files: a, b)`, with how many of them are
    /// line endings only when some are.
    pub fn edits_said(&self) -> String {
        let paths = self.paths();
        let crlf = match &self.verdict {
            Verdict::Edited(d) => d.modified.iter().filter(|m| m.crlf).count(),
            _ => 0,
        };
        let eol = match crlf {
            0 => String::new(),
            1 if paths.len() == 1 => ", line endings only (CR LF for LF)".to_owned(),
            n if n == paths.len() => ", all of them line endings only (CR LF for LF)".to_owned(),
            n => format!(", {n} of them line endings only (CR LF for LF)"),
        };
        format!("{} ({}{eol})", count(paths.len()), crate::diag::listed(&paths))
    }
}

/// `1 local edit`, `3 local edits`.
fn count(n: usize) -> String {
    format!("{n} local edit{}", if n == 1 { "" } else { "s" })
}

/// Is `copy` (a copy's stated version) a SemVer version other than `against`, in its canonical
/// spelling? Only such a copy is judged against its own release.
pub fn other_version<'a>(copy: Option<&'a str>, against: &semver::Version) -> Option<&'a str> {
    copy.filter(|c| semver::Version::parse(c).is_ok_and(|v| v.to_string() == *c && v != *against))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> Tree {
        Tree { files: files.iter().map(|(k, v)| ((*k).to_owned(), v.as_bytes().to_vec())).collect(), ..Tree::default() }
    }

    #[test]
    fn exact_edited_and_words() {
        let release: BTreeMap<String, Vec<u8>> = [
            ("CONFORMANCE_VERSION".to_owned(), b"1.5.0\n".to_vec()),
            ("LICENSE".to_owned(), b"MIT".to_vec()),
            ("fixtures/a.json".to_owned(), b"{\n}\n".to_vec()),
        ]
        .into();
        let same = tree(&[("CONFORMANCE_VERSION", "1.5.0\n"), ("fixtures/a.json", "{\n}\n")]);
        let e = LocalEdits::judge("1.5.0", &release, &same);
        assert_eq!(e.verdict, Verdict::Exact, "LICENSE is never part of a copy");
        assert_eq!(e.words(), "exactly release 1.5.0");
        let edited =
            tree(&[("CONFORMANCE_VERSION", "1.5.0\n"), ("fixtures/a.json", "{\r\n}\r\n"), ("fixtures/b.json", "1")]);
        let e = LocalEdits::judge("1.5.0", &release, &edited);
        assert_eq!(e.paths(), ["fixtures/a.json", "fixtures/b.json"]);
        assert_eq!(e.words(), "release 1.5.0 with 2 local edits (2 files: fixtures/a.json, fixtures/b.json)");
        assert!(e.edits_said().ends_with(", 1 of them line endings only (CR LF for LF))"), "{}", e.edits_said());
        assert_eq!(e.verdict.as_str(), "edited");
        // Every edit line endings only: said so, not counted (and of one edit, without "all").
        let one = tree(&[("CONFORMANCE_VERSION", "1.5.0\n"), ("fixtures/a.json", "{\r\n}\r\n")]);
        let e = LocalEdits::judge("1.5.0", &release, &one);
        assert_eq!(e.edits_said(), "1 local edit (1 file: fixtures/a.json, line endings only (CR LF for LF))");
        let mut release = release.clone();
        release.insert("fixtures/b.json".to_owned(), b"[\n]\n".to_vec());
        let two = tree(&[
            ("CONFORMANCE_VERSION", "1.5.0\n"),
            ("fixtures/a.json", "{\r\n}\r\n"),
            ("fixtures/b.json", "[\r\n]\r\n"),
        ]);
        let e = LocalEdits::judge("1.5.0", &release, &two);
        assert!(e.edits_said().ends_with(", all of them line endings only (CR LF for LF))"), "{}", e.edits_said());
    }

    #[test]
    fn only_another_canonical_semver_version_is_judged() {
        let v = semver::Version::parse("1.6.0").unwrap();
        assert_eq!(other_version(Some("1.5.0"), &v), Some("1.5.0"));
        assert_eq!(other_version(Some("1.6.0"), &v), None);
        assert_eq!(other_version(Some("v1.5.0"), &v), None);
        assert_eq!(other_version(Some("1.5"), &v), None);
        assert_eq!(other_version(None, &v), None);
    }
}
