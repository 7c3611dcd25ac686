//! Loading a suite directory once, and the typed view every later stage reads.
//!
//! Invariants: a suite is read from disk exactly once, by [`Suite::load`] (or built once from
//! files already in memory, a release asset or a git revision, by [`Suite::from_files`], which
//! keeps and classifies files by the same rules); every later stage (validate, run, release,
//! sync, results, diff) reads the in-memory copy, never the disk. Paths are suite-relative with
//! `/` separators. A file that is missing, unreadable, not a regular file, too large, not UTF-8
//! or not JSON is recorded as such (validate turns that into findings); only a suite root that
//! is not a directory is a load error. Symlinks are not followed when walking `schema/` and
//! `fixtures/`.
//!
//! Loading uses both cores: the files are read in a fixed order on one thread, and the
//! manifest is parsed on a second one meanwhile (what is loaded does not depend on which thread
//! parsed it).
//!
//! `CHANGELOG.md` is read with the suite, under the same bounds, but kept apart from the suite
//! files ([`Suite::changelog`]): it is not released, vendored or compared as suite data.
//!
//! Bounded reading: only regular files are read (a FIFO, socket or device is refused without
//! being opened for reading, so nothing blocks), no file larger than [`FILE_CAP`] is read, and
//! once [`SUITE_CAP`] bytes are read in all the remaining files are refused. Every `.json` file
//! is parsed once, by [`json::parse`]; a repeated key is recorded with both locations (validate
//! reports it, except in `fixtures/`, whose files repeat keys on purpose).

pub mod changelog;
pub mod content;
pub mod exact;
pub mod exceptions;
pub mod ids;
pub mod json;
pub mod paths;
pub mod pins;
pub mod pointer;
pub mod scope;
pub mod skip_policy;
pub mod span;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{Map, Value};

pub use ids::{CaseRef, case_ids};
pub use scope::Scope;

use crate::diag::Span;
use crate::fsutil::ReadError;

/// The manifest file name.
pub const MANIFEST: &str = "manifest.json";
/// The version file name.
pub const VERSION_FILE: &str = "CONFORMANCE_VERSION";
/// The licence shipped in the release asset (not vendored).
pub const LICENSE: &str = "LICENSE";
/// The three places that say the suite's version, which a bump changes together.
pub const VERSION_PLACES: &str =
    "CONFORMANCE_VERSION, manifest.json's and schema/results.example.json's conformance_version";
/// The producer envelope schema.
pub const ENVELOPE_SCHEMA: &str = "schema/message-envelope.schema.json";

/// Where the producer schema lists the SDK families (`meta.lang`).
pub const LANG_ENUM: &str = "/properties/meta/properties/lang/enum";
/// The results schema.
pub const RESULTS_SCHEMA: &str = "schema/results.schema.json";
/// The results example.
pub const RESULTS_EXAMPLE: &str = "schema/results.example.json";
/// The suite's changelog: read with the suite (validate requires the version's entry, see
/// [`changelog`]), but no suite file: neither released, vendored nor compared by `diff`.
pub const CHANGELOG: &str = "CHANGELOG.md";
/// Where `bqsuite sync` vendors the suite (decisions R19); optional, not part of a vendored copy.
pub const SYNC_TARGETS: &str = "sync-targets.json";
/// Directories whose files belong to the suite.
pub const SUITE_DIRS: [&str; 2] = ["schema", "fixtures"];
/// The top-level files a release asset holds, besides the directories in [`SUITE_DIRS`] (the
/// release layout's list, here so that a released copy can be told from a source tree).
pub const RELEASED_TOP_FILES: [&str; 3] = [VERSION_FILE, MANIFEST, LICENSE];
/// The top-level files a suite is read with (when present), besides `schema/` and `fixtures/`.
pub const TOP_FILES: [&str; 4] = [MANIFEST, VERSION_FILE, LICENSE, SYNC_TARGETS];

/// Is `rel` a path [`Suite::load`] reads: a top-level file of [`TOP_FILES`] or a file under
/// one of [`SUITE_DIRS`]?
pub fn is_suite_file(rel: &str) -> bool {
    TOP_FILES.contains(&rel) || in_suite_dirs(rel)
}

/// Does `rel` lie under one of [`SUITE_DIRS`] (`fixtures/x.json`, not `fixtures` itself nor
/// `fixtures-old/x.json`)?
pub fn in_suite_dirs(rel: &str) -> bool {
    SUITE_DIRS.iter().any(|d| rel.strip_prefix(d).is_some_and(|r| r.starts_with('/') && r.len() > 1))
}

/// A file under one of [`SUITE_DIRS`] that is not a `.json` file, or is hidden (a name, of the
/// file or a directory it lies in, starting with `.`): what `validate` reports (BQ006), so what
/// no release holds.
pub fn is_stray(rel: &str) -> bool {
    in_suite_dirs(rel) && (!rel.ends_with(".json") || rel.split('/').any(|part| part.starts_with('.')))
}
/// Top-level manifest keys that are not sections.
pub const METADATA_KEYS: [&str; 6] =
    ["schema_version", "conformance_version", "description", "sections", "exceptions", skip_policy::KEY];
/// The largest file a suite may hold (the manifest of a suite a hundred times the size of
/// 1.6.0's is 20 MB).
pub const FILE_CAP: u64 = 64 << 20;
/// The most a suite may hold in all.
pub const SUITE_CAP: u64 = 256 << 20;

/// Is `s` exactly an ADR reference, `ADR-` and four digits (an `exceptions` entry's `adr`)?
pub fn is_adr(s: &str) -> bool {
    s.len() == 8 && s.starts_with("ADR-") && s[4..].bytes().all(|b| b.is_ascii_digit())
}

/// The ADRs `text` cites: every `ADR-` and exactly four ASCII digits standing as a word of its
/// own, with no letter or digit of any script ([`joins_a_citation`]) right before or right after
/// it, nor a zero-width character that would hide one (`ADR-00331` cites nothing, `XADR-0033`,
/// `ADR-0033x`, `ADR-0033é` and `ADR-0033\u{200b}1` neither; `(ADR-0033)`, `ADR-0033:` and
/// `ADR-0033's` do), in order of appearance. The results schema's pattern (`ADR-[0-9]{4}`,
/// unanchored) is looser on purpose: it is the floor an SDK's own validator applies in any regex
/// dialect (RE2 has no look-around); this is the rule `results check` and `run` judge by.
pub fn adr_citations(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    text.match_indices("ADR-")
        .filter(|(i, _)| !text[..*i].chars().next_back().is_some_and(joins_a_citation))
        .filter_map(|(i, _)| {
            // The four digits first: only then is `i + 8` sure to be a character boundary.
            let digits = b.get(i + 4..i + 8)?;
            if !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let runs_on = text[i + 8..].chars().next().is_some_and(joins_a_citation);
            (!runs_on).then(|| &text[i..i + 8])
        })
        .collect()
}

/// Would `c` beside `ADR-NNNN` make it part of a longer word: a letter or digit of any script,
/// or a zero-width character (U+200B–U+200D, U+2060, U+FEFF), which shows as nothing and would
/// hide the rest of the word (`ADR-0032\u{200b}1` reads "ADR-00321").
pub fn joins_a_citation(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}')
}

/// Does `reason` cite an ADR ([`adr_citations`])? What every skip needs.
pub fn cites_adr(reason: &str) -> bool {
    !adr_citations(reason).is_empty()
}

/// The suite could not be loaded at all.
#[derive(Debug)]
pub struct LoadError {
    pub path: PathBuf,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for LoadError {}

pub use json::{Duplicate, JsonError, JsonErrorKind};

/// What reading one file gave.
#[derive(Debug, Clone)]
pub enum Content {
    /// Could not be read (the I/O error).
    Unreadable(String),
    /// Not read: not a regular file (what it is instead: "a FIFO", "a character device", …).
    NotRegular(&'static str),
    /// Not read: larger than `cap` bytes (`size` is at least `cap + 1`); `whole_suite` when the
    /// cap is what remained of [`SUITE_CAP`] rather than [`FILE_CAP`].
    TooLarge { size: u64, cap: u64, whole_suite: bool },
    /// Read, but not UTF-8 (byte offset of the first bad byte).
    NotUtf8(usize),
    /// UTF-8 text that is not meant to be JSON.
    Text(String),
    /// A `.json` file: its text, the parse result and every repeated key.
    Json { text: String, parsed: Result<Value, JsonError>, duplicates: Vec<Duplicate> },
}

/// One file of the suite.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Suite-relative path with `/` separators.
    pub rel: String,
    /// The bytes of a file that is not UTF-8 (empty otherwise: a UTF-8 file's bytes are its
    /// text, kept once, in [`Content`]).
    raw: Vec<u8>,
    pub content: Content,
}

impl SourceFile {
    /// Read `rel` under `root`, within what is left of the suite's byte budget.
    fn read(root: &Path, rel: &str, budget: &mut u64) -> Self {
        match Self::read_bytes(root, rel, budget) {
            Ok(bytes) => Self::from_bytes(rel, bytes),
            Err(unread) => *unread,
        }
    }

    /// The bytes of `rel` under `root`, within what is left of the suite's byte budget (which
    /// they use up), or the file as not read. Classifying the bytes ([`SourceFile::from_bytes`])
    /// is separate, so it may run on another thread.
    fn read_bytes(root: &Path, rel: &str, budget: &mut u64) -> Result<Vec<u8>, Box<Self>> {
        let unread = |content| Box::new(Self { rel: rel.to_owned(), raw: Vec::new(), content });
        let cap = FILE_CAP.min(*budget);
        let bytes = match crate::fsutil::read_bounded(&root.join(rel), cap) {
            Ok(b) => b,
            Err(ReadError::NotRegular(what)) => return Err(unread(Content::NotRegular(what))),
            Err(ReadError::TooLarge { size, cap }) => {
                return Err(unread(Content::TooLarge { size, cap, whole_suite: cap < FILE_CAP && size <= FILE_CAP }));
            }
            Err(ReadError::Io(e)) => return Err(unread(Content::Unreadable(e.to_string()))),
        };
        *budget -= bytes.len() as u64;
        Ok(bytes)
    }

    /// A file read elsewhere (a release asset, a git object), classified like one read from disk.
    fn from_bytes(rel: &str, bytes: Vec<u8>) -> Self {
        // A UTF-8 file's bytes become its text without a copy.
        let (raw, content) = match String::from_utf8(bytes) {
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                (e.into_bytes(), Content::NotUtf8(at))
            }
            Ok(text) if rel.ends_with(".json") => {
                let (parsed, duplicates) = match json::parse(&text) {
                    Ok(p) => (Ok(p.value), p.duplicates),
                    Err(e) => (Err(e), Vec::new()),
                };
                (Vec::new(), Content::Json { text, parsed, duplicates })
            }
            Ok(text) => (Vec::new(), Content::Text(text)),
        };
        Self { rel: rel.to_owned(), raw, content }
    }

    /// The exact bytes read (empty when the file was not read).
    pub fn bytes(&self) -> &[u8] {
        match &self.content {
            Content::Text(t) | Content::Json { text: t, .. } => t.as_bytes(),
            _ => &self.raw,
        }
    }

    /// Is this a fixture (a file under `fixtures/`, exempt from the repeated-key rule)?
    pub fn is_fixture(&self) -> bool {
        self.rel.starts_with("fixtures/")
    }

    /// The repeated keys of a JSON file (none for other files).
    pub fn duplicates(&self) -> &[Duplicate] {
        match &self.content {
            Content::Json { duplicates, .. } => duplicates,
            _ => &[],
        }
    }

    /// The text, when the file is UTF-8.
    pub fn text(&self) -> Option<&str> {
        match &self.content {
            Content::Text(t) | Content::Json { text: t, .. } => Some(t),
            _ => None,
        }
    }

    /// The parsed JSON, when the file is JSON that parses.
    pub fn json(&self) -> Option<&Value> {
        match &self.content {
            Content::Json { parsed: Ok(v), .. } => Some(v),
            _ => None,
        }
    }

    /// Why this file gives no parsed JSON, in words that follow its path (`None` when it does):
    /// the one wording of every command that needs a file's JSON and cannot go on without it.
    pub fn why_no_json(&self) -> Option<String> {
        Some(match &self.content {
            Content::Json { parsed: Ok(_), .. } => return None,
            Content::Json { parsed: Err(e), .. } => format!("does not parse as JSON: {}", e.message),
            Content::Unreadable(e) => format!("cannot be read: {e}"),
            Content::NotRegular(what) => format!("is not a regular file but {what}"),
            Content::TooLarge { size, cap, .. } => format!("is not read: {size} bytes, over the cap of {cap}"),
            Content::NotUtf8(at) => format!("is not valid UTF-8 (first bad byte at offset {at})"),
            Content::Text(_) => "is not a .json file".to_owned(),
        })
    }

    /// Why a `.json` file that was read as text does not parse.
    pub fn json_error(&self) -> Option<&JsonError> {
        match &self.content {
            Content::Json { parsed: Err(e), .. } => Some(e),
            _ => None,
        }
    }
}

/// Parse JSON text where no key may repeat (a configuration file given on the command line):
/// strict RFC 8259, and the first repeated key is an error of kind
/// [`JsonErrorKind::DuplicateKey`] at its repeated occurrence.
pub fn parse_json(text: &str) -> Result<Value, JsonError> {
    let parsed = json::parse(text)?;
    match parsed.duplicates.into_iter().next() {
        None => Ok(parsed.value),
        Some(d) => Err(JsonError { kind: JsonErrorKind::DuplicateKey, message: d.to_string(), span: Some(d.again) }),
    }
}

/// One section of the manifest.
#[derive(Debug, Clone, Copy)]
pub struct Section<'a> {
    pub name: &'a str,
    pub block: &'a Value,
    /// Its scope from the `sections` map, when it has a known one.
    pub scope: Option<Scope>,
}

impl<'a> Section<'a> {
    /// The section's cases under the one case-id rule.
    pub fn cases(&self) -> Vec<CaseRef<'a>> {
        case_ids(self.name, self.block)
    }
}

/// A family-level, ADR-backed non-support (`exceptions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exception {
    pub family: String,
    pub binding: String,
    pub adr: String,
}

impl Exception {
    /// Is this the exception of `family`? Families compare ignoring ASCII letter case, as an
    /// SDK's family is read from its name ([`name_pieces`]).
    pub fn is_for(&self, family: &str) -> bool {
        self.family.eq_ignore_ascii_case(family)
    }
}

/// The pieces an SDK's name is read in for its family: the name split at every character that
/// is not an ASCII letter or digit (`php-sdk` is `php`, `sdk`). A family is one such piece.
pub fn name_pieces(sdk: &str) -> impl Iterator<Item = &str> {
    sdk.split(|c: char| !c.is_ascii_alphanumeric())
}

/// Can `family` be an SDK's family, that is, is it exactly one non-empty [`name_pieces`] piece?
/// (What an `exceptions` entry and a skip rule's `families` may name.)
pub fn is_family_piece(family: &str) -> bool {
    !family.is_empty() && name_pieces(family).eq([family])
}

/// A loaded suite.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The directory as given.
    pub root: PathBuf,
    files: BTreeMap<String, SourceFile>,
    /// Entries that are not regular files or directories (symlinks, FIFOs…): under the suite
    /// dirs, the dirs themselves, and top-level files that are symlinks.
    pub irregular: Vec<String>,
    /// [`CHANGELOG`], when the suite has one (read like a top-level file, kept out of `files`).
    changelog: Option<SourceFile>,
    /// The skip policy, read on first use.
    policy: OnceLock<skip_policy::Loaded>,
}

impl Suite {
    /// Read the suite at `root`: the manifest, the version file, the licence, the sync targets
    /// (when present) and every file under `schema/` and `fixtures/`.
    pub fn load(root: impl AsRef<Path>) -> Result<Suite, LoadError> {
        let root = root.as_ref().to_path_buf();
        let not_a_suite = match std::fs::metadata(&root) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("does not exist".to_owned()),
            Err(e) => Some(e.to_string()),
            Ok(m) if !m.is_dir() => Some("is not a directory".to_owned()),
            Ok(_) => None,
        };
        if let Some(message) = not_a_suite {
            return Err(LoadError { path: root, message });
        }
        let mut files = BTreeMap::new();
        let mut irregular = Vec::new();
        let mut budget = SUITE_CAP;
        let mut changelog = None;
        // Files are read in one order on this thread (so the budget runs out at the same file
        // every time); the manifest, about half of a suite's bytes, is parsed on a second
        // thread while this one reads and parses the rest.
        std::thread::scope(|s| {
            let mut manifest = None;
            // A symlink is irregular wherever it is: at the top too, where it is still read
            // (so the file is not also missing), since it could lead anywhere the release would
            // then ship from (`LICENSE -> /proc/self/environ`, `-> .git/config`).
            let link = |rel: &str| root.join(rel).symlink_metadata().is_ok_and(|m| m.file_type().is_symlink());
            for rel in TOP_FILES {
                if root.join(rel).symlink_metadata().is_err() {
                    continue;
                }
                if link(rel) {
                    irregular.push(rel.to_owned());
                }
                match SourceFile::read_bytes(&root, rel, &mut budget) {
                    Ok(bytes) if rel == MANIFEST => {
                        manifest = Some(s.spawn(move || SourceFile::from_bytes(rel, bytes)))
                    }
                    Ok(bytes) => drop(files.insert(rel.to_owned(), SourceFile::from_bytes(rel, bytes))),
                    Err(unread) => drop(files.insert(rel.to_owned(), *unread)),
                }
            }
            if root.join(CHANGELOG).symlink_metadata().is_ok() {
                if link(CHANGELOG) {
                    irregular.push(CHANGELOG.to_owned());
                }
                changelog = Some(SourceFile::read(&root, CHANGELOG, &mut budget));
            }
            for dir in SUITE_DIRS {
                let top = root.join(dir);
                if link(dir) {
                    // Never read through: the directory would be somewhere else's.
                    irregular.push(dir.to_owned());
                    continue;
                }
                if !top.is_dir() {
                    continue;
                }
                // Siblings by name, compared as whole paths: siblings share their parent's path,
                // so the order is the same, without parsing a file name out of each path at each
                // comparison (a 4,500-file fixtures directory made 100,000 of them).
                let walk = walkdir::WalkDir::new(&top).follow_links(false);
                for entry in walk.sort_by(|a, b| a.path().as_os_str().cmp(b.path().as_os_str())) {
                    let entry = entry.map_err(|e| LoadError { path: top.clone(), message: e.to_string() })?;
                    let rel = crate::fsutil::slash_relative(&root, entry.path());
                    if entry.file_type().is_file() {
                        files.insert(rel.clone(), SourceFile::read(&root, &rel, &mut budget));
                    } else if !entry.file_type().is_dir() {
                        irregular.push(rel);
                    }
                }
            }
            if let Some(parsing) = manifest {
                let file = parsing.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                files.insert(MANIFEST.to_owned(), file);
            }
            Ok::<(), LoadError>(())
        })?;
        Ok(Suite { root, files, irregular, changelog, policy: OnceLock::new() })
    }

    /// A suite from files already in memory (a release asset, a git revision), by suite-relative
    /// path with `/` separators, under the same rules as [`Suite::load`]: the same files are
    /// kept (the top-level files `load` reads and everything under `schema/` and `fixtures/`;
    /// anything else is ignored) and each is classified the same way. `root` only names the
    /// suite in messages; `irregular` lists entries under the suite dirs that are not regular
    /// files. A [`CHANGELOG`] among `files` becomes the suite's changelog.
    pub fn from_files(
        root: impl Into<PathBuf>,
        files: impl IntoIterator<Item = (String, Vec<u8>)>,
        irregular: Vec<String>,
    ) -> Suite {
        let mut changelog = None;
        let files = files
            .into_iter()
            .filter_map(|(rel, bytes)| {
                if rel == CHANGELOG {
                    changelog = Some(SourceFile::from_bytes(&rel, bytes));
                    return None;
                }
                is_suite_file(&rel).then(|| (rel.clone(), SourceFile::from_bytes(&rel, bytes)))
            })
            .collect();
        Suite { root: root.into(), files, irregular, changelog, policy: OnceLock::new() }
    }

    /// The suite's [`CHANGELOG`], when it has one (as read: it may be unreadable or not UTF-8).
    pub fn changelog(&self) -> Option<&SourceFile> {
        self.changelog.as_ref()
    }

    /// Is this a released copy: a directory that holds nothing but what a release asset holds
    /// ([`RELEASED_TOP_FILES`], [`SUITE_DIRS`]), as `fetch` unpacks one and `sync` vendors one,
    /// of a version that can have been released (no pre-release, none later than the version
    /// this bqsuite records)? Such a copy has no [`CHANGELOG`] by design (the asset never ships
    /// it), so `validate` does not ask for one there. A source repository holds more (its
    /// README, its sources), and a tree laid out like the asset at a version still being made
    /// (red team M5 of stop 44) is not one, so a missing CHANGELOG is reported there.
    pub fn is_released_copy(&self) -> bool {
        let released_version = self.version().and_then(|v| semver::Version::parse(v).ok()).is_some_and(|v| {
            let recorded = &pins::recorded().suite;
            v.pre.is_empty() && (v.major, v.minor, v.patch) <= (recorded.major, recorded.minor, recorded.patch)
        });
        let released = |name: &str| RELEASED_TOP_FILES.contains(&name) || SUITE_DIRS.contains(&name);
        released_version
            && std::fs::read_dir(&self.root).is_ok_and(|entries| {
                entries.into_iter().all(|e| e.is_ok_and(|e| e.file_name().to_str().is_some_and(released)))
            })
    }

    /// Every loaded file, by suite-relative path.
    pub fn files(&self) -> impl Iterator<Item = &SourceFile> {
        self.files.values()
    }

    /// One loaded file.
    pub fn file(&self, rel: &str) -> Option<&SourceFile> {
        self.files.get(rel)
    }

    /// The parsed JSON of a file.
    pub fn json(&self, rel: &str) -> Option<&Value> {
        self.file(rel).and_then(SourceFile::json)
    }

    /// The manifest as a JSON object, when it parses as one.
    pub fn manifest(&self) -> Option<&Map<String, Value>> {
        self.json(MANIFEST).and_then(Value::as_object)
    }

    /// The manifest as a JSON object, or why there is none, naming the file as the user sees it
    /// and saying how to learn more: for the commands that cannot go on without it (`run`,
    /// `ids`, `results check`, `docs`); `validate` reports the same as findings.
    pub fn manifest_or_why(&self) -> Result<&Map<String, Value>, String> {
        if let Some(manifest) = self.manifest() {
            return Ok(manifest);
        }
        let shown = self.display_path(MANIFEST);
        let why = match self.file(MANIFEST) {
            None => {
                return Err(format!(
                    "{shown} is missing: {} is not a suite, which holds {VERSION_FILE}, {MANIFEST}, schema/ and \
                     fixtures/; name the directory that holds them with --suite",
                    self.root.display()
                ));
            }
            Some(file) => file.why_no_json().unwrap_or_else(|| "is not a JSON object".to_owned()),
        };
        Err(format!("{shown} {why}; {} lists every problem of the suite", self.validate_command()))
    }

    /// The command that validates this suite, as a message suggests it: `bqsuite validate`,
    /// with [`Suite::suite_option`].
    pub fn validate_command(&self) -> String {
        format!("`bqsuite validate{}`", self.suite_option())
    }

    /// ` --suite DIR` (shell-quoted) for a command a message suggests about this suite, or
    /// nothing when the suite is the working directory.
    pub fn suite_option(&self) -> String {
        if self.root == Path::new(".") || self.root.as_os_str().is_empty() {
            String::new()
        } else {
            format!(" --suite {}", crate::diag::path_word(&self.root.display().to_string()))
        }
    }

    /// `CONFORMANCE_VERSION`, trimmed of surrounding whitespace.
    pub fn version(&self) -> Option<&str> {
        self.file(VERSION_FILE).and_then(SourceFile::text).map(str::trim)
    }

    /// The scope the `sections` map gives `name`.
    pub fn scope_of(&self, name: &str) -> Option<Scope> {
        self.manifest()?.get("sections")?.get(name)?.as_str().and_then(Scope::parse)
    }

    /// Every section block of the manifest, in manifest order.
    pub fn sections(&self) -> Vec<Section<'_>> {
        let Some(m) = self.manifest() else {
            return Vec::new();
        };
        m.iter()
            .filter(|(k, _)| !METADATA_KEYS.contains(&k.as_str()))
            .map(|(name, block)| Section { name, block, scope: self.scope_of(name) })
            .collect()
    }

    /// One section by name.
    pub fn section(&self, name: &str) -> Option<Section<'_>> {
        self.sections().into_iter().find(|s| s.name == name)
    }

    /// The well-formed entries of `exceptions` (see [`Suite::exceptions_read`] for the others).
    pub fn exceptions(&self) -> Vec<Exception> {
        self.exceptions_read().exceptions
    }

    /// `exceptions` as read by the one reader, with every problem it has (validate reports them
    /// as BQ204 / BQ205; results check refuses a suite that has any).
    pub fn exceptions_read(&self) -> exceptions::Loaded {
        exceptions::read(self)
    }

    /// The SDK families a results file's family can be derived as: the producer schema's
    /// `meta.lang` enum, then every family an `exceptions` entry names that the enum lacks.
    pub fn families(&self) -> Vec<String> {
        let mut families: Vec<String> = self
            .json(ENVELOPE_SCHEMA)
            .and_then(|s| pointer::get(s, LANG_ENUM))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|f| f.as_str().map(str::to_owned))
            .collect();
        for e in self.exceptions() {
            if !families.iter().any(|f| e.is_for(f)) {
                families.push(e.family);
            }
        }
        families
    }

    /// The skip policy (manifest.json → `skip_policy`), read once; empty when the manifest has
    /// none or does not parse.
    pub fn skip_policy(&self) -> &skip_policy::SkipPolicy {
        &self.skip_policy_read().policy
    }

    /// The skip policy with the problems its reading found (for validate).
    pub fn skip_policy_read(&self) -> &skip_policy::Loaded {
        self.policy.get_or_init(|| skip_policy::SkipPolicy::read(self))
    }

    /// Line:column of `pointer` in file `rel`, when both are known.
    pub fn locate(&self, rel: &str, pointer: &str) -> Option<Span> {
        span::locate(self.file(rel)?.text()?, pointer)
    }

    /// How to show `rel` to the user: joined to the root unless the root is `.`.
    pub fn display_path(&self, rel: &str) -> String {
        if self.root == Path::new(".") || self.root.as_os_str().is_empty() {
            rel.to_owned()
        } else {
            format!("{}/{rel}", self.root.display().to_string().trim_end_matches('/'))
        }
    }
}

/// Find the suite a command runs on by default: the nearest directory, from `start` upwards,
/// holding both `manifest.json` and `CONFORMANCE_VERSION`.
pub fn discover(start: &Path) -> Option<PathBuf> {
    // Present, not "a regular file": a manifest that is a FIFO or a link to a device is found,
    // and then reported, instead of being passed over for a suite further up.
    let present = |p: PathBuf| p.symlink_metadata().is_ok_and(|m| !m.is_dir());
    start.ancestors().find(|d| present(d.join(MANIFEST)) && present(d.join(VERSION_FILE))).map(Path::to_path_buf)
}
