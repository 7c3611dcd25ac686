//! `bqsuite diff`: what changed between two versions of the suite, by case id, and the SemVer
//! bump those changes need; the release gate ([`gate`]) is built on it.
//!
//! Each side is a loaded [`Suite`] ([`source`]: a directory, a release asset, a released
//! version, or a git revision; all load through the one loader). Sections, blocks and cases are
//! matched by name and by the one case-id rule ([`crate::suite::case_ids`]), never by position
//! in the file. A *block* is a sub-key of a section object: one with its own `cases` array (its
//! case ids are `<block>/…`), or a single case named by the sub-key.
//!
//! **Classes.** Every change has exactly one class; the rules, kept in [`manifest`] and
//! [`files`]:
//!
//! - *editorial*: prose only. Prose is a case's, a block's or a section's own `description`,
//!   `reason`, `note`, `notes`, `comment`, `$comment` or `title` member (deeper members of those
//!   names are data, such as `expect.dead_letter.reason`), the manifest's `description`, a
//!   member of those names at any depth of `skip_policy`, a schema's annotation keywords
//!   (`title`, `description`, `$comment`, `examples`), the `adr` or a prose member of an
//!   `exceptions` entry, and a file whose bytes changed but whose JSON did not (formatting;
//!   not a fixture a case reads whose strings are spelled otherwise, [`files`]: a correction).
//!   `LICENSE` and files under `schema/` that are not `*.schema.json` (the results example) are
//!   documentation: any change of theirs (added, removed, modified) is editorial.
//! - *additive*: a section, block, case, fixture or schema added; a new member of an existing
//!   case that no case of its block (or of the section's own `cases`) carries on the old side,
//!   or of a block's shared fields (a new optional case field: a runner ignores fields it does
//!   not know); an `exceptions` entry removed (nothing that passed before fails); a
//!   `skip_policy` added, or an element added to one of its arrays (a rule, a case it covers;
//!   not a case an `all_or_none` rule covers, which can take all its skips away: breaking),
//!   as long as no case of the old side may now be skipped where it could not be
//!   ([`manifest::classify_widened_skips`]: that is a correction, named as `skip_policy`).
//! - *correction*: an expectation change: any other change of a value inside an existing case
//!   or inside a block's or section's shared fields (what a case feeds the SDK is part of what
//!   it expects), a member of an existing case removed (an expectation field replaced by
//!   another, as 1.6.0 did to `backoff.retry_republish`), a member added to an existing case
//!   that other cases of its block carry on the old side (its runners evaluate it whenever a
//!   case has it, so the case now tests something else; input or expectation alike, since the
//!   data does not say which, and the section registry is this tool's version's, not the
//!   compared versions'), a changed fixture that only cases with `valid: false` read (a retype
//!   in it included; also through a reference pointed at another file,
//!   [`files::classify_repointed`]), a
//!   fixture a case reads respelled, and a skip policy grown over cases of the old side (a case
//!   no longer asked of every SDK).
//! - *breaking*: a section, block, case, fixture or schema removed; a section re-scoped; a
//!   top-level member of a block's or section's shared fields removed; any value retyped in
//!   the manifest, a schema, or a fixture a case without `valid: false` reads (decisions R20.3:
//!   `1` → `1.0` and `"1"` → `1` are retypes, `null` is a value of every type); a fixture changed that
//!   any case without `valid: false` reads, in place or through a reference pointed at another
//!   file whose JSON differs; a `*.schema.json` constraint changed; an
//!   `exceptions` entry added or re-targeted (an SDK listing that binding stops being
//!   Compatible); a `skip_policy` member or element other than its prose removed or changed,
//!   or a member added inside it (a rule gaining
//!   `families` or `all_or_none` allows fewer skips); `schema_version`
//!   changed; a key repeated in manifest.json, or a case id repeated in a block, added, removed
//!   or changed ([`repeats`]: a parser that keeps the first value reads another case).
//!
//! Values compare as the JSON the texts write ([`exact`]): numbers by their exact mathematical
//! value and literal type, never through an `f64` (`1.0` = `1e0`, `1` ≠ `1.0`,
//! `9007199254740993.0` ≠ `9007199254740992.0`). Wherever `diff` names a number's JSON type
//! (a retype, in the manifest, a fixture or a schema, inside a multiset too), the literal
//! decides: `-0` is an integer literal, though serde_json reads it as the float `-0.0`.
//!
//! `conformance_version` (the manifest's and the results example's) and `CONFORMANCE_VERSION`
//! are the two sides' versions, not changes; `sync-targets.json` is not suite data and is not
//! compared.
//!
//! **The SemVer rule** ([`Bump::needed`]): no change needs no bump; PATCH = editorial only;
//! MINOR = additive, plus corrections each of which the new version's CHANGELOG entry names
//! ([`changelog`]: an item of the entry that states a correction as a word, not negated, cites
//! `ADR-NNNN` and names the case id as `` `<section>.<case id>` `` or its block as
//! `` `<section>.<block>` ``, `/` for the `.` too); MAJOR = anything breaking, or a correction the entry does not
//! name.

/// The CHANGELOG reader lives with the suite (validate reads the version's entry too).
pub use crate::suite::changelog;
/// Exact JSON lives with the suite (the recorded content of a case reads it too).
pub use crate::suite::exact;
pub mod files;
pub mod gate;
pub mod git;
pub mod json;
pub mod manifest;
pub mod render;
pub mod repeats;
pub mod source;

use std::collections::BTreeSet;

use serde::Serialize;

pub use json::{Edit, Op};
pub use source::{Loaded, Source};

use crate::suite::{MANIFEST, Scope, Suite};

/// The top-level manifest key of the machine-readable skip policy (suite metadata, not a
/// section; compared generically, whatever its inner shape).
pub const SKIP_POLICY: &str = "skip_policy";

/// How much a change matters to an SDK pinned to the old version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    Editorial,
    Additive,
    Correction,
    Breaking,
}

impl Class {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Editorial => "editorial",
            Class::Additive => "additive",
            Class::Correction => "correction",
            Class::Breaking => "breaking",
        }
    }
}

/// A SemVer bump.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bump {
    None,
    Patch,
    Minor,
    Major,
}

impl Bump {
    /// `none`, `PATCH`, `MINOR`, `MAJOR`.
    pub fn as_str(self) -> &'static str {
        match self {
            Bump::None => "none",
            Bump::Patch => "PATCH",
            Bump::Minor => "MINOR",
            Bump::Major => "MAJOR",
        }
    }

    /// The bump from `old` to `new` by their major.minor.patch, or `None` when `new` is lower
    /// in SemVer precedence (a pre-release is below its release: `1.6.0` → `1.6.0-pre` is
    /// lower; build metadata is ignored).
    pub fn between(old: &semver::Version, new: &semver::Version) -> Option<Bump> {
        let (a, b) = ((old.major, old.minor, old.patch), (new.major, new.minor, new.patch));
        Some(match () {
            () if new.cmp_precedence(old).is_lt() => return None,
            () if b.0 > a.0 => Bump::Major,
            () if b.1 > a.1 => Bump::Minor,
            () if b.2 > a.2 => Bump::Patch,
            () => Bump::None,
        })
    }

    /// The smallest version that is this bump over `old` (`old` itself for none; a pre-release
    /// and build metadata are dropped).
    pub fn apply(self, old: &semver::Version) -> semver::Version {
        let (major, minor, patch) = (old.major, old.minor, old.patch);
        match self {
            Bump::None => old.clone(),
            Bump::Patch => semver::Version::new(major, minor, patch + 1),
            Bump::Minor => semver::Version::new(major, minor + 1, 0),
            Bump::Major => semver::Version::new(major + 1, 0, 0),
        }
    }

    /// The smallest bump `changes` need under the SemVer rule of the module doc.
    pub fn needed(changes: &[Change]) -> Bump {
        changes.iter().map(Change::needs).max().unwrap_or(Bump::None)
    }
}

/// How the new side's version stands to the old side's, in SemVer precedence (build metadata
/// ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum VersionOrder {
    Higher,
    /// Equal precedence (`1.6.0` and `1.6.0+build.1`).
    Same,
    Lower,
    /// Either side's version is missing or not SemVer (`v1.7.0`, `1.7`, `01.7.0`, empty).
    NotSemver,
}

/// What changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    SchemaVersionChanged,
    DescriptionChanged,
    ExceptionAdded,
    ExceptionRemoved,
    ExceptionChanged,
    SkipPolicyChanged,
    SectionAdded,
    SectionRemoved,
    SectionRescoped,
    /// A section's or block's shared (non-case) fields.
    FieldsChanged,
    BlockAdded,
    BlockRemoved,
    CaseAdded,
    CaseRemoved,
    CaseChanged,
    /// A new member on existing cases (a new optional case field).
    FieldAdded,
    FixtureAdded,
    FixtureRemoved,
    FixtureChanged,
    SchemaAdded,
    SchemaRemoved,
    SchemaChanged,
    FileAdded,
    FileRemoved,
    FileChanged,
}

impl Kind {
    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::SchemaVersionChanged => "schema-version-changed",
            Kind::DescriptionChanged => "description-changed",
            Kind::ExceptionAdded => "exception-added",
            Kind::ExceptionRemoved => "exception-removed",
            Kind::ExceptionChanged => "exception-changed",
            Kind::SkipPolicyChanged => "skip-policy-changed",
            Kind::SectionAdded => "section-added",
            Kind::SectionRemoved => "section-removed",
            Kind::SectionRescoped => "section-rescoped",
            Kind::FieldsChanged => "fields-changed",
            Kind::BlockAdded => "block-added",
            Kind::BlockRemoved => "block-removed",
            Kind::CaseAdded => "case-added",
            Kind::CaseRemoved => "case-removed",
            Kind::CaseChanged => "case-changed",
            Kind::FieldAdded => "field-added",
            Kind::FixtureAdded => "fixture-added",
            Kind::FixtureRemoved => "fixture-removed",
            Kind::FixtureChanged => "fixture-changed",
            Kind::SchemaAdded => "schema-added",
            Kind::SchemaRemoved => "schema-removed",
            Kind::SchemaChanged => "schema-changed",
            Kind::FileAdded => "file-added",
            Kind::FileRemoved => "file-removed",
            Kind::FileChanged => "file-changed",
        }
    }
}

pub use changelog::Naming;

/// One change between the two sides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub kind: Kind,
    pub class: Class,
    /// The section's scope as the `sections` map spells it (the new side's, else the old's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// The block (sub-key of the section) the change lies in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    /// The case member a [`Kind::FieldAdded`] change adds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The suite file (fixtures, schemas, other files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The case ids concerned: of the section for section-bound changes; `<section>.<id>` for
    /// the cases that read a fixture.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ids: Vec<String>,
    /// The scopes of the sections whose cases read a changed fixture; for a re-scoped section,
    /// its old and its new scope.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// Where it is in manifest.json (of the new side, or the old one for a removal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// The JSON edits that are not prose.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<Edit>,
    /// The prose edits, set apart.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub prose: Vec<Edit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The fixture references among `edits` that now name another file, each with the old
    /// file's JSON compared with the new one's ([`files::classify_repointed`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixtures: Vec<Repointed>,
    /// For a correction: the CHANGELOG item naming it, when one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub named: Option<Naming>,
}

/// A fixture reference (`file`, `envelope_file`, `fixture`) pointed at another file: what the
/// cases that follow it now read, compared with what they read before.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Repointed {
    /// The reference's pointer, as among the change's edits.
    pub pointer: String,
    /// The file it named, on the old side.
    pub old_file: String,
    /// The file it names, on the new side.
    pub new_file: String,
    /// The class the difference between the two files has, as that of a fixture changed in
    /// place with the same readers.
    pub class: Class,
    /// The old file's JSON against the new one's.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<Edit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Change {
    /// A change of `kind` and `class` with nothing else filled in.
    pub fn new(kind: Kind, class: Class) -> Self {
        Self {
            kind,
            class,
            scope: None,
            section: None,
            block: None,
            field: None,
            file: None,
            ids: Vec::new(),
            scopes: Vec::new(),
            pointer: None,
            edits: Vec::new(),
            prose: Vec::new(),
            note: None,
            fixtures: Vec::new(),
            named: None,
        }
    }

    /// The bump this change needs on its own.
    pub fn needs(&self) -> Bump {
        match self.class {
            Class::Editorial => Bump::Patch,
            Class::Additive => Bump::Minor,
            Class::Correction if self.named.is_some() => Bump::Minor,
            Class::Correction | Class::Breaking => Bump::Major,
        }
    }

    /// How a CHANGELOG item names this change: `<section>.<case id>` for a case,
    /// `<section>.<block>` or `<section>` for shared fields, the path for a file.
    pub fn reference(&self) -> String {
        match (&self.file, &self.section) {
            (Some(file), _) => file.clone(),
            (None, Some(section)) => match (self.kind, self.ids.first(), &self.block) {
                (Kind::CaseChanged | Kind::CaseAdded, Some(id), _) => format!("{section}.{id}"),
                (_, _, Some(block)) => format!("{section}.{block}"),
                _ => section.clone(),
            },
            (None, None) if self.kind == Kind::SkipPolicyChanged => SKIP_POLICY.to_owned(),
            (None, None) => self.kind.as_str().to_owned(),
        }
    }

    /// Does the change belong to an SDK carrying `scopes`? Section-bound changes by their
    /// section's scope (a re-scope by its old scope too), fixture changes by their readers'
    /// scopes; suite-wide ones always.
    pub fn in_scopes(&self, scopes: &BTreeSet<String>) -> bool {
        let any = self.scopes.iter().any(|s| scopes.contains(s));
        match &self.scope {
            Some(s) => scopes.contains(s) || any,
            None => self.scopes.is_empty() || any,
        }
    }
}

/// One side, as the report names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SideInfo {
    /// Where it came from (`git:v1.5.0`, a directory, an asset, `1.5.0 (release)`).
    pub source: String,
    /// Its `CONFORMANCE_VERSION`.
    pub version: Option<String>,
}

/// Which CHANGELOG the corrections were checked against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangelogInfo {
    /// Where it was read (`None`: the new side has none and none was given).
    pub source: Option<String>,
    /// The heading of the entry for the new version, when there is one.
    pub entry: Option<String>,
}

/// The comparison of two suites.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    pub old: SideInfo,
    pub new: SideInfo,
    pub changelog: ChangelogInfo,
    pub changes: Vec<Change>,
    /// The CHANGELOG entry for the new version, when there is one.
    #[serde(skip)]
    pub entry: Option<changelog::Entry>,
}

impl Diff {
    /// Compare two loaded sides. The corrections are checked against `changelog` (path shown,
    /// text) when given, else against the new side's own CHANGELOG.md. `Err` when a side's
    /// manifest is missing or does not parse as a JSON object.
    pub fn new(old: &Loaded, new: &Loaded, changelog: Option<(String, String)>) -> Result<Diff, String> {
        // A revision's manifest that is not there: say where it was looked for.
        for side in [old, new] {
            if let (Err(e), Some(at)) = (manifest_of(&side.suite, &side.label), &side.read_at) {
                return Err(format!("{e} ({at})"));
            }
        }
        let changelog = changelog.or_else(|| new.changelog.clone());
        Diff::between((&old.suite, &old.label), (&new.suite, &new.label), changelog)
    }

    /// [`Diff::new`] over suites and their labels, with the CHANGELOG (path shown, text) to check
    /// corrections against.
    pub fn between(
        (old, old_label): (&Suite, &str),
        (new, new_label): (&Suite, &str),
        changelog: Option<(String, String)>,
    ) -> Result<Diff, String> {
        let mut changes = compare(old, new, old_label, new_label)?;
        let version = new.version().unwrap_or_default().to_owned();
        let entry = changelog.as_ref().and_then(|(_, text)| changelog::entry(text, &version));
        for c in changes.iter_mut().filter(|c| c.class == Class::Correction) {
            c.named = entry.as_ref().and_then(|e| e.naming(&c.reference()));
        }
        Ok(Diff {
            old: SideInfo { source: old_label.to_owned(), version: old.version().map(str::to_owned) },
            new: SideInfo { source: new_label.to_owned(), version: new.version().map(str::to_owned) },
            changelog: ChangelogInfo {
                source: changelog.as_ref().map(|(p, _)| p.clone()),
                entry: entry.as_ref().map(|e| e.heading.clone()),
            },
            changes,
            entry,
        })
    }

    /// The smallest bump the changes need.
    pub fn needed(&self) -> Bump {
        Bump::needed(&self.changes)
    }

    /// The smallest bump the changes would need if the CHANGELOG entry named every correction
    /// with its ADR (MINOR for each): what a diff with no CHANGELOG to check can promise at best.
    pub fn needed_if_named(&self) -> Bump {
        let named = |c: &Change| if c.class == Class::Correction { Bump::Minor } else { c.needs() };
        self.changes.iter().map(named).max().unwrap_or(Bump::None)
    }

    /// Is the bump needed open, because corrections could not be checked against any CHANGELOG
    /// (a release asset carries none and none was given), and naming them would need less?
    pub fn needed_is_open(&self) -> bool {
        self.changelog.source.is_none() && self.needed_if_named() < self.needed()
    }

    /// The bump from the old version to the new one (`None` when either is not SemVer, or the
    /// new one is lower: [`Diff::version_order`] tells which).
    pub fn actual(&self) -> Option<Bump> {
        let (old, new) = self.versions()?;
        Bump::between(&old, &new)
    }

    /// How the new version stands to the old one.
    pub fn version_order(&self) -> VersionOrder {
        match self.versions() {
            None => VersionOrder::NotSemver,
            Some((old, new)) => match new.cmp_precedence(&old) {
                std::cmp::Ordering::Less => VersionOrder::Lower,
                std::cmp::Ordering::Equal => VersionOrder::Same,
                std::cmp::Ordering::Greater => VersionOrder::Higher,
            },
        }
    }

    /// Both sides' versions, when both are SemVer.
    fn versions(&self) -> Option<(semver::Version, semver::Version)> {
        let parse = |v: &Option<String>| v.as_deref().and_then(|v| semver::Version::parse(v).ok());
        Some((parse(&self.old.version)?, parse(&self.new.version)?))
    }

    /// Corrections the CHANGELOG entry does not name.
    pub fn unnamed_corrections(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| c.class == Class::Correction && c.named.is_none())
    }

    /// Only the changes an SDK carrying `scopes` must look at (the bump stays the whole
    /// suite's: see [`Diff::needed`] on the unfiltered diff).
    pub fn only(&self, scopes: &BTreeSet<String>) -> Vec<&Change> {
        self.changes.iter().filter(|c| c.in_scopes(scopes)).collect()
    }
}

/// The scopes an SDK carrying `bindings` must implement: `core` and each binding.
pub fn scopes_for(bindings: &[Scope], scopes: &[Scope]) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = scopes.iter().map(|s| s.as_str().to_owned()).collect();
    if !bindings.is_empty() {
        out.insert(Scope::Core.as_str().to_owned());
        out.extend(bindings.iter().map(|s| s.as_str().to_owned()));
    }
    out
}

/// The manifest of side `s` (named `label`), or why it has none.
fn manifest_of<'s>(s: &'s Suite, label: &str) -> Result<&'s serde_json::Map<String, serde_json::Value>, String> {
    s.manifest().ok_or_else(|| match s.file(MANIFEST).and_then(|f| f.json_error()) {
        // serde's message says where.
        Some(e) => format!("{label}: {MANIFEST} does not parse: {}", e.message),
        None if s.file(MANIFEST).is_none() => format!("{label}: {MANIFEST} is missing"),
        None => format!("{label}: {MANIFEST} is not a JSON object"),
    })
}

/// Every change from `old` to `new`: the manifest's, then the files'.
pub fn compare(old: &Suite, new: &Suite, old_label: &str, new_label: &str) -> Result<Vec<Change>, String> {
    let (a, b) = (manifest_of(old, old_label)?, manifest_of(new, new_label)?);
    // Numbers by their literals, read from the texts the manifests were loaded from.
    let numbers = |s: &Suite| s.file(MANIFEST).and_then(|f| exact::Numbers::of(f.bytes()));
    let (old_numbers, new_numbers) = (numbers(old), numbers(new));
    let texts = manifest::Texts { old: old_numbers.as_ref(), new: new_numbers.as_ref() };
    let mut changes = manifest::compare_texts(a, b, texts);
    manifest::classify_widened_skips(&mut changes, old, new);
    repeats::classify(&mut changes, old, new);
    files::classify_repointed(&mut changes, old, new);
    let manifest_changed = !changes.is_empty();
    changes.extend(files::compare(old, new, manifest_changed));
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bumps_between_versions() {
        let v = |s: &str| semver::Version::parse(s).unwrap();
        assert_eq!(Bump::between(&v("1.5.0"), &v("1.6.0")), Some(Bump::Minor));
        assert_eq!(Bump::between(&v("1.5.0"), &v("1.7.0-pre")), Some(Bump::Minor));
        assert_eq!(Bump::between(&v("1.5.3"), &v("2.0.0")), Some(Bump::Major));
        assert_eq!(Bump::between(&v("1.5.0"), &v("1.5.1")), Some(Bump::Patch));
        assert_eq!(Bump::between(&v("1.6.0"), &v("1.6.0")), Some(Bump::None));
        assert_eq!(Bump::between(&v("1.6.0"), &v("1.5.9")), None);
        assert_eq!(Bump::between(&v("1.6.0"), &v("1.6.0-pre")), None, "a pre-release is below its release");
        assert_eq!(Bump::between(&v("1.6.0-rc.2"), &v("1.6.0-rc.1")), None);
        assert_eq!(Bump::between(&v("1.6.0-rc.1"), &v("1.6.0")), Some(Bump::None));
        assert_eq!(Bump::between(&v("1.6.0+b.2"), &v("1.6.0+b.1")), Some(Bump::None), "build metadata is ignored");
    }

    #[test]
    fn the_semver_rule() {
        let c = |class| Change::new(Kind::CaseChanged, class);
        assert_eq!(Bump::needed(&[]), Bump::None);
        assert_eq!(Bump::needed(&[c(Class::Editorial)]), Bump::Patch);
        assert_eq!(Bump::needed(&[c(Class::Editorial), c(Class::Additive)]), Bump::Minor);
        let mut named = c(Class::Correction);
        named.named = Some(Naming { line: 3, adrs: vec!["ADR-0034".into()] });
        assert_eq!(Bump::needed(&[c(Class::Additive), named.clone()]), Bump::Minor);
        assert_eq!(Bump::needed(&[named, c(Class::Correction)]), Bump::Major);
        assert_eq!(Bump::needed(&[c(Class::Breaking)]), Bump::Major);
    }

    #[test]
    fn references_name_cases_blocks_sections_and_files() {
        let mut c = Change::new(Kind::CaseChanged, Class::Correction);
        c.section = Some("backoff".into());
        c.block = Some("retry_republish".into());
        c.ids = vec!["retry_republish/first-failure-first-tier".into()];
        assert_eq!(c.reference(), "backoff.retry_republish/first-failure-first-tier");
        c.kind = Kind::FieldsChanged;
        assert_eq!(c.reference(), "backoff.retry_republish");
        c.block = None;
        assert_eq!(c.reference(), "backoff");
        let mut f = Change::new(Kind::FixtureChanged, Class::Correction);
        f.file = Some("fixtures/x.json".into());
        assert_eq!(f.reference(), "fixtures/x.json");
    }

    /// `diff --bindings`: a change with no scope of its own belongs to every SDK when nothing
    /// scopes it (a schema, the skip policy), else to the SDKs carrying one of its readers' scopes
    /// (a fixture); a re-scoped section's change to the SDKs of either scope.
    #[test]
    fn a_change_is_in_the_scopes_of_what_reads_it() {
        let set = |s: &[&str]| s.iter().map(|s| (*s).to_owned()).collect::<BTreeSet<String>>();
        let (sqs, kafka) = (set(&["core", "sqs"]), set(&["core", "kafka"]));
        let suite_wide = Change::new(Kind::SchemaChanged, Class::Correction);
        assert!(suite_wide.in_scopes(&sqs) && suite_wide.in_scopes(&kafka));
        let mut fixture = Change::new(Kind::FixtureChanged, Class::Correction);
        fixture.scopes = vec!["sqs".into()];
        assert!(fixture.in_scopes(&sqs) && !fixture.in_scopes(&kafka));
        let mut rescoped = Change::new(Kind::FieldsChanged, Class::Correction);
        rescoped.scope = Some("kafka".into());
        rescoped.scopes = vec!["sqs".into()];
        assert!(rescoped.in_scopes(&sqs) && rescoped.in_scopes(&kafka) && !rescoped.in_scopes(&set(&["asb"])));
    }
}
