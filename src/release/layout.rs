//! What a release asset holds and what its paths may look like. One home for both sides:
//! `release` never builds an archive that breaks these rules, and `fetch` refuses one that does.
//!
//! - The asset is `babelqueue-conformance-<version>.tar.gz`, its root directory
//!   `babelqueue-conformance-<version>/`, its checksum file `SHA256SUMS` (decisions R17, R18).
//! - Inside the root: `CONFORMANCE_VERSION`, `manifest.json`, `LICENSE`, and the files under
//!   `schema/` and `fixtures/` (with their directories). Nothing else.
//! - A path inside the root is UTF-8, relative, made of non-empty components separated by `/`,
//!   none of them `.` or `..`; it holds no backslash, no `:` and no NUL or other control
//!   character; no component is a Windows device name (`CON`, `NUL`, `COM1`, …) or ends in a dot
//!   or a space. These are the names every SDK's platform can create under the same spelling.
//! - No two paths are equal when letter case is ignored (on a case-insensitive file system one
//!   would overwrite the other).
//! - The caps on an asset ([`Limits`]): `fetch` refuses an asset over them, and `release`
//!   refuses to build one ([`Limits::refusal`]), so every asset `release` writes is one its
//!   `fetch` accepts.
//! - Entries are ordered by path compared component by component as bytes, so a directory comes
//!   right before its contents: GNU tar's `--sort=name` order. (A plain string sort differs:
//!   it puts `a-b/` before `a/`, because `-` sorts before `/`.)

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::suite::{LICENSE, MANIFEST, SUITE_DIRS, VERSION_FILE};

/// The checksum file published beside the asset.
pub const SHA256SUMS: &str = "SHA256SUMS";

/// The top-level files of a release, besides the directories in [`SUITE_DIRS`].
pub const TOP_FILES: [&str; 3] = [VERSION_FILE, MANIFEST, LICENSE];

/// `babelqueue-conformance-<version>`: the archive's root directory.
pub fn root_name(version: &str) -> String {
    format!("babelqueue-conformance-{version}")
}

/// `babelqueue-conformance-<version>.tar.gz`: the asset's file name.
pub fn asset_name(version: &str) -> String {
    format!("{}.tar.gz", root_name(version))
}

/// Does the suite-relative file `rel` belong in a release?
pub fn in_release(rel: &str) -> bool {
    TOP_FILES.contains(&rel) || SUITE_DIRS.iter().any(|d| rel.strip_prefix(d).is_some_and(|r| r.starts_with('/')))
}

/// Resource caps on an asset, shared by `fetch` (which refuses an asset over them) and
/// `release` (which refuses to build one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest asset or `SHA256SUMS` accepted from the source, in bytes.
    pub max_download: u64,
    /// Most entries in the archive.
    pub max_entries: usize,
    /// Largest single file, in bytes.
    pub max_file: u64,
    /// Largest uncompressed tar stream, in bytes.
    pub max_total: u64,
    /// Largest ratio of uncompressed to compressed size …
    pub max_ratio: u64,
    /// … checked once the uncompressed stream is larger than this many bytes.
    pub ratio_floor: u64,
}

impl Default for Limits {
    /// A suite is well under a megabyte; these leave a wide margin and still stop abuse early.
    fn default() -> Self {
        Self {
            max_download: 64 << 20,
            max_entries: 10_000,
            max_file: 16 << 20,
            max_total: 256 << 20,
            max_ratio: 200,
            ratio_floor: 1 << 20,
        }
    }
}

impl Limits {
    /// Why `fetch` would refuse an asset of `compressed` bytes whose tar stream has `tar` bytes
    /// and holds `entries` entries, the largest file being `largest` (path, bytes); `None` when
    /// it would not.
    pub fn refusal(&self, compressed: u64, tar: u64, entries: usize, largest: Option<(&str, u64)>) -> Option<String> {
        if compressed > self.max_download {
            return Some(format!(
                "the asset is {compressed} bytes, more than the {}-byte download cap",
                self.max_download
            ));
        }
        if entries > self.max_entries {
            return Some(format!("{entries} entries, more than the cap of {}", self.max_entries));
        }
        if let Some((path, size)) = largest.filter(|(_, size)| *size > self.max_file) {
            return Some(format!("{path} is {size} bytes, more than the per-file cap of {}", self.max_file));
        }
        if tar > self.max_total {
            return Some(format!("the tar stream is {tar} bytes, more than the {}-byte cap", self.max_total));
        }
        if tar > self.ratio_floor && tar > self.max_ratio.saturating_mul(compressed) {
            return Some(format!(
                "{compressed} compressed bytes expand to {tar}, more than {}x (fetch takes that for a decompression bomb)",
                self.max_ratio
            ));
        }
        None
    }
}

/// Windows device names, refused as a component's stem in any letter case.
const DEVICE_NAMES: [&str; 4] = ["CON", "PRN", "AUX", "NUL"];

/// Check a path inside the root (no trailing `/`); the error says what is wrong.
pub fn check_path(rel: &str) -> Result<(), String> {
    if rel.is_empty() {
        return Err("empty path".into());
    }
    if rel.starts_with('/') {
        return Err("starts with '/' (an absolute path, or an empty component after the root)".into());
    }
    if let Some(c) = rel.chars().find(|c| c.is_control()) {
        return Err(format!("control character U+{:04X} in the name", u32::from(c)));
    }
    if rel.contains('\\') {
        return Err("backslash in the name (a path separator on Windows)".into());
    }
    if rel.contains(':') {
        return Err("':' in the name (a drive or stream separator on Windows)".into());
    }
    for part in rel.split('/') {
        match part {
            "" => return Err("empty path component ('//' or a trailing '/')".into()),
            "." | ".." => return Err(format!("'{part}' path component")),
            _ => {}
        }
        let stem = part.split('.').next().unwrap_or(part).to_ascii_uppercase();
        let numbered = stem.len() == 4
            && (stem.starts_with("COM") || stem.starts_with("LPT"))
            && stem.as_bytes()[3].is_ascii_digit();
        if DEVICE_NAMES.contains(&stem.as_str()) || numbered {
            return Err(format!("'{part}' is a Windows device name"));
        }
        if part.ends_with('.') || part.ends_with(' ') {
            return Err(format!("'{part}' ends in a dot or a space (Windows drops them)"));
        }
    }
    Ok(())
}

/// The first pair of paths that are equal when letter case is ignored, if any.
pub fn case_collision<'a>(paths: impl IntoIterator<Item = &'a str>) -> Option<(&'a str, &'a str)> {
    let mut seen: HashMap<String, &str> = HashMap::new();
    for p in paths {
        if let Some(first) = seen.insert(p.to_lowercase(), p) {
            return Some((first, p));
        }
    }
    None
}

/// GNU tar `--sort=name` order: compare component by component, as bytes.
pub fn path_order(a: &str, b: &str) -> Ordering {
    a.split('/').cmp(b.split('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_rule() {
        for ok in ["manifest.json", "fixtures/a-b.json", "schema/x.schema.json", "fixtures/ğü.json", "fixtures/con-x"]
        {
            assert_eq!(check_path(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("", "empty"),
            ("/etc/passwd", "absolute"),
            ("a/../b", "'..'"),
            ("./a", "'.'"),
            ("a//b", "empty path component"),
            ("a/", "empty path component"),
            ("a\\b", "backslash"),
            ("c:x", "':'"),
            ("a\u{7}b", "control character U+0007"),
            ("a\0b", "U+0000"),
            ("fixtures/nul.json", "device name"),
            ("fixtures/COM1", "device name"),
            ("fixtures/x.", "ends in a dot"),
        ] {
            let e = check_path(bad).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }

    #[test]
    fn release_membership_and_order() {
        assert!(in_release("LICENSE") && in_release("fixtures/a.json") && in_release("schema/s.json"));
        assert!(!in_release("README.md") && !in_release("fixtures") && !in_release("fixtures-old/a.json"));
        let mut v = vec!["a-b/x", "a/y", "a", "B", "a-b", "a/x"];
        v.sort_by(|a, b| path_order(a, b));
        assert_eq!(v, ["B", "a", "a/x", "a/y", "a-b", "a-b/x"]);
        assert_eq!(case_collision(["a/X.json", "a/y.json", "A/x.json"]), Some(("a/X.json", "A/x.json")));
        assert_eq!(case_collision(["a/X.json", "a/y.json", "b/x.json"]), None);
    }
}
