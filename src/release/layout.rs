//! What a release asset holds and what its paths may look like. One home for both sides:
//! `release` never builds an archive that breaks these rules, and `fetch` refuses one that does.
//!
//! - The asset is `babelqueue-conformance-<version>.tar.gz`, its root directory
//!   `babelqueue-conformance-<version>/`, its checksum file `SHA256SUMS` (decisions R17, R18).
//! - Inside the root: `CONFORMANCE_VERSION`, `manifest.json`, `LICENSE`, and the files under
//!   `schema/` and `fixtures/` (with their directories). Nothing else.
//! - Every path inside the root obeys the path rule of [`crate::suite::paths`] (the names every
//!   SDK's platform can create under the same spelling: no `..`, no characters Windows refuses,
//!   no device names), and no two are equal when letter case is ignored (on a case-insensitive
//!   file system one would overwrite the other). `validate` holds the suite's own files to the
//!   stricter portable rule of the same module, so a suite it passes always builds.
//! - The caps on an asset ([`Limits`]): `fetch` refuses an asset over them, and `release`
//!   refuses to build one ([`Limits::refusal`]), so every asset `release` writes is one its
//!   `fetch` accepts. Each cap is one predicate (`Limits::*_over`) that both apply, `fetch`
//!   as it reads and `release` on the finished asset, so the two cannot disagree at a boundary.
//! - Entries are ordered by path compared component by component as bytes, so a directory comes
//!   right before its contents: GNU tar's `--sort=name` order. (A plain string sort differs:
//!   it puts `a-b/` before `a/`, because `-` sorts before `/`.)

use std::cmp::Ordering;

use crate::suite::in_suite_dirs;

/// The checksum file published beside the asset.
pub const SHA256SUMS: &str = "SHA256SUMS";

/// The top-level files of a release, besides the directories in [`crate::suite::SUITE_DIRS`].
pub const TOP_FILES: [&str; 3] = crate::suite::RELEASED_TOP_FILES;

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
    TOP_FILES.contains(&rel) || in_suite_dirs(rel)
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
    /// Is an asset (or `SHA256SUMS`) of `bytes` bytes over the download cap?
    pub fn download_over(&self, bytes: u64) -> bool {
        bytes > self.max_download
    }

    /// Are `entries` entries over the cap?
    pub fn entries_over(&self, entries: usize) -> bool {
        entries > self.max_entries
    }

    /// Is a file of `size` bytes over the per-file cap? (`ustar::read` is handed
    /// `max_file` and applies the same `>`.)
    pub fn file_over(&self, size: u64) -> bool {
        size > self.max_file
    }

    /// Is a tar stream of `tar` bytes (or the part decompressed so far) over the size cap?
    pub fn total_over(&self, tar: u64) -> bool {
        tar > self.max_total
    }

    /// Do `compressed` bytes expanding to `tar` (so far) look like a decompression bomb?
    pub fn ratio_over(&self, compressed: u64, tar: u64) -> bool {
        tar > self.ratio_floor && tar > self.max_ratio.saturating_mul(compressed)
    }

    /// Why `fetch` would refuse an asset of `compressed` bytes whose tar stream has `tar` bytes
    /// and holds `entries` entries, the largest file being `largest` (path, bytes); `None` when
    /// it would not. Each cap is the predicate `fetch` applies as it reads.
    pub fn refusal(&self, compressed: u64, tar: u64, entries: usize, largest: Option<(&str, u64)>) -> Option<String> {
        if self.download_over(compressed) {
            return Some(format!(
                "the asset is {compressed} bytes, more than the {}-byte download cap",
                self.max_download
            ));
        }
        if self.entries_over(entries) {
            return Some(format!("{entries} entries, more than the cap of {}", self.max_entries));
        }
        if let Some((path, size)) = largest.filter(|(_, size)| self.file_over(*size)) {
            return Some(format!("{path} is {size} bytes, more than the per-file cap of {}", self.max_file));
        }
        if self.total_over(tar) {
            return Some(format!("the tar stream is {tar} bytes, more than the {}-byte cap", self.max_total));
        }
        if self.ratio_over(compressed, tar) {
            return Some(format!(
                "{compressed} compressed bytes expand to {tar}, more than {}x (fetch takes that for a decompression bomb)",
                self.max_ratio
            ));
        }
        None
    }
}

/// GNU tar `--sort=name` order: compare component by component, as bytes.
pub fn path_order(a: &str, b: &str) -> Ordering {
    a.split('/').cmp(b.split('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_membership_and_order() {
        assert!(in_release("LICENSE") && in_release("fixtures/a.json") && in_release("schema/s.json"));
        assert!(!in_release("README.md") && !in_release("fixtures") && !in_release("fixtures-old/a.json"));
        let mut v = vec!["a-b/x", "a/y", "a", "B", "a-b", "a/x"];
        v.sort_by(|a, b| path_order(a, b));
        assert_eq!(v, ["B", "a", "a/x", "a/y", "a-b", "a-b/x"]);
    }
}
