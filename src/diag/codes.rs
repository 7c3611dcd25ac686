//! The finding codes. One line per code; a code is never reused or renumbered once shipped.
//!
//! Ranges: BQ0xx files, BQ1xx manifest top level, BQ2xx sections/scopes/exceptions, BQ3xx cases
//! and fixtures, BQ4xx schemas, BQ5xx compatibility with the real SDK runners (decisions R20),
//! BQ6xx results files, BQ7xx sync targets, BQ8xx section-specific cross-checks.

use serde::{Serialize, Serializer};

/// A stable finding code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Code {
    /// `BQ` + three digits.
    pub id: &'static str,
    /// Kebab-case name.
    pub name: &'static str,
    /// One line saying what the code means.
    pub summary: &'static str,
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id)
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.id, self.name)
    }
}

macro_rules! codes {
    ($($konst:ident = $id:literal $name:literal $summary:literal;)*) => {
        impl Code {
            $(#[doc = $summary] pub const $konst: Code = Code { id: $id, name: $name, summary: $summary };)*
        }
        /// Every code, in numeric order.
        pub const ALL_CODES: &[Code] = &[$(Code::$konst),*];
    };
}

codes! {
    INVALID_JSON = "BQ001" "invalid-json" "A JSON file of the suite does not parse.";
    NOT_UTF8 = "BQ002" "not-utf8" "A suite file is not valid UTF-8.";
    MISSING_FILE = "BQ003" "missing-file" "A file every suite must have is missing.";
    UNREADABLE_FILE = "BQ004" "unreadable-file" "A suite file exists but cannot be read.";
    IRREGULAR_FILE = "BQ005" "irregular-file" "schema/ or fixtures/ holds something that is neither a regular file nor a directory (a symlink, a FIFO, a device).";
    STRAY_FILE = "BQ006" "stray-file" "schema/ or fixtures/ holds a file that is not a .json file (an editor backup, .DS_Store, notes): the release would ship it.";

    SCHEMA_VERSION = "BQ101" "schema-version" "manifest.schema_version is not the integer 1.";
    VERSION_NOT_SEMVER = "BQ102" "version-not-semver" "CONFORMANCE_VERSION is not a SemVer version.";
    VERSION_MISMATCH = "BQ103" "version-mismatch" "CONFORMANCE_VERSION differs from manifest.conformance_version.";
    MANIFEST_SHAPE = "BQ104" "manifest-shape" "A top-level manifest key is missing or has the wrong type.";

    SECTION_WITHOUT_SCOPE = "BQ201" "section-without-scope" "A manifest block has no entry in the sections map.";
    SCOPE_WITHOUT_SECTION = "BQ202" "scope-without-section" "The sections map names a block the manifest does not have.";
    UNKNOWN_SCOPE = "BQ203" "unknown-scope" "A scope is not one of core, redis, amqp, sqs, asb, pulsar, kafka, artemis, otel.";
    BAD_EXCEPTION = "BQ204" "bad-exception" "An exceptions entry is not {family, binding, adr} with an ADR-NNNN reference.";
    EXCEPTION_UNKNOWN_BINDING = "BQ205" "exception-unknown-binding" "An exceptions entry names a binding that is not a scope of the suite.";
    DUPLICATE_CASE_ID = "BQ206" "duplicate-case-id" "Two cases of one section have the same case id.";
    SECTION_SHAPE = "BQ207" "section-shape" "A section is neither an object nor (for cases) an array.";

    MISSING_FIXTURE = "BQ301" "missing-fixture" "A case references a file that does not exist.";
    VALID_WITHOUT_EXPECT = "BQ302" "valid-without-expect" "A valid case has no expect block.";
    INVALID_WITHOUT_REASON = "BQ303" "invalid-without-reason" "An invalid case has no reason.";
    ORPHAN_FIXTURE = "BQ304" "orphan-fixture" "A fixture file is referenced by no case.";
    CASE_SHAPE = "BQ305" "case-shape" "A case lacks a field its section requires, or a field has the wrong type.";

    RESULTS_EXAMPLE_INVALID = "BQ401" "results-example-invalid" "schema/results.example.json does not validate against schema/results.schema.json.";
    INVALID_SCHEMA = "BQ402" "invalid-schema" "A schema is not a valid schema of its draft.";
    SCHEMA_DRAFT = "BQ403" "schema-draft" "A schema does not declare the draft the suite requires.";

    COMPAT_CASE_FIELDS = "BQ501" "compat-case-fields" "A top-level case lacks a field the real SDK runners read (R20.5).";
    COMPAT_FIXTURE_OBJECT = "BQ502" "compat-fixture-object" "A top-level case fixture is not a non-empty JSON object (R20.5).";
    COMPAT_BOM = "BQ503" "compat-bom" "A file starts with a byte-order mark (R20.5, R20.7).";
    COMPAT_PATH = "BQ504" "compat-path" "A file reference is not a plain relative path (R20.5).";
    COMPAT_DEPTH = "BQ505" "compat-depth" "The manifest nests deeper than PHP json_decode allows (R20.7).";
    COMPAT_LONE_SURROGATE = "BQ506" "compat-lone-surrogate" "A lone surrogate escape that strict JSON parsers refuse (R20.7).";
    COMPAT_CASE_NAME = "BQ507" "compat-case-name" "A case name contains '/' or is not a non-empty string (R20.10).";
    COMPAT_KEY_CASE = "BQ508" "compat-key-case" "A key differs from a mapped key only in letter case (R20.9).";
    COMPAT_TOO_FEW_CASES = "BQ509" "compat-too-few-cases" "The top-level cases array has fewer than six cases (R20.10).";
    COMPAT_PER_MESSAGE_FIELDS = "BQ510" "compat-per-message-fields" "A valid fixture lacks a non-empty trace_id, meta.id or non-zero meta.created_at (R20.5).";

    REDIS_UNKNOWN_LAYOUT = "BQ860" "redis-unknown-layout" "A redis_layout case names a layout other than zset or processing.";
    REDIS_UNKNOWN_OP = "BQ861" "redis-unknown-op" "A redis_layout step has no op, or one the case language does not have.";
    REDIS_STEP_WITHOUT_NOW = "BQ862" "redis-step-without-now" "A redis_layout step has no finite numeric now.";
    REDIS_NOT_IN_LAYOUT = "BQ863" "redis-not-in-layout" "A redis_layout case uses an op, key or field its layout does not have.";
    REDIS_UNKNOWN_BODY = "BQ864" "redis-unknown-body" "A redis_layout case names a body its bodies map does not define.";
    REDIS_UNKNOWN_RESERVATION = "BQ865" "redis-unknown-reservation" "A redis_layout case uses a reservation or token that no earlier step or state binds.";
    REDIS_EXPECT_SHAPE = "BQ866" "redis-expect-shape" "A redis_layout expectation or state entry has the wrong shape, or is not an expectation of its step.";
    REDIS_BAD_RETRY_AFTER = "BQ867" "redis-bad-retry-after" "A redis_layout retry_after is neither a non-negative integer nor null.";
    REDIS_CASE_SHAPE = "BQ868" "redis-case-shape" "A redis_layout case or step lacks a field or has one of the wrong type.";
    REDIS_DELAY_CASE_SHAPE = "BQ869" "redis-delay-case-shape" "A redis_delay case lacks a numeric now or delay, or an integer expected_score.";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_well_formed_and_sorted() {
        let mut ids: Vec<_> = ALL_CODES.iter().map(|c| c.id).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        assert_eq!(ids, sorted, "keep ALL_CODES in numeric order");
        ids.dedup();
        assert_eq!(ids.len(), ALL_CODES.len(), "duplicate code id");
        let mut names: Vec<_> = ALL_CODES.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL_CODES.len(), "duplicate code name");
        for c in ALL_CODES {
            assert!(c.id.len() == 5 && c.id.starts_with("BQ") && c.id[2..].bytes().all(|b| b.is_ascii_digit()));
            assert!(c.name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'));
        }
    }
}
