//! The finding codes. One line per code; a code is never reused or renumbered once shipped.
//!
//! Ranges: BQ0xx files, BQ1xx manifest top level, BQ2xx sections/scopes/exceptions, BQ3xx cases
//! and fixtures (BQ305–BQ308 the generic case-reading family of every section, BQ309–BQ311 the
//! registry and the reference agreement), BQ4xx schemas, BQ5xx compatibility with the real SDK
//! runners (decisions R20), BQ6xx results files, BQ7xx sync targets, BQ8xx section-specific
//! cross-checks, BQ900–BQ919 release and fetch, BQ950–BQ969 the release gate (`release`,
//! `validate --against`).
//!
//! Retired, never to be reused: BQ810 encode-reject-input (now BQ307 / BQ305), BQ822
//! body-base64 (BQ308), BQ824 poison-case-shape (BQ305 / BQ306 / BQ307), BQ829
//! retry-backoff-case (BQ305 / BQ306 / BQ308), BQ840 gate-table-shape (BQ305 / BQ308), BQ842
//! gate-row-value-or-absent (BQ307 / BQ308), BQ843 gate-row-expect (BQ306), BQ846–BQ849 the
//! reconciliation, delay, backoff and kafka_poison case shapes (BQ305–BQ308), BQ868
//! redis-case-shape and BQ869 redis-delay-case-shape (BQ305).

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
    DUPLICATE_KEY = "BQ007" "duplicate-key" "A JSON file of the suite other than a fixture repeats a key in one object (the last value would win silently).";
    NOT_REGULAR_FILE = "BQ008" "not-regular-file" "A suite file is not a regular file (a FIFO, socket or device, or a symlink to one): it is not read.";
    FILE_TOO_LARGE = "BQ009" "file-too-large" "A suite file is larger than 64 MiB, or the suite holds more than 256 MiB in all: it is not read.";
    JSON_TOO_DEEP = "BQ010" "json-too-deep" "A JSON file of the suite nests deeper than the parser's limit (127 levels).";

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
    SKIP_POLICY_MISSING = "BQ208" "skip-policy-missing" "The manifest has no skip_policy, so no case may be skipped.";
    SKIP_POLICY_SHAPE = "BQ209" "skip-policy-shape" "skip_policy, a rule or a selector lacks a member, has one of the wrong type, or has an unknown one.";
    SKIP_POLICY_ADR = "BQ210" "skip-policy-adr" "A skip-policy rule names an ADR that is not ADR- and four digits.";
    SKIP_POLICY_UNKNOWN_SECTION = "BQ211" "skip-policy-unknown-section" "A skip-policy selector or whole_sections entry names a section the manifest does not have.";
    SKIP_POLICY_UNKNOWN_CASE = "BQ212" "skip-policy-unknown-case" "A skip-policy case selector names no case id of its section.";
    SKIP_POLICY_UNKNOWN_BLOCK = "BQ213" "skip-policy-unknown-block" "A skip-policy block selector names no sub-key of its section with a cases array.";
    SKIP_POLICY_DUPLICATE_RULE = "BQ214" "skip-policy-duplicate-rule" "Two skip-policy rules have the same name.";
    SKIP_POLICY_NOT_WHOLE = "BQ215" "skip-policy-not-whole" "A skip-policy rule lists in whole_sections a section it does not select in full.";

    MISSING_FIXTURE = "BQ301" "missing-fixture" "A case references a file that does not exist.";
    VALID_WITHOUT_EXPECT = "BQ302" "valid-without-expect" "A valid case has no expect block.";
    INVALID_WITHOUT_REASON = "BQ303" "invalid-without-reason" "An invalid case has no reason.";
    ORPHAN_FIXTURE = "BQ304" "orphan-fixture" "A fixture file is referenced by no case.";
    CASE_SHAPE = "BQ305" "case-shape" "A case (or the block it lives in) is not an object, lacks a field its section reads, or has a field of the wrong JSON type.";
    CASE_UNKNOWN_VALUE = "BQ306" "case-unknown-value" "A case field holds a value its section does not define (an unknown mode, expect, kind or block).";
    CASE_ONE_OF = "BQ307" "case-one-of" "A case must carry exactly one of several fields (body / body_base64, value / absent, the encode_reject inputs) and carries none or more than one.";
    CASE_BAD_VALUE = "BQ308" "case-bad-value" "A case field has the right JSON type but a value its section cannot use (not standard padded base64, out of range, not a binary fraction).";
    SECTION_UNREGISTERED = "BQ309" "section-unregistered" "A manifest section has no definition in bqsuite's section registry, so its cases can be neither read, checked nor run.";
    SECTION_SCOPE_DIFFERS = "BQ310" "section-scope-differs" "The sections map gives a section another scope than its definition in the registry.";
    REFERENCE_DISAGREES = "BQ311" "reference-disagrees" "The reference core does not pass a case that needs no external service: the case expects something else than the reference computes.";

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
    ID_CONTROL_CHARACTER = "BQ511" "id-control-character" "A section name, case name or sub-key holds a control character, so its case ids cannot be printed one per line.";
    ID_EMPTY_PART = "BQ512" "id-empty-part" "A section name or sub-key is empty, so its case ids have an empty part.";

    RESULTS_NOT_JSON = "BQ601" "results-not-json" "A results file is not UTF-8 JSON text.";
    RESULTS_SCHEMA = "BQ602" "results-schema" "A results file violates schema/results.schema.json.";
    RESULTS_VERSION_MISMATCH = "BQ603" "results-version-mismatch" "A results file ran a suite version other than the one it is checked against.";
    RESULTS_BINDING_UNDER_EXCEPTION = "BQ604" "results-binding-under-exception" "A results file lists a binding that an exceptions entry excludes for the SDK's family.";
    RESULTS_MISSING_SECTION = "BQ605" "results-missing-section" "A required section (core, or of a carried binding) is absent from a results file.";
    RESULTS_OUT_OF_SCOPE_SECTION = "BQ606" "results-out-of-scope-section" "A results file reports a section whose scope the SDK does not carry.";
    RESULTS_UNKNOWN_SECTION = "BQ607" "results-unknown-section" "A results file reports a section the suite does not have.";
    RESULTS_MISSING_CASE = "BQ608" "results-missing-case" "A case id of a required section is absent from a results file.";
    RESULTS_UNKNOWN_CASE = "BQ609" "results-unknown-case" "A results file reports a case id its section does not have.";
    RESULTS_SKIP_WITHOUT_ADR = "BQ610" "results-skip-without-adr" "A skip has no reason citing the ADR (ADR-NNNN) that makes the case not applicable.";
    RESULTS_SKIP_OUT_OF_SCOPE = "BQ611" "results-skip-out-of-scope" "A skip is reported in a section that is not in the SDK's scope.";
    RESULTS_CASE_FAILED = "BQ612" "results-case-failed" "A results file reports a case as failed.";
    RESULTS_SKIP_NOT_ALLOWED = "BQ613" "results-skip-not-allowed" "A results file skips a case the suite's skip policy does not allow to be skipped.";
    RESULTS_SKIP_WRONG_ADR = "BQ614" "results-skip-wrong-adr" "A skip's reason cites none of the ADRs the skip policy allows for that case.";
    RESULTS_SECTION_NOT_RUN = "BQ615" "results-section-not-run" "Every case a results file reports for a required section is a skip: the section was not run.";
    RESULTS_TOO_MANY_SKIPS = "BQ616" "results-too-many-skips" "A results file has more skips than --max-skips allows.";
    RESULTS_DUPLICATE_KEY = "BQ617" "results-duplicate-key" "A results file repeats a key in one object (a case reported twice, a section listed twice).";
    RESULTS_TOO_DEEP = "BQ618" "results-too-deep" "A results file nests deeper than the parser's limit (127 levels).";
    SYNC_TARGETS_SHAPE = "BQ701" "sync-targets-shape" "sync-targets.json is not {schema_version: 1, description?, targets: [...]} with a non-empty targets array.";
    SYNC_TARGET_SHAPE = "BQ702" "sync-target-shape" "A sync target is not an object with exactly the string fields repo and path.";
    SYNC_TARGET_REPO = "BQ703" "sync-target-repo" "A sync target's repo is not one plain directory name.";
    SYNC_TARGET_PATH = "BQ704" "sync-target-path" "A sync target's path is not a plain relative path inside its repository (no '..', '.', empty or .git components).";
    SYNC_TARGET_OVERLAP = "BQ705" "sync-target-overlap" "Two sync targets name the same directory, or one lies inside the other.";
    SYNC_REPO_MISSING = "BQ706" "sync-repo-missing" "An SDK repository is not under the sync root: the target is skipped (an error under --strict).";
    SYNC_COPY_MISSING = "BQ707" "sync-copy-missing" "An SDK repository has no vendored copy at the target's path.";
    SYNC_FILE_ADDED = "BQ708" "sync-file-added" "A vendored copy holds a file the canonical suite does not (stale or foreign; a top-level LICENSE is ignored).";
    SYNC_FILE_REMOVED = "BQ709" "sync-file-removed" "A vendored copy lacks a file of the canonical suite.";
    SYNC_FILE_MODIFIED = "BQ710" "sync-file-modified" "A vendored file's bytes differ from the canonical file.";
    SYNC_UNSAFE_TARGET = "BQ711" "sync-unsafe-target" "A vendored directory, or a directory above it, is a symlink leading out of its repository or not a directory: refused.";
    SYNC_IO_FAILED = "BQ712" "sync-io-failed" "Reading or writing a vendored copy failed (a failed write keeps the old copy).";
    SYNC_DOWNGRADE = "BQ713" "sync-downgrade" "A vendored copy is newer than the canonical suite: refused to downgrade it.";
    PIN_BEHIND = "BQ714" "pin-behind" "An SDK's vendored copy and CI pin agree on a version older than the canonical suite.";
    PIN_AHEAD = "BQ715" "pin-ahead" "An SDK's vendored copy and CI pin agree on a version newer than the canonical suite.";
    PIN_MISMATCH = "BQ716" "pin-mismatch" "An SDK's CI pins a tag other than the version of its vendored copy.";
    PIN_CONFLICT = "BQ717" "pin-conflict" "An SDK's CI workflows pin several different suite tags.";
    PIN_MISSING = "BQ718" "pin-missing" "An SDK's CI workflows pin no suite tag (--branch vX.Y.Z).";
    SYNC_STAGING_LEFTOVER = "BQ719" "sync-staging-leftover" "A staging area of an interrupted bqsuite run sits beside a vendored copy (an error under --check; sync removes it, or restores the old copy it holds when the copy is missing).";
    PRODUCER_SCHEMA_FAILS = "BQ801" "producer-schema-fails" "A roundtrip or forbidden_keys fixture fails the producer schema, and its case does not say producer_schema_valid: false.";
    PRODUCER_SCHEMA_FLAG_LIES = "BQ802" "producer-schema-flag-lies" "A case says producer_schema_valid: false, but its fixture passes the producer schema.";
    REJECTED_FIXTURE_PASSES_SCHEMA = "BQ803" "rejected-fixture-passes-schema" "A data_shape decode case with valid: false has a fixture that passes the producer schema.";
    BAD_POINTER = "BQ804" "bad-pointer" "A JSON pointer in a behaviour section is not a string holding a valid RFC 6901 pointer.";
    PRESERVED_POINTER_MISSING = "BQ805" "preserved-pointer-missing" "An expect_preserved pointer does not exist in its case's fixture.";
    PRESERVED_VALUE_DIFFERS = "BQ806" "preserved-value-differs" "An expect_preserved value is not the value at that pointer in the fixture (preserved means unchanged).";
    FORBIDDEN_KEY_MISSING = "BQ807" "forbidden-key-missing" "A forbidden_key pointer does not exist in its case's fixture.";
    FORBIDDEN_KEY_NOT_ABSENT = "BQ808" "forbidden-key-not-absent" "A forbidden_keys case does not list its forbidden_key in expect_absent_after_reencode.";
    ABSENT_POINTER_MISSING = "BQ809" "absent-pointer-missing" "An expect_absent_after_reencode pointer does not exist in its case's fixture, so the check could never fail.";
    OFFENDING_KEY_NOT_IN_INPUT = "BQ811" "offending-key-not-in-input" "An encode_reject offending_key is not a key of the case's input.";
    PAYLOAD_SCHEMA_VERDICT = "BQ820" "payload-schema-verdict" "A payload_schema / payload_schema_unicode case's valid flag disagrees with the Draft-07 verdict.";
    PAYLOAD_SCHEMA_CASE = "BQ821" "payload-schema-case" "A payload-schema section's schema does not compile with a Draft-07 validator.";
    INVALID_UTF8_MARK = "BQ823" "invalid-utf8-mark" "A case expecting raw_encoding base64 has a body that is valid UTF-8, or an invalid-UTF-8 body does not expect it.";
    POISON_EXPECTATION = "BQ825" "poison-expectation" "A poison_dlq expectation contradicts its body (wrapper raw, splice record, shape, splice literals or keys).";
    IDEMPOTENCY_OUTCOME = "BQ826" "idempotency-outcome" "An idempotency delivery carries an outcome without effect run, or a run lacks outcome ok / throw.";
    IDEMPOTENCY_EFFECTS = "BQ827" "idempotency-effects" "expected_effects is not the number of deliveries whose effect is run (R6).";
    IDEMPOTENCY_EFFECT = "BQ828" "idempotency-effect" "A delivery's expect_effect contradicts the seen-set rule given the deliveries before it.";
    RETRY_BACKOFF_EXPECTATION = "BQ830" "retry-backoff-expectation" "A retry_backoff expectation differs from d(n) computed exactly (R14).";
    GATE_FIXTURE_INVALID = "BQ841" "gate-fixture-invalid" "A schema_version_gate fixture is not a valid envelope, so a reject could come from the body instead of the gate.";
    GATE_ROW_VALUE_TYPE = "BQ844" "gate-row-value-type" "value_type sits on a row whose value is not a number.";
    GATE_ROW_NOT_CARRIED = "BQ845" "gate-row-not-carried" "A gate row's value has a type the binding's property cannot carry (only ASB carries numbers; SQS and Pulsar carry no null).";

    REDIS_UNKNOWN_LAYOUT = "BQ860" "redis-unknown-layout" "A redis_layout case names a layout other than zset or processing.";
    REDIS_UNKNOWN_OP = "BQ861" "redis-unknown-op" "A redis_layout step has no op, or one the case language does not have.";
    REDIS_STEP_WITHOUT_NOW = "BQ862" "redis-step-without-now" "A redis_layout step has no finite numeric now.";
    REDIS_NOT_IN_LAYOUT = "BQ863" "redis-not-in-layout" "A redis_layout case uses an op, key or field its layout does not have.";
    REDIS_UNKNOWN_BODY = "BQ864" "redis-unknown-body" "A redis_layout case names a body its bodies map does not define.";
    REDIS_UNKNOWN_RESERVATION = "BQ865" "redis-unknown-reservation" "A redis_layout case uses a reservation or token that no earlier step or state binds.";
    REDIS_EXPECT_SHAPE = "BQ866" "redis-expect-shape" "A redis_layout expectation or state entry has the wrong shape, or is not an expectation of its step.";
    REDIS_BAD_RETRY_AFTER = "BQ867" "redis-bad-retry-after" "A redis_layout retry_after is neither a non-negative integer nor null.";

    DRIFT_ADDED = "BQ900" "drift-added" "A vendored copy holds a file or directory the release does not (fetch --check).";
    DRIFT_REMOVED = "BQ901" "drift-removed" "A vendored copy lacks a file of the release (fetch --check).";
    DRIFT_MODIFIED = "BQ902" "drift-modified" "A vendored file differs from the release's, or is a symlink where the release has a file (fetch --check).";

    BUMP_TOO_SMALL = "BQ950" "bump-too-small" "CONFORMANCE_VERSION bumps the previous release by less than its changes need under the SemVer rule (release gate).";
    CORRECTION_NOT_NAMED = "BQ951" "correction-not-named" "A changed expectation (a correction) is not named, with the ADR that justifies it, in the version's CHANGELOG entry (release gate).";
    CHANGELOG_ENTRY_MISSING = "BQ952" "changelog-entry-missing" "The suite changed since the previous release, but CHANGELOG.md has no entry for CONFORMANCE_VERSION (release gate).";
    SECTION_NOT_IN_CHANGELOG = "BQ953" "section-not-in-changelog" "A section added since the previous release is not named in the version's CHANGELOG entry (release gate).";
    VERSION_NOT_ABOVE_PREVIOUS = "BQ954" "version-not-above-previous" "CONFORMANCE_VERSION is below the previous release, or equal to it although the suite changed (release gate).";
    NO_PREVIOUS_RELEASE = "BQ955" "no-previous-release" "No previous release to compare with: no v* tag below CONFORMANCE_VERSION and neither --previous nor --no-previous (release gate).";
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
