//! The finding codes. One line per code; a code is never reused or renumbered once shipped.
//!
//! Ranges: BQ0xx files, BQ1xx manifest top level, BQ2xx sections/scopes/exceptions, BQ3xx cases
//! and fixtures (BQ305–BQ308 the generic case-reading family of every section, BQ309–BQ314 the
//! registry and the reference agreement), BQ4xx schemas, BQ5xx compatibility with the real SDK
//! runners (decisions R20), BQ6xx results files, BQ7xx sync targets, BQ8xx section-specific
//! cross-checks, BQ900–BQ919 release and fetch, BQ950–BQ959 the release gate (`release`,
//! `validate --against`), BQ960–BQ969 the docs (`docs --check`).
//!
//! Each code carries its explanation beside its definition (severity, what it checks, why it
//! matters, an example that a test executes; see [`super::explain`]): `bqsuite explain` and the
//! docs' code reference render that one table.
//!
//! A code that is no longer reported is retired, never reused: [`RETIRED`] keeps its id, name
//! and summary and the codes that now make its checks, so `bqsuite explain` and the code
//! reference can answer for a code an old CI log still shows.

use serde::{Serialize, Serializer};

use super::Severity;
use super::explain::Edit::{Delete, Fifo, Grow, Remove, Replace, Set, Symlink, Write, WriteBytes};
use super::explain::Example::{Committed, Docs, Fetch, Gate, Release, Results, Sync, Tagged, Upgrade, Validate};
use super::explain::Explain;

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

impl Code {
    /// What the code checks, why it matters and an example (from the same table).
    pub fn explain(&self) -> &'static Explain {
        let i = ALL_CODES.binary_search_by(|c| c.id.cmp(self.id)).unwrap_or_else(|_| panic!("{} is no code", self.id));
        &EXPLAINS[i]
    }
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
    ($($konst:ident = $id:literal $name:literal $summary:literal {
        $severity:ident $(($otherwise:literal))?,
        checks: $checks:literal,
        why: $why:literal,
        example: $example:expr,
        $(only: $only:expr,)?
    })*) => {
        impl Code {
            $(#[doc = $summary] pub const $konst: Code = Code { id: $id, name: $name, summary: $summary };)*
        }
        /// Every code, in numeric order.
        pub const ALL_CODES: &[Code] = &[$(Code::$konst),*];
        /// The explanation of every code, in the order of [`ALL_CODES`].
        static EXPLAINS: &[Explain] = &[$(Explain {
            code: Code::$konst,
            severity: Severity::$severity,
            otherwise: otherwise!($($otherwise)?),
            checks: $checks,
            why: $why,
            example: $example,
            only: otherwise!($($only)?),
        }),*];
    };
}

macro_rules! otherwise {
    () => {
        None
    };
    ($text:expr) => {
        Some($text)
    };
}

codes! {
    INVALID_JSON = "BQ001" "invalid-json" "A JSON file of the suite does not parse." {
        Error,
        checks: "Every .json file of the suite (manifest.json, the schemas, every fixture, sync-targets.json) is read by one strict RFC 8259 parser; a file that does not parse is reported once, at the line and column where parsing stopped, and nothing that needs its content is checked.",
        why: "SDK runners in six languages parse these files; a file one parser refuses turns a runner red before any case runs, and the cases that read it cannot be judged.",
        example: Validate(&[Write("fixtures/order-created.json", "{\"job\": \"urn:x\", oops}\n")]),
    }
    NOT_UTF8 = "BQ002" "not-utf8" "A suite file is not valid UTF-8." {
        Error,
        checks: "Every suite file is valid UTF-8; the finding names the offset of the first byte that is not, or says that the file is UTF-16 (with or without a byte-order mark).",
        why: "JSON text exchanged between systems must be UTF-8 (RFC 8259 §8.1); a runner whose reader rejects invalid UTF-8, or replaces it with U+FFFD, sees another suite than the one released.",
        example: Validate(&[WriteBytes("fixtures/order-created.json", b"{\"job\":\"\xff\"}\n")]),
    }
    MISSING_FILE = "BQ003" "missing-file" "A file every suite must have is missing (or, for LICENSE, empty)." {
        Error,
        checks: "The files every suite has exist: manifest.json, CONFORMANCE_VERSION, LICENSE (and it holds more than white space), CHANGELOG.md (except in a released copy), schema/message-envelope.schema.json, schema/results.schema.json and schema/results.example.json.",
        why: "Runners, the release asset and every vendored copy rely on these files; a suite without one cannot be run, released or checked. release refuses to build without a LICENSE, which every asset ships, so validate reports it first, in the pull request; CHANGELOG.md holds each version's entry, which the release gate and the release notes read; it stays in the suite's own repository (the asset never ships it), so a released copy (a directory holding only the asset's files, as fetch unpacks and sync vendors it) is not asked for one.",
        example: Validate(&[Delete("schema/results.example.json")]),
    }
    UNREADABLE_FILE = "BQ004" "unreadable-file" "A suite file exists but cannot be read." {
        Error,
        checks: "Every suite file that exists can be opened and read (permissions, a dangling symbolic link or a link loop at the top level, an I/O error); the error the system gave is quoted.",
        why: "A file bqsuite cannot read is one nothing is checked in, and the release would fail or ship something unchecked.",
        example: Validate(&[Symlink("LICENSE", "LICENSE")]),
    }
    IRREGULAR_FILE = "BQ005" "irregular-file" "schema/ or fixtures/ holds something that is neither a regular file nor a directory (a symlink, a FIFO, a device), or a top-level suite file or one of those two directories is a symlink." {
        Error,
        checks: "Under schema/ and fixtures/ every entry is a regular file or a directory, and schema/, fixtures/ and the top-level suite files (manifest.json, CONFORMANCE_VERSION, LICENSE, CHANGELOG.md, sync-targets.json) are no symbolic links; a symbolic link, FIFO, socket or device under the two directories is reported and not followed.",
        why: "The release asset and the vendored copies hold regular files only, and a symbolic link would make them hold whatever it leads to, outside the suite: LICENSE -> /proc/self/environ would publish the building process's environment.",
        example: Validate(&[Symlink("fixtures/link.json", "order-created.json")]),
    }
    STRAY_FILE = "BQ006" "stray-file" "schema/ or fixtures/ holds a file that is not a .json file (an editor backup, .DS_Store, notes), or a hidden one (in a directory such as .cache/): the release would ship it." {
        Error,
        checks: "Every file under schema/ and fixtures/ ends in .json, and neither its name nor that of a directory it lies in starts with '.'.",
        why: "Everything under these directories goes into the release asset and into every SDK's vendored copy; an editor backup, a .DS_Store or a tool's hidden .cache/x.json would be shipped to 25 repositories.",
        example: Validate(&[Write("fixtures/order-created.json~", "backup\n")]),
    }
    DUPLICATE_KEY = "BQ007" "duplicate-key" "A JSON file of the suite other than a fixture repeats a key in one object (the last value would win silently)." {
        Error,
        checks: "No object in manifest.json, sync-targets.json or a schema repeats a member name; the finding sits at the repeated member and names the first. Fixtures are exempt: several repeat keys on purpose (the last-wins cases).",
        why: "Parsers disagree on a repeated key (most keep the last value, some the first, some refuse), so two runners would read two different expectations from one manifest.",
        example: Validate(&[Replace("manifest.json", "\"schema_version\": 1,", "\"schema_version\": 1,\n  \"schema_version\": 1,")]),
    }
    NOT_REGULAR_FILE = "BQ008" "not-regular-file" "A suite file is not a regular file (a FIFO, socket or device, or a symlink to one): it is not read." {
        Error,
        checks: "A top-level suite file (manifest.json, CONFORMANCE_VERSION, LICENSE, CHANGELOG.md, sync-targets.json) is a regular file (a symbolic link is BQ005, and one leading to anything else is also this); anything else is refused without being read.",
        why: "Reading a FIFO or a device blocks or never ends; refusing it keeps validate, release and sync from hanging in CI.",
        example: Validate(&[Fifo("LICENSE")]),
    }
    FILE_TOO_LARGE = "BQ009" "file-too-large" "A suite file is larger than 64 MiB, or the suite holds more than 256 MiB in all: it is not read." {
        Error,
        checks: "Every suite file is at most 64 MiB and the suite at most 256 MiB in all; a file beyond either cap is reported with its size and not read.",
        why: "The caps bound the memory every command needs, and a suite a hundred times 1.6.0 stays far below them, so a file over them is a mistake (or an attack on a CI job), not data.",
        example: Validate(&[Grow("fixtures/huge.json", 67_108_865)]),
    }
    JSON_TOO_DEEP = "BQ010" "json-too-deep" "A JSON file of the suite nests deeper than the parser's limit (127 levels)." {
        Error,
        checks: "No JSON file of the suite nests arrays and objects more than 127 levels deep.",
        why: "Parsers limit nesting (serde_json at 128, PHP at 512 by default) and recursive ones overflow the stack; the suite's own data needs nowhere near 127 levels, and bodies that must be deep travel as strings.",
        example: Validate(&[Write("schema/deep.json", "{nest:200}\n")]),
    }
    UNPORTABLE_NAME = "BQ011" "unportable-name" "A suite file's path is not portable: a name some SDK's platform cannot create as spelt, or two paths that differ only in letter case." {
        Error,
        checks: "Every path of the suite (schema/, fixtures/ and the top-level files, directories included) is made of POSIX's portable filename characters (A-Z, a-z, 0-9, '.', '_', '-'), has no component that starts with '-', is a Windows device name (CON, NUL, COM1, ...) or ends in a dot, is at most 100 bytes long, and equals no other path when letter case is ignored.",
        why: "The suite is vendored into some 25 SDK repositories checked out on Linux, macOS and Windows: a name with a ':' or '*', a device name such as aux.json, or two names that differ only in case cannot be checked out on Windows or a Mac, and a non-ASCII name is one file in git but two spellings under Unicode normalisation. release refuses the unsafe ones; validate reports them in the pull request instead.",
        example: Validate(&[Write("fixtures/Order-Created.json", "{}\n")]),
    }

    SCHEMA_VERSION = "BQ101" "schema-version" "manifest.schema_version is not the integer 1." {
        Error,
        checks: "manifest.json's schema_version is the JSON integer 1 (not 1.0, not \"1\").",
        why: "Real SDK runners refuse a manifest whose schema_version is not 1 (decisions R20.1); the suite's version lives in conformance_version instead.",
        example: Validate(&[Set("manifest.json", "/schema_version", "2")]),
    }
    VERSION_NOT_SEMVER = "BQ102" "version-not-semver" "CONFORMANCE_VERSION is not a SemVer version." {
        Error,
        checks: "CONFORMANCE_VERSION holds one SemVer version (X.Y.Z, optionally -pre), of at most 64 characters, with nothing else but a final newline.",
        why: "The version names the release tag v<version> and the asset, and SDKs pin it in CI; diff and the release gate compare versions by SemVer.",
        example: Validate(&[Write("CONFORMANCE_VERSION", "1.6\n")]),
    }
    VERSION_MISMATCH = "BQ103" "version-mismatch" "CONFORMANCE_VERSION differs from manifest.conformance_version." {
        Error,
        checks: "manifest.json's conformance_version equals the version in CONFORMANCE_VERSION.",
        why: "Runners read the version from the manifest, vendored copies and CI pins from the file; two versions in one suite make a results file's conformance_version ambiguous.",
        example: Validate(&[Set("manifest.json", "/conformance_version", "\"1.0.0\"")]),
    }
    MANIFEST_SHAPE = "BQ104" "manifest-shape" "A top-level manifest key is missing or has the wrong type." {
        Error,
        checks: "The manifest is a JSON object whose metadata keys have their types: schema_version and conformance_version present, description a string, sections an object, exceptions an array.",
        why: "Every command and every runner navigates the manifest through these keys; a wrong type stops them before any section is read.",
        example: Validate(&[Set("manifest.json", "/exceptions", "{}")]),
    }

    CHANGELOG_NO_ENTRY = "BQ105" "changelog-no-entry" "CHANGELOG.md has no entry for CONFORMANCE_VERSION." {
        Error,
        checks: "CHANGELOG.md has a non-empty entry for CONFORMANCE_VERSION, read as the release gate and the release notes read it: a level-2 heading whose first word is the version (## 1.6.0, ## [1.6.0] - date), outside fenced code blocks. A pre-release X.Y.Z-pre may have its own ## X.Y.Z-pre heading or use the ## X.Y.Z heading of the release it becomes.",
        why: "The entry is what SDK maintainers read before moving to the version (the release notes print it) and where corrections are named with their ADR; without it the release gate compares against nothing, and release --no-previous would publish a version nobody described.",
        example: Validate(&[Replace("CHANGELOG.md", "## {version}", "## 1.5.9")]),
    }

    SECTION_WITHOUT_SCOPE = "BQ201" "section-without-scope" "A manifest block has no entry in the sections map." {
        Error,
        checks: "Every section of the manifest (every top-level key but the metadata keys) has an entry in the sections map.",
        why: "Runners choose the sections to run from the sections map by scope; a section without an entry is run by nobody, so it pins nothing.",
        example: Validate(&[Remove("manifest.json", "/sections/rabbitmq")]),
    }
    SCOPE_WITHOUT_SECTION = "BQ202" "scope-without-section" "The sections map names a block the manifest does not have." {
        Error,
        checks: "Every entry of the sections map names a section the manifest has.",
        why: "A runner that enumerates the sections map would look for a section that is not there and report a required section it cannot run.",
        example: Validate(&[Remove("manifest.json", "/rabbitmq")]),
    }
    UNKNOWN_SCOPE = "BQ203" "unknown-scope" "A scope is not one of core, redis, amqp, sqs, asb, pulsar, kafka, artemis, otel." {
        Error,
        checks: "Every scope in the sections map is core, otel or one of the bindings redis, amqp, sqs, asb, pulsar, kafka, artemis.",
        why: "A results file's bindings are matched against these scopes; a section with another scope is required of no SDK.",
        example: Validate(&[Set("manifest.json", "/sections/rabbitmq", "\"rabbit\"")]),
    }
    BAD_EXCEPTION = "BQ204" "bad-exception" "An exceptions entry is not {family, binding, adr} with an ADR-NNNN reference." {
        Error,
        checks: "Every entry of exceptions is an object {family, binding, adr} whose adr is ADR- and four digits and whose family is only ASCII letters and digits (php, not php-sdk); no two entries name the same family (letter case aside) and binding.",
        why: "An exception exempts a whole SDK family from a binding; results check applies it, and it must cite the decision that allows it. results check derives a family as one piece of ASCII letters and digits of sdk, so any other family matches no SDK and the exception is silently dead. Two entries for one family and binding leave open which ADR grants the exemption.",
        example: Validate(&[Set("manifest.json", "/exceptions/0/adr", "\"ADR-21\"")]),
    }
    EXCEPTION_UNKNOWN_BINDING = "BQ205" "exception-unknown-binding" "An exceptions entry names a binding that is not a scope of the suite." {
        Error,
        checks: "The binding an exceptions entry names is a binding scope of the suite.",
        why: "An exception for a binding the suite does not have exempts nothing; it is a typo that hides the exception that was meant.",
        example: Validate(&[Set("manifest.json", "/exceptions/0/binding", "\"mqtt\"")]),
    }
    DUPLICATE_CASE_ID = "BQ206" "duplicate-case-id" "Two cases of one section have the same case id, or ids equal but for letter case." {
        Error,
        checks: "Under the one case-id rule (bqsuite ids), no two cases of a section have the same id, nor ids equal when ASCII letter case is ignored (names are kebab-case ASCII, BQ514, so no Unicode normalisation or folding is needed).",
        why: "A results file reports each case under its id; two cases with one id cannot both be reported, so one of them is never judged, and two ids that differ only in letter case are one id to any tool that ignores case.",
        example: Validate(&[Set("manifest.json", "/payload_schema/cases/[valid-full]/name", "\"valid-minimal\"")]),
    }
    SECTION_SHAPE = "BQ207" "section-shape" "A section is neither an object nor (for cases) an array, or has no description." {
        Error,
        checks: "Every section is a JSON object with a non-empty description string, except cases, which is an array (the manifest's own description covers it).",
        why: "Case ids are derived from the section's shape; a section of another type has no cases a runner could read.",
        example: Validate(&[Set("manifest.json", "/rabbitmq", "[]")]),
    }
    SKIP_POLICY_MISSING = "BQ208" "skip-policy-missing" "The manifest has no skip_policy, so no case may be skipped." {
        Error,
        checks: "The manifest has the metadata key skip_policy.",
        why: "results check allows a skip only where the policy does; without it every skip, even of the Redis cases without a Redis, makes a results file Not compatible.",
        example: Validate(&[Remove("manifest.json", "/skip_policy")]),
    }
    SKIP_POLICY_SHAPE = "BQ209" "skip-policy-shape" "skip_policy, a rule or a selector lacks a member, has one of the wrong type, or has an unknown one." {
        Error,
        checks: "skip_policy is {description, rules}; each rule is {name, condition, adrs, cases, whole_sections?, all_or_none?, families?} with non-empty strings and lists, all_or_none a boolean and families a non-empty list of families of ASCII letters and digits; each selector is {section, case} or {section, block}; no member is unknown.",
        why: "The policy is read by machines (results check, adapters deciding whether they may skip): a rule that does not read selects nothing, or the wrong cases.",
        example: Validate(&[Set("manifest.json", "/skip_policy/rules/0/condition", "\"\"")]),
    }
    SKIP_POLICY_ADR = "BQ210" "skip-policy-adr" "A skip-policy rule names an ADR that is not ADR- and four digits." {
        Error,
        checks: "Every entry of a rule's adrs is ADR- followed by four digits.",
        why: "A skip's reason must cite one of its rule's ADRs; an ADR written another way can never be cited, so the rule would allow no skip.",
        example: Validate(&[Set("manifest.json", "/skip_policy/rules/0/adrs/0", "\"ADR-33\"")]),
    }
    SKIP_POLICY_UNKNOWN_SECTION = "BQ211" "skip-policy-unknown-section" "A skip-policy selector or whole_sections entry names a section the manifest does not have." {
        Error,
        checks: "Every section a selector or whole_sections names exists in the manifest.",
        why: "A selector of a missing section selects nothing: the skip it was written for would be refused, or a renamed section would lose its exemption silently.",
        example: Validate(&[Set("manifest.json", "/skip_policy/rules/0/cases/0/section", "\"redis_cluster\"")]),
    }
    SKIP_POLICY_UNKNOWN_CASE = "BQ212" "skip-policy-unknown-case" "A skip-policy case selector names no case id of its section." {
        Error,
        checks: "A {section, case} selector names an exact case id of that section under the one case-id rule.",
        why: "Selectors match exact ids, never prefixes; a misspelt id allows no skip of the case that was meant.",
        example: Validate(&[Set("manifest.json", "/skip_policy/rules/[one-map-per-call]/cases/0/case", "\"reject-repeated-keys\"")]),
    }
    SKIP_POLICY_UNKNOWN_BLOCK = "BQ213" "skip-policy-unknown-block" "A skip-policy block selector names no sub-key of its section with a cases array." {
        Error,
        checks: "A {section, block} selector names a sub-key of that section that has its own cases array.",
        why: "A block selector stands for every case of that cases array; one naming anything else selects nothing.",
        example: Validate(&[Set("manifest.json", "/skip_policy/rules/0/cases/1/block", "\"sweep\"")]),
    }
    SKIP_POLICY_DUPLICATE_RULE = "BQ214" "skip-policy-duplicate-rule" "Two skip-policy rules have the same name." {
        Error,
        checks: "No two rules of the policy have the same name.",
        why: "Rules are referred to by name in reports and discussions; two rules with one name make it unclear which condition a skip relied on.",
        example: Validate(&[Set("manifest.json", "/skip_policy/rules/1/name", "\"no-live-redis\"")]),
    }
    SKIP_POLICY_NOT_WHOLE = "BQ215" "skip-policy-not-whole" "A skip-policy rule lists in whole_sections a section it does not select in full." {
        Error,
        checks: "A section a rule lists in whole_sections is one whose every case the same rule selects.",
        why: "whole_sections lets a required section be skipped entirely; that is only sound when the rule's condition covers every case of it.",
        example: Validate(&[Set("manifest.json", "/skip_policy/rules/[single-number-type]/whole_sections", "[\"asb\"]")]),
    }
    SKIP_POLICY_CORE_SECTION = "BQ216" "skip-policy-core-section" "The skip policy lets a core section be skipped whole: a rule lists it in whole_sections, or the rules together select every one of its cases." {
        Error,
        checks: "No whole_sections entry names a core section, and every core section keeps at least one case that no rule selects (the rules are taken together, so splitting a section over several rules does not help).",
        why: "Every core section is required of every SDK and skip is never a way to leave a section out (ADR-0032); a policy that lets all of a core section be skipped, under any condition, turns a required section into an optional one, and results check would call such an SDK Compatible.",
        example: Validate(&[Set("manifest.json", "/skip_policy/rules/[one-map-per-call]/whole_sections", "[\"encode_reject\"]")]),
    }
    SKIP_POLICY_UNKNOWN_FAMILY = "BQ217" "skip-policy-unknown-family" "A skip-policy rule's families names no SDK family results check can derive." {
        Error,
        checks: "Every entry of a rule's families is an SDK family results check can derive from a results file's sdk: one of the producer schema's meta.lang values, or a family an exceptions entry names (letter case aside).",
        why: "A rule limited to a family no SDK is ever derived as allows no skip at all: the skip it was written for (the JavaScript float row, say) would be refused for the SDK that needs it.",
        example: Validate(&[Set("manifest.json", "/skip_policy/rules/[single-number-type]/families", "[\"javascript\"]")]),
    }
    EXCEPTION_UNREGISTERED = "BQ218" "exception-unregistered" "An exceptions entry is not one of the contract's family exceptions bqsuite records for the suite's version (family, binding and ADR)." {
        Error,
        checks: "Every exceptions entry is a family exception of bqsuite's registry (decisions R5: php may leave out asb, ADR-0021, since 1.5.0): the same family (letter case aside), binding and ADR, recorded for the suite's version or an earlier one.",
        why: "An exception lets every SDK of a family leave a whole binding out of its results and still be Compatible. One added by an edit to the manifest would quietly excuse a family from a broker's contract; a new exception is a contract change that comes with its ADR, a CHANGELOG entry and a bqsuite release that records it.",
        example: Validate(&[Set("manifest.json", "/exceptions/-", r#"{"family": "go", "binding": "kafka", "adr": "ADR-0099"}"#)]),
    }
    EXCEPTION_MISSING = "BQ219" "exception-missing" "A family exception the contract records for the suite's version is not in its exceptions list." {
        Error,
        checks: "Every family exception of bqsuite's registry recorded for the suite's version or an earlier one is in the exceptions list, with its ADR.",
        why: "Dropping an exception makes that family's SDKs owe the whole binding at once: every such SDK that followed the ADR becomes Not compatible without any change on its side.",
        example: Validate(&[Set("manifest.json", "/exceptions", "[]")]),
    }
    MISSING_FIXTURE = "BQ301" "missing-fixture" "A case references a file that does not exist, or one that is not under fixtures/." {
        Error,
        checks: "Every file a case or block names (file, envelope_file, fixture) exists in the suite and lies under fixtures/: a case run on LICENSE, CONFORMANCE_VERSION or sync-targets.json fails in every SDK, and LICENSE and sync-targets.json reach no vendored copy.",
        why: "The case cannot be run without its fixture, in any SDK.",
        example: Validate(&[Delete("fixtures/urn-alias.json")]),
    }
    VALID_WITHOUT_EXPECT = "BQ302" "valid-without-expect" "A valid case has no expect block." {
        Error,
        checks: "A case with valid: true in the top-level cases (and a data_shape decode case with valid: true) carries an expect block.",
        why: "A valid case asserts what the consumer derives (urn, data, attempts, lang, schema_version); without expect it asserts only that decoding does not fail.",
        example: Validate(&[Remove("manifest.json", "/cases/[order-created]/expect")]),
    }
    INVALID_WITHOUT_REASON = "BQ303" "invalid-without-reason" "An invalid case has no reason." {
        Error,
        checks: "A case with valid: false carries a reason saying why the envelope must be rejected.",
        why: "An SDK maintainer whose decoder accepts the envelope needs to know which rule it breaks.",
        example: Validate(&[Remove("manifest.json", "/cases/[invalid-missing-urn]/reason")]),
    }
    ORPHAN_FIXTURE = "BQ304" "orphan-fixture" "A fixture file is referenced by no case." {
        Error,
        checks: "Every file under fixtures/ is named by at least one case or block.",
        why: "An orphan fixture is shipped to every SDK and tested by none: either a case lost its file reference or the file is left over.",
        example: Validate(&[Write("fixtures/nobody-uses-me.json", "{}\n")]),
    }
    CASE_SHAPE = "BQ305" "case-shape" "A case (or the block it lives in) is not an object, lacks a field its section reads, or has a field of the wrong JSON type." {
        Error,
        checks: "Every case of every section reads into its section's typed form (the same reader run uses): the case is an object, every field the section reads is present with its JSON type, and no field is unknown to it (a field the section's contract does not name is reported, with the nearest known name, but the case still reads and runs, as runners ignore unknown fields).",
        why: "A runner cannot run a case it cannot read; in an SDK's runner that is a crash or a silent skip, never a verdict.",
        example: Validate(&[Remove("manifest.json", "/kafka_poison/cases/[job-only]/expect")]),
    }
    CASE_UNKNOWN_VALUE = "BQ306" "case-unknown-value" "A case field holds a value its section does not define (an unknown mode, expect, kind or block)." {
        Error,
        checks: "Enumerated fields (mode, expect, layout, jitter, value_type) hold one of the values their section defines, and every case lives in a block its section defines (a case of another block is not read).",
        why: "A runner decides what to do from these values; one it does not know has no defined outcome.",
        example: Validate(&[Set("manifest.json", "/kafka_poison/cases/[job-only]/expect", "\"maybe\"")]),
    }
    CASE_ONE_OF = "BQ307" "case-one-of" "A case must carry exactly one of several fields (body / body_base64, value / absent, the encode_reject inputs) and carries none or more than one." {
        Error,
        checks: "Where a section offers alternative inputs (body or body_base64, value or absent: true, one encode_reject input), a case carries exactly one of them.",
        why: "With two inputs two runners may pick different ones and reach different verdicts; with none there is nothing to run.",
        example: Validate(&[Set("manifest.json", "/kafka_poison/cases/[job-only]/body_base64", "\"e30=\"")]),
    }
    CASE_BAD_VALUE = "BQ308" "case-bad-value" "A case field has the right JSON type but a value its section cannot use (not standard padded base64, out of range, not a binary fraction)." {
        Error,
        checks: "Field values are usable: base64 is standard and padded, numbers are in their range (n at least 1, a multiplier at least 1 and a binary fraction, a non-empty property name), lists are non-empty where they must be; in every section, a field that lists what must hold after the run (expect, expect_preserved, expect_envelope, expect_after_reencode, expect_absent_after_reencode, expect_absent_headers, expect_dead_letter, deliveries, and expect.dead_letter) is not an empty object or array.",
        why: "A value a runner cannot decode or that no SDK can represent exactly makes the case fail for the suite's fault, not the SDK's; an emptied expectation pins nothing, so every SDK passes the case whatever its bugs.",
        example: Validate(&[Set("manifest.json", "/kafka_poison/cases/[invalid-utf8]/body_base64", "\"not base64!\"")]),
    }
    SECTION_UNREGISTERED = "BQ309" "section-unregistered" "A manifest section has no definition in bqsuite's section registry, so its cases can be neither read, checked nor run." {
        Error,
        checks: "Every section of the manifest has a definition in bqsuite's section registry (src/sections/).",
        why: "Without a definition bqsuite cannot read the section's cases, cross-check them or run the reference core through them, so nothing guarantees the section can be passed at all.",
        example: Validate(&[
            Set("manifest.json", "/sections/mqtt", "\"core\""),
            Set("manifest.json", "/mqtt", "{\"description\": \"A section no definition knows.\", \"cases\": []}"),
        ]),
    }
    SECTION_SCOPE_DIFFERS = "BQ310" "section-scope-differs" "The sections map gives a section another scope than its definition in the registry." {
        Error,
        checks: "The scope the sections map gives a section equals the scope its registry definition declares.",
        why: "The scope decides which SDKs must run a section; moving a section between scopes changes who is required to pass it, which is a decision for the suite, not an accident of one file.",
        example: Validate(&[Set("manifest.json", "/sections/redis_delay", "\"core\"")]),
    }
    REFERENCE_DISAGREES = "BQ311" "reference-disagrees" "The reference core does not pass a case: the case expects something else than the reference computes." {
        Error,
        checks: "Every case that reads cleanly is run through the reference core over the SDK interface; a case it does not pass is reported at the case, with what the reference computed and what the case expects. The cases that need a live Redis run only when validate (or release) is given one (--redis-url or BQ_REDIS_URL); without one they are read and checked, not run, and a line on stderr says how many.",
        why: "An expectation the reference implementation of the contract cannot meet is almost always a mistake in the case; shipped, it would turn every correct SDK red.",
        example: Validate(&[Set("manifest.json", "/cases/[order-created]/expect/attempts", "1")]),
    }
    SECTION_MISSING = "BQ312" "section-missing" "A section the suite's version holds, by the spec's version history, is not in the manifest." {
        Error,
        checks: "Every section bqsuite's registry defines whose version (the version-history entry that added it; 1.0.0 for the initial suite's) is CONFORMANCE_VERSION or earlier is in the manifest.",
        why: "Runners look sections up by name and leave out one that is not there, so a section dropped from a release (with its sections entry) would pass every other check while every SDK silently stopped being tested on it.",
        example: Validate(&[Remove("manifest.json", "/traceparent"), Remove("manifest.json", "/sections/traceparent")]),
    }
    BLOCK_MISSING = "BQ313" "block-missing" "A section lacks a block its version holds, by the spec's version history." {
        Error,
        checks: "Every block a section's definition declares with a version of CONFORMANCE_VERSION or earlier (schema_version_gate in the binding sections since 1.1.0, the redis_layout behavioural blocks since 1.6.0, ...) is in the section.",
        why: "A runner skips a block that is not there without a word, so a dropped block stops testing its rule in every SDK while the rest of the section still passes.",
        example: Validate(&[Remove("manifest.json", "/sqs/schema_version_gate")]),
    }
    EMPTY_BLOCK = "BQ314" "empty-block" "A block (or a section's own cases) has an empty cases array." {
        Error,
        checks: "Every cases array of a section made of blocks holds at least one case (the array section cases is held to six by BQ509).",
        why: "An empty block runs and passes in every SDK, so it looks like coverage while it pins nothing.",
        example: Validate(&[Set("manifest.json", "/redis_delay/cases", "[]")]),
    }
    NEWER_THAN_VERSION = "BQ315" "newer-than-version" "The suite holds a section or block that a later version than CONFORMANCE_VERSION added, by the spec's version history." {
        Error,
        checks: "No section bqsuite's registry defines, and no block of one, was added (by the version-history entry the registry records as its version) in a version later than CONFORMANCE_VERSION; a pre-release counts as the version it becomes (1.7.0-pre may hold what 1.7.0 adds). The inverse of BQ312 and BQ313.",
        why: "An SDK pins a suite version and implements what that version holds; a 1.5.0 label on 1.6.0 content hands runners sections their version does not have and contradicts the history every SDK maintainer reads.",
        example: Validate(&[Write("CONFORMANCE_VERSION", "1.5.0\n"), Set("manifest.json", "/conformance_version", "\"1.5.0\"")]),
    }
    CATCH_LOST = "BQ316" "catch-lost" "A case that the suite's recorded power says catches a broken variant of the reference core no longer catches it, or is gone." {
        Error,
        checks: "Every (broken variant, case) pair of the recorded power (src/sections/power.json: the kill matrix of the canonical suite, bqsuite dev kill-matrix) runs again with that variant switched on: the case must not pass, and on a suite of the recording's version or later it must exist. On a suite of the recording's own version, a case whose content is the recorded one (BQ318's fingerprint) is not run again: the recording, held to this reference core by its tests, already says how its pairs come out. The Redis cases among them run only when validate is given a Redis. A case the reference does not pass either is BQ311's, and a case gone with its whole block is that block's finding.",
        why: "The reference agreement (BQ311) proves a case can be passed, not that it tests anything: an expectation emptied, a published case removed or a gate row inserted ahead of the published ones still passes with the reference, and every SDK with the bug the case was written for would pass it too. A change that moves what a case catches on purpose is made with a new recording, whose diff shows the pairs gained and lost.",
        example: Validate(&[Remove("manifest.json", "/extension_write/cases/[flat-scalar-key]/expect_envelope/~1meta~1vendor_flag")]),
    }
    RECORDED_CASE_GONE = "BQ317" "recorded-case-gone" "A case of the recorded canonical suite that no broken variant fails is gone (renamed, removed, or a gate row dropped)." {
        Error,
        checks: "On a suite of the recorded power's version or later, every case the recording lists as unprotected (src/sections/power.json: the cases of the canonical suite that no broken variant of the reference core fails) still exists under its id. A case gone with its whole block is that block's finding (BQ312, BQ313, BQ305, BQ314); a case that some variant fails is BQ316's.",
        why: "Published cases stay (decisions R1): real SDK runners read them by name or position. BQ316 holds only the cases a variant fails to exist, so a case no variant fails (most traceparent, poison_dlq, delay and backoff cases) could be deleted or renamed with validate clean, and every SDK that breaks the rule it tested would pass. A case removed on purpose is removed with a new recording, whose diff shows it.",
        example: Validate(&[Remove("manifest.json", "/traceparent/cases/[garbage-header]")]),
    }
    RECORDED_CASE_CHANGED = "BQ318" "recorded-case-changed" "A case of the recorded canonical suite has other content than was recorded, and the suite is still of the recorded version." {
        Error,
        checks: "On a suite of the recorded power's version (src/sections/power.json; the same MAJOR.MINOR.PATCH, a pre-release of it included: the version being prepared), every case it records keeps the content it was recorded with: the case without its prose members (description, reason, note, ...), its block's shared fields and the section's schema, and every fixture those name, compared by a fingerprint: the manifest's part as JSON (numbers by exact value and literal type; white space, escapes, key order and prose do not count), fixtures by their bytes (they are what an SDK decodes). A case another finding is about already (BQ311, BQ316, a read or field finding at or under its pointer or its shared fields', a finding in a fixture it names; not a repeated key, BQ007, whose last value is what the fingerprint reads) is not reported again; a later version is compared with its previous release by the release gate instead (diff).",
        why: "BQ316 holds a case only to the broken variants the catalogue has, and 239 of 1.6.0's cases no variant fails: `release-exactly-43200` changed to 30000, a cap of 4500 where the case sits on the cap, traceparent's `flags-3-hex` made the same as `non-hex-flags` or a gate table's shared fixture swapped for another valid envelope all kept validate clean, and before the version's tag neither BQ956 nor the release gate compares the suite with anything. An edit made on purpose is made with a new recording (bqsuite dev kill-matrix --redis-url URL --record src/sections/power.json, then a rebuild: the recording is built into bqsuite), whose diff shows each case whose content changed; in a vendored copy the finding means the copy drifted, and bqsuite fetch restores it.",
        example: Validate(&[Set("manifest.json", "/delay/release/cases/[release-exactly-43200]/delay_seconds", "30000"), Set("manifest.json", "/delay/release/cases/[release-exactly-43200]/expect_visibility_timeout", "30000")]),
    }
    RECORDED_POLICY_CHANGED = "BQ319" "recorded-policy-changed" "A rule of the recorded canonical suite's skip policy has other content than was recorded, is new or is gone, and the suite is still of the recorded version." {
        Error,
        checks: "On a suite of the recorded power's version (src/sections/power.json; a pre-release of it included), every rule of skip_policy keeps the content the recording gives its name: the rule without its prose members (description, ...), that is its name, condition, ADRs, the cases and blocks it selects, whole_sections, all_or_none and families, compared as JSON by a fingerprint as BQ318 compares a case; no rule is added and none dropped. A rule a skip-policy finding (BQ209–BQ217) is about already, or a policy that is missing or has no rules array, is not reported again; a later version is compared with its previous release by the release gate instead (diff).",
        why: "The skip policy decides which skips a results file may hold and still be Compatible. Its shape rules (BQ208–BQ217) cannot tell a rule that was published from one that was widened: all_or_none dropped from no-live-redis (a run with a Redis could then skip exactly the Redis cases it fails), a family added to single-number-type, or a new rule for a whole otel or binding section all kept validate and release clean before the version's tag, when neither BQ956 nor the release gate compares the suite with anything. A change made on purpose is made with a new recording, whose diff shows the rule; in a vendored copy the finding means the copy drifted, and bqsuite fetch restores it.",
        example: Validate(&[Set("manifest.json", "/skip_policy/rules/[no-live-redis]/all_or_none", "false")]),
    }
    RECORDED_SCHEMA_CHANGED = "BQ320" "recorded-schema-changed" "A schema file of the recorded canonical suite has other bytes than were recorded, and the suite is still of the recorded version." {
        Error,
        checks: "On a suite of the recorded power's version (src/sections/power.json; a pre-release of it included), schema/message-envelope.schema.json and schema/results.schema.json have the bytes the recording pins (a fingerprint of their bytes, as a fixture's: a schema is what every SDK compiles and validates with). A schema file another finding is about already (BQ003, BQ402, BQ403, BQ404, BQ406, a read finding) is not reported again; a later version is compared with its previous release by the release gate instead (diff).",
        why: "BQ406 holds the results schema to a corpus of malformed files, each one change to the results example, and no corpus can be complete: a schema that is the published one when sdk is the example's and almost nothing otherwise passed it, kept validate and release clean before the version's tag, and made every other SDK's results file with twins of status in another letter case, unknown members or a generated_at of \"yesterday\" valid, for results check too when run against that copy. An edit made on purpose comes with a new recording, whose diff shows it; in a vendored copy the finding means the copy drifted, and bqsuite fetch restores it.",
        example: Validate(&[Set("schema/results.schema.json", "/properties/generated_at/description", "\"When the run happened.\"")]),
    }

    RESULTS_EXAMPLE_INVALID = "BQ401" "results-example-invalid" "schema/results.example.json does not validate against schema/results.schema.json." {
        Error,
        checks: "schema/results.example.json validates against schema/results.schema.json (Draft 2020-12).",
        why: "SDK maintainers copy the example; one that breaks the schema teaches them a results file results check refuses.",
        example: Validate(&[Set("schema/results.example.json", "/sections/cases/order-created", "{\"status\": \"skip\"}")]),
    }
    INVALID_SCHEMA = "BQ402" "invalid-schema" "A schema is not a valid schema of its draft." {
        Error,
        checks: "Each schema under schema/ is a valid schema of the draft it declares (checked against the draft's meta-schema) and compiles: every $ref resolves and every pattern is a regex, so `results check` and the producer-schema cross-checks can use it.",
        why: "SDKs validate producer output and results files with these schemas; an invalid schema is refused by some validators and silently half-applied by others.",
        example: Validate(&[Set("schema/results.schema.json", "/properties/sdk/type", "\"strin\"")]),
    }
    SCHEMA_DRAFT = "BQ403" "schema-draft" "A schema does not declare the draft the suite requires." {
        Error,
        checks: "schema/message-envelope.schema.json declares Draft-07 and schema/results.schema.json Draft 2020-12 in $schema.",
        why: "Validators pick their rules from $schema; the same schema under another draft accepts or rejects other documents.",
        example: Validate(&[Set("schema/results.schema.json", "/$schema", "\"http://json-schema.org/draft-07/schema#\"")]),
    }
    ENVELOPE_SCHEMA_CHANGED = "BQ404" "envelope-schema-changed" "schema/message-envelope.schema.json differs from the producer schema frozen for the suite's MAJOR." {
        Error,
        checks: "The SHA-256 of schema/message-envelope.schema.json's bytes equals the hash bqsuite records for the MAJOR of CONFORMANCE_VERSION (FROZEN_ENVELOPE_SCHEMA in src/validate/schemas.rs); a MAJOR without a recorded hash is reported too. schema/results.schema.json is not pinned.",
        why: "The producer schema is frozen (decisions R7, R20.8): it is byte-identical in every vendored copy and in php-sdk's bundled validator, and SDKs validate their output with it. A loosened enum, a dropped required key or a constraint turned into another passes every case that happens not to witness it, so only its bytes can be compared; it changes in a MAJOR release, which records the new hash.",
        example: Validate(&[Replace("schema/message-envelope.schema.json", "\"node\"", "\"node\", \"rust\"")]),
    }
    RESULTS_EXAMPLE_MISMATCH = "BQ405" "results-example-mismatch" "schema/results.example.json is not a results file of this suite: another conformance_version, or a section the manifest does not have." {
        Error,
        checks: "schema/results.example.json's conformance_version equals CONFORMANCE_VERSION (a pre-release's too: it is what a run of that suite writes), and every section it reports is a section of the manifest. Its case ids are not compared: the example is abbreviated.",
        why: "SDK maintainers copy the example; one that names another version or a section the manifest does not have teaches them a results file results check refuses (BQ603, BQ607), though it passes the schema.",
        example: Validate(&[Set("schema/results.example.json", "/conformance_version", "\"1.5.0\"")]),
    }
    RESULTS_SCHEMA_WEAKENED = "BQ406" "results-schema-weakened" "schema/results.schema.json accepts a results file that the spec's results format forbids." {
        Error,
        checks: "schema/results.schema.json rejects every malformed results file of a built-in corpus, each one change to schema/results.example.json: the file not an object; sdk, version, conformance_version, generated_at, bindings or sections missing; sdk or version not a non-empty string; conformance_version not SemVer; generated_at not an RFC 3339 date-time; bindings not an array, or listing a section name or a binding in another letter case; sections, a section or an outcome not an object; an outcome without a status of pass, fail or skip; a skip without a reason, or with one that cites no ADR; a reason that is not a string; beside bindings or an outcome's status, a member that differs from it only in letter case. Each one accepted is a finding at the place in the schema that governs the member. Judged when the schema is valid, compiles and accepts the example (else BQ402, BQ401). What a MINOR may add (an optional member, a binding bqsuite knows) is not refused.",
        why: "SDKs validate their results with this schema, and results check leaves to it what no verdict reads (generated_at, members the format does not name). It is not pinned by hash as the producer schema is (BQ404), because it may evolve; but a schema reduced to its $schema, with required emptied or a constraint dropped, kept validate clean while every SDK's own check of its results accepted what the spec forbids.",
        example: Validate(&[Set("schema/results.schema.json", "/required", "[\"sdk\", \"version\", \"conformance_version\", \"bindings\", \"sections\"]")]),
    }
    UNKNOWN_SCHEMA_FILE = "BQ407" "unknown-schema-file" "schema/ holds a JSON file that is none of the suite's three (message-envelope.schema.json, results.schema.json, results.example.json)." {
        Error,
        checks: "Every file under schema/ is one of schema/message-envelope.schema.json, schema/results.schema.json and schema/results.example.json, the three the spec's layout names (a file that is not .json, or is hidden, is BQ006).",
        why: "No rule reads a fourth file: a schema/results.schema.v2.json \"relaxed\" or an envelope.schema.json of just true passed validate, shipped in the release asset and every vendored copy beside the real schemas, and diff called the first editorial (documentation under schema/), so it could go out in a PATCH. An SDK author who picks up a plausible schema from a release must find only the contract's.",
        example: Validate(&[Write("schema/results.schema.v2.json", "{\"type\": \"object\"}\n")]),
    }

    COMPAT_CASE_FIELDS = "BQ501" "compat-case-fields" "A top-level case lacks a field the real SDK runners read (R20.5)." {
        Error,
        checks: "Every top-level case has name, file and valid, and a valid one an expect with urn, data, attempts, lang and schema_version.",
        why: "The published runners of the early SDKs map these fields by name and fail, or crash, on a case without them (decisions R20.5).",
        example: Validate(&[Remove("manifest.json", "/cases/[order-created]/expect/lang")]),
    }
    COMPAT_FIXTURE_OBJECT = "BQ502" "compat-fixture-object" "A top-level case fixture is not a non-empty JSON object (R20.5)." {
        Error,
        checks: "The fixture of every top-level case, valid or not, is a non-empty JSON object.",
        why: "The published runners decode the fixture into a map before they judge it; a body that is not an object belongs in a section built for it (kafka_poison, poison_dlq).",
        example: Validate(&[Write("fixtures/invalid-missing-urn.json", "[]\n")]),
    }
    COMPAT_BOM = "BQ503" "compat-bom" "A file starts with a byte-order mark (R20.5, R20.7)." {
        Error,
        checks: "No suite file starts with a UTF-8 byte-order mark.",
        why: "Strict JSON parsers (PHP json_decode, serde_json) refuse a leading BOM, so a runner would fail on the file before any case.",
        example: Validate(&[Replace("fixtures/order-created.json", "{", "\u{feff}{")]),
    }
    COMPAT_PATH = "BQ504" "compat-path" "A file reference is not a plain relative path (R20.5)." {
        Error,
        checks: "Every file reference is a plain relative path: no .., no leading /, no \\, #, ? or %, no empty or . component.",
        why: "Runners join these paths to their vendored directory in their own way; anything but a plain relative path resolves differently, or outside the copy.",
        example: Validate(&[Set("manifest.json", "/cases/[order-created]/file", "\"fixtures/../fixtures/order-created.json\"")]),
    }
    COMPAT_DEPTH = "BQ505" "compat-depth" "The manifest nests deeper than PHP json_decode allows (R20.7)." {
        Error,
        checks: "The manifest nests at most 511 levels, counted in its text (so it is reported even when it does not parse).",
        why: "PHP's json_decode stops at depth 512 by default, and the PHP SDK reads the whole manifest; deep bodies travel as strings instead (R20.7).",
        example: Validate(&[Replace("manifest.json", "\"schema_version\": 1,", "\"schema_version\": 1, \"deep_x\": {nest:600},")]),
    }
    COMPAT_LONE_SURROGATE = "BQ506" "compat-lone-surrogate" "A lone surrogate escape that strict JSON parsers refuse (R20.7)." {
        Error,
        checks: "No string in the manifest or a fixture holds a \\uD800–\\uDFFF escape that is not half of a surrogate pair.",
        why: "Strict parsers refuse a lone surrogate and lenient ones replace it, so the case would mean different bytes in different SDKs; such bodies are carried as strings or base64 (R20.7).",
        example: Validate(&[Replace("fixtures/unknown-meta-roundtrip.json", "\"eu-west-1\"", "\"eu\\ud800\"")]),
    }
    COMPAT_CASE_NAME = "BQ507" "compat-case-name" "A case name contains '/' or is not a non-empty string (R20.10)." {
        Error,
        checks: "Every case name is a non-empty string without /.",
        why: "/ separates the sub-key from the name in case ids (sequences/<name>); a name holding one makes two ids collide or an id unparseable.",
        example: Validate(&[Set("manifest.json", "/payload_schema/cases/[valid-minimal]/name", "\"a/b\"")]),
    }
    COMPAT_KEY_CASE = "BQ508" "compat-key-case" "A key differs from a mapped key only in letter case (R20.9)." {
        Error,
        checks: "No key of an object a runner maps differs from a mapped key (a section name, a case field) only in letter case.",
        why: "Go's encoding/json matches keys case-insensitively, so Valid or SQS would be read into valid or sqs (decisions R20.9).",
        example: Validate(&[Set("manifest.json", "/cases/[order-created]/Valid", "false")]),
    }
    COMPAT_TOO_FEW_CASES = "BQ509" "compat-too-few-cases" "The top-level cases array has fewer than six cases (R20.10)." {
        Error,
        checks: "The top-level cases array keeps at least six cases.",
        why: "Published runners index the first six envelope cases; fewer would crash them (decisions R20.10).",
        example: Validate(&[Remove("manifest.json", "/cases/7"), Remove("manifest.json", "/cases/6"), Remove("manifest.json", "/cases/5")]),
    }
    COMPAT_PER_MESSAGE_FIELDS = "BQ510" "compat-per-message-fields" "A valid fixture lacks a non-empty trace_id, meta.id or non-zero meta.created_at (R20.5)." {
        Error,
        checks: "The fixture of every valid top-level case has a non-empty trace_id, a non-empty meta.id and a non-zero meta.created_at.",
        why: "Runners assert the per-message fields for presence and shape; a valid fixture without them would fail every correct SDK.",
        example: Validate(&[Set("fixtures/order-created.json", "/trace_id", "\"\"")]),
    }
    ID_CONTROL_CHARACTER = "BQ511" "id-control-character" "A section name, case name or sub-key holds a control character, so its case ids cannot be printed one per line." {
        Error,
        checks: "No section name, case name or sub-key holds a control character (or another character that is unsafe on a terminal).",
        why: "Case ids are printed one per line (section<TAB>id) and used as keys of results files; a tab or newline in one breaks every tool that reads them.",
        example: Validate(&[Set("manifest.json", "/payload_schema/cases/[valid-minimal]/name", "\"valid\\tminimal\"")]),
    }
    ID_EMPTY_PART = "BQ512" "id-empty-part" "A section name or sub-key is empty, so its case ids have an empty part." {
        Error,
        checks: "No section name and no sub-key is the empty string.",
        why: "A case id with an empty part (/name) cannot be told apart from a malformed one, in results files and in skip-policy selectors.",
        example: Validate(&[Set("manifest.json", "/backoff/", "{}")]),
    }
    ID_WHITESPACE = "BQ513" "id-whitespace" "A section name, case name or sub-key starts or ends with whitespace, so its case ids differ from what anyone reads." {
        Error,
        checks: "No section name, case name or sub-key starts or ends with a whitespace character (a space, a no-break space, an ideographic space, any Unicode White_Space).",
        why: "Case ids are compared exactly (results files key their cases by them, skip-policy selectors name them), and a trailing space is invisible in every listing: a runner that writes the id it sees is told its case is unknown. Ids are frozen once released, so the mistake is caught before it is.",
        example: Validate(&[Set("manifest.json", "/payload_schema/cases/[valid-minimal]/name", "\"valid-minimal \"")]),
    }
    CASE_NAME_FORM = "BQ514" "case-name-form" "A case name is not kebab-case ASCII, or a case that must have a name has none (R2)." {
        Error,
        checks: "Every case of a cases array has a name, except the rows of a schema_version_gate table (published unnamed, ids by position), and every case name matches ^[a-z0-9]+(-[a-z0-9]+)*$ (every name of the published 1.6.0 manifest does). Two ids equal but for letter case are BQ206.",
        why: "Case ids key results files and skip-policy selectors and are frozen once released (decisions R2). An unnamed case's id is its position, which moves when a case is inserted; a name in NFC and one in NFD, a Cyrillic look-alike, a zero-width space or another letter case print the same and are different ids.",
        example: Validate(&[Set("manifest.json", "/payload_schema/cases/[valid-minimal]/name", "\"Valid-Minimal\"")]),
    }

    RESULTS_NOT_JSON = "BQ601" "results-not-json" "A results file is not UTF-8 JSON text." {
        Error,
        checks: "A results file is UTF-8, without a byte-order mark, and parses as JSON; a file that starts with a byte-order mark or is UTF-16 (what .NET's Encoding.UTF8 and PowerShell 5's > write) is told so.",
        why: "Nothing in a file that does not parse can be checked: the SDK's verdict is unknown.",
        example: Results { edits: &[Write("results.json", "all 422 cases passed\n")], args: &[] },
    }
    RESULTS_SCHEMA = "BQ602" "results-schema" "A results file violates schema/results.schema.json." {
        Error,
        checks: "A results file validates against schema/results.schema.json: sdk, version, conformance_version, generated_at, bindings and sections, each case {status: pass | fail | skip, reason?}.",
        why: "The results format (ADR-0032) is how every SDK reports; report and the CI checks read any file the schema allows, and nothing else.",
        example: Results { edits: &[Set("results.json", "/generated_at", "\"yesterday\"")], args: &[] },
    }
    RESULTS_VERSION_MISMATCH = "BQ603" "results-version-mismatch" "A results file ran a suite version other than the one it is checked against." {
        Error,
        checks: "A results file's conformance_version equals the version of the suite it is checked against; the case ids are not compared then, since they belong to another manifest.",
        why: "Case ids and expectations change between versions; a file is only meaningful against the suite it ran (check it with --suite pointing at a copy of that version).",
        example: Results { edits: &[Set("results.json", "/conformance_version", "\"1.5.0\"")], args: &[] },
    }
    RESULTS_BINDING_UNDER_EXCEPTION = "BQ604" "results-binding-under-exception" "A results file lists a binding that an exceptions entry excludes for the SDK's family." {
        Error,
        checks: "bindings lists no binding that an exceptions entry excludes for the SDK's family (the family is derived from sdk: php-sdk is php).",
        why: "An exception records that a family has no conformant path for a binding (PHP and Azure Service Bus, ADR-0021); claiming the binding anyway contradicts the decision.",
        example: Results { edits: &[Set("results.json", "/sdk", "\"php-sdk\"")], args: &[] },
    }
    RESULTS_MISSING_SECTION = "BQ605" "results-missing-section" "A required section (core, or of a carried binding) is absent from a results file." {
        Error,
        checks: "Every required section is present: every core section plus the sections of every binding listed in bindings.",
        why: "Leaving a section out is not a way to narrow the scope: a package that does not run an in-scope section is not Compatible (ADR-0032).",
        example: Results { edits: &[Remove("results.json", "/sections/roundtrip")], args: &[] },
    }
    RESULTS_OUT_OF_SCOPE_SECTION = "BQ606" "results-out-of-scope-section" "A results file reports a section whose scope the SDK does not carry." {
        Error,
        checks: "No section is reported whose scope is neither core nor a binding in bindings (nor one its family's exception excludes).",
        why: "bindings must be complete; a section reported beyond it means bindings leaves out a binding the package carries.",
        example: Results {
            edits: &[Set("results.json", "/bindings", "[\"redis\", \"amqp\", \"sqs\", \"asb\", \"pulsar\", \"artemis\", \"otel\"]")],
            args: &[],
        },
    }
    RESULTS_UNKNOWN_SECTION = "BQ607" "results-unknown-section" "A results file reports a section the suite does not have." {
        Error,
        checks: "Every section a results file reports exists in the suite.",
        why: "A section the suite does not have was run against another manifest, or its name is misspelt and the real section is missing.",
        example: Results { edits: &[Set("results.json", "/sections/mqtt", "{\"connect\": {\"status\": \"pass\"}}")], args: &[] },
    }
    RESULTS_MISSING_CASE = "BQ608" "results-missing-case" "A case id of a required section is absent from a results file." {
        Error,
        checks: "Every case id of every required section (ids from the one case-id rule) is reported.",
        why: "A real results file lists every case of every in-scope section; a case not reported was not run, and an unrun case is not a pass.",
        example: Results { edits: &[Remove("results.json", "/sections/cases/order-created")], args: &[] },
    }
    RESULTS_UNKNOWN_CASE = "BQ609" "results-unknown-case" "A results file reports a case id its section does not have." {
        Error,
        checks: "Every case id reported in a section is an id of that section.",
        why: "An id the section does not have comes from another version or a runner that builds ids its own way, so the case it meant is probably missing.",
        example: Results { edits: &[Set("results.json", "/sections/cases/order-shipped", "{\"status\": \"pass\"}")], args: &[] },
    }
    RESULTS_SKIP_WITHOUT_ADR = "BQ610" "results-skip-without-adr" "A skip has no reason citing the ADR (ADR-NNNN) that makes the case not applicable." {
        Error,
        checks: "A skip of a case the skip policy allows to skip has a reason that cites an ADR as ADR- and four digits, standing as a word of its own: no letter or digit of any script, nor a zero-width character, right before or right after it (ADR-0033: and (ADR-0033) cite ADR-0033; XADR-0033, ADR-0033x, ADR-0033é and ADR-00331 cite nothing). The results schema's pattern ADR-[0-9]{4} is looser on purpose, so that an SDK's own validator can apply it in any regex dialect; this is the rule results check judges by.",
        why: "A skip is only for a case an ADR makes not applicable, and the reason must say which (ADR-0032).",
        example: Results {
            edits: &[Set("results.json", "/sections/encode_reject/reject-repeated-key", "{\"status\": \"skip\", \"reason\": \"our write API takes one map per call\"}")],
            args: &[],
        },
    }
    RESULTS_SKIP_OUT_OF_SCOPE = "BQ611" "results-skip-out-of-scope" "A skip is reported in a section that is not in the SDK's scope." {
        Error,
        checks: "No skip is reported in a section whose scope the SDK does not carry.",
        why: "A skip is for one case of an in-scope section; a section out of scope is left out of the file, not skipped.",
        example: Results {
            edits: &[
                Set("results.json", "/bindings", "[\"redis\", \"amqp\", \"sqs\", \"asb\", \"pulsar\", \"artemis\", \"otel\"]"),
                Set("results.json", "/sections/kafka_poison/job-only", "{\"status\": \"skip\", \"reason\": \"no Kafka transport (ADR-0032)\"}"),
            ],
            args: &[],
        },
    }
    RESULTS_CASE_FAILED = "BQ612" "results-case-failed" "A results file reports a case as failed." {
        Error,
        checks: "No case is reported with status fail; the finding quotes the file's reason.",
        why: "A failing case is a deviation from the wire contract: a message this SDK produces or consumes may not interoperate with the others.",
        example: Results {
            edits: &[Set("results.json", "/sections/cases/order-created", "{\"status\": \"fail\", \"reason\": \"accepts() returned false\"}")],
            args: &[],
        },
    }
    RESULTS_SKIP_NOT_ALLOWED = "BQ613" "results-skip-not-allowed" "A results file skips a case the suite's skip policy does not allow to be skipped." {
        Error,
        checks: "Every skip is of a case a skip-policy rule selects; a skip of any other case is reported, whatever its reason.",
        why: "Skips are not a way to leave work out: a case not yet wired, an unknown block or a deviation from the contract is a failure to fix (ADR-0032).",
        example: Results {
            edits: &[Set("results.json", "/sections/cases/order-created", "{\"status\": \"skip\", \"reason\": \"not wired yet (ADR-0032)\"}")],
            args: &[],
        },
    }
    RESULTS_SKIP_WRONG_ADR = "BQ614" "results-skip-wrong-adr" "A skip's reason cites none of the ADRs the skip policy allows for that case." {
        Error,
        checks: "A skip of an allowed case cites at least one of the ADRs of a rule that selects the case.",
        why: "The ADR is the reason the case does not apply; citing another one means the skip rests on a decision that does not cover it.",
        example: Results {
            edits: &[Set("results.json", "/sections/encode_reject/reject-repeated-key", "{\"status\": \"skip\", \"reason\": \"one map per call (ADR-0032)\"}")],
            args: &[],
        },
    }
    RESULTS_SECTION_NOT_RUN = "BQ615" "results-section-not-run" "Every case a results file reports for a required section is a skip: the section was not run." {
        Error,
        checks: "A required section has at least one case that is not a skip, unless a rule lists the section in whole_sections (as no-live-redis lists redis).",
        why: "Skipping every case of a section is leaving the section out under another name.",
        example: Results {
            edits: &[Set("results.json", "/sections/rabbitmq/property_projection", "{\"status\": \"skip\", \"reason\": \"no broker here (ADR-0032)\"}")],
            args: &[],
        },
    }
    RESULTS_TOO_MANY_SKIPS = "BQ616" "results-too-many-skips" "A results file has more skips than --max-skips allows." {
        Error,
        checks: "With --max-skips N, a results file has at most N skips in all.",
        why: "An SDK whose CI has a live Redis can demand that nothing is skipped (--max-skips 0), so a Redis that silently went missing turns the job red.",
        example: Results { edits: &[], args: &["--max-skips", "0"] },
    }
    RESULTS_DUPLICATE_KEY = "BQ617" "results-duplicate-key" "A results file repeats a key in one object (a case reported twice, a section listed twice)." {
        Error,
        checks: "No object of a results file repeats a member name; the finding gives both locations.",
        why: "A case reported fail and then pass would be read as a pass by most parsers; the file must say one thing.",
        example: Results {
            edits: &[Replace("results.json", "\"sdk\": \"bqsuite-reference\",", "\"sdk\": \"bqsuite-reference\", \"sdk\": \"bqsuite-reference\",")],
            args: &[],
        },
    }
    RESULTS_TOO_DEEP = "BQ618" "results-too-deep" "A results file nests deeper than the parser's limit (127 levels)." {
        Error,
        checks: "A results file nests at most 127 levels.",
        why: "The results format needs four levels; a deeper file is not a results file, and reading it without a limit would risk the checker's stack.",
        example: Results { edits: &[Replace("results.json", "\"sdk\":", "\"deep\": {nest:200}, \"sdk\":")], args: &[] },
    }
    RESULTS_NO_STATUS = "BQ619" "results-no-status" "A results file reports a case without a status of pass, fail or skip." {
        Error,
        checks: "Every reported case has status pass, fail or skip, whatever the suite's results schema allows.",
        why: "A case reported as passed, ok or nothing at all is not a pass; judging it here, not only by the schema, means a weakened results schema cannot turn an unjudged case into a Compatible verdict.",
        example: Results { edits: &[Set("results.json", "/sections/cases/order-created", "{\"status\": \"passed\"}")], args: &[] },
    }
    RESULTS_MALFORMED = "BQ620" "results-malformed" "A results file lacks a member the verdict reads (sdk, version, conformance_version, bindings, sections) or gives it a shape the results format does not allow." {
        Error,
        checks: "Whatever the suite's results schema allows: the file is one JSON object; sdk and version are non-empty strings, names as package registries write them (printable ASCII without white space: no control, bidirectional, invisible or look-alike character); conformance_version is a string; bindings is an array whose every entry names a binding (redis, amqp, sqs, asb, pulsar, kafka, artemis, otel); sections is an object whose every value is an object. The schema's report of the same member gives way to it.",
        why: "The verdict is computed from these members, and a member of the wrong shape reads as absent: bindings [\"rabbitmq\"] or \"redis sqs\" carries no binding, so no binding section is required, and a section that is an array reports no case and misses none. Judging them here, not only by the schema, means a weakened or edited results schema cannot turn such a file into a Compatible verdict.",
        example: Results { edits: &[Set("results.json", "/sections/cases", "[\"order-created\", \"urn-alias\"]")], args: &[] },
    }
    KNOWN_FAILING_STALE = "BQ621" "known-failing-stale" "A case a --known-failing list names did not fail: it passed, was skipped, was not reported, or the suite has no such case." {
        Error,
        checks: "With --known-failing FILE (results check, and run --sdk for the cases it runs), every case the list names fails in the results; the finding is at the entry's line of the list. The list never changes a verdict: it only keeps the failures it names out of the exit code.",
        why: "A list of known failures lets an SDK hold what it has reached before it passes everything, and it must only shrink: an entry that no longer fails would hide the day the case breaks again, and an entry for a case that does not exist hides nothing but says it does.",
        example: Results { edits: &[Write("known-failing.txt", "cases\torder-created\n")], args: &["--known-failing", "known-failing.txt"] },
    }
    RESULTS_OTHER_SDK = "BQ622" "results-other-sdk" "A results file's sdk is not the SDK results check was told to expect (--sdk): another SDK's results, or the reference core's." {
        Error,
        checks: "With --sdk NAME (results check; the GitHub Action's sdk input), every results file's sdk is exactly NAME, the name the SDK writes as sdk in its results file. A file whose sdk is no string is BQ620's, not this code's.",
        why: "A results file says which SDK ran, and nothing else ties it to the repository whose CI checks it: the reference core's own results (bqsuite run without --sdk, or the adapter bqsuite adapter, both write sdk bqsuite-reference) or a sibling SDK's file copied in are Compatible, so a job that checks them goes green on conformance its SDK never showed.",
        example: Results { edits: &[], args: &["--sdk", "babelqueue-node"] },
    }
    SYNC_TARGETS_SHAPE = "BQ701" "sync-targets-shape" "sync-targets.json is not {schema_version: 1, description?, targets: [...]} with a non-empty targets array." {
        Error,
        checks: "sync-targets.json (and a --targets FILE) is an object with schema_version the integer 1, an optional string description, a non-empty targets array and no other key.",
        why: "sync writes into the directories this file names; a file of another shape is refused before anything is written.",
        example: Validate(&[Set("sync-targets.json", "/schema_version", "2")]),
    }
    SYNC_TARGET_SHAPE = "BQ702" "sync-target-shape" "A sync target is not an object with exactly the string fields repo and path." {
        Error,
        checks: "Every target is an object with exactly the string fields repo and path.",
        why: "A field sync does not know (a branch, a pin) would be ignored silently while its author expects it to apply.",
        example: Validate(&[Set("sync-targets.json", "/targets/0/branch", "\"main\"")]),
    }
    SYNC_TARGET_REPO = "BQ703" "sync-target-repo" "A sync target's repo is not one plain directory name." {
        Error,
        checks: "A target's repo is one plain directory name under the sync root (no /, no .., not empty).",
        why: "The repository is looked up under the sync root; a path in its name could reach outside it.",
        example: Validate(&[Set("sync-targets.json", "/targets/0/repo", "\"sdks/php-sdk\"")]),
    }
    SYNC_TARGET_PATH = "BQ704" "sync-target-path" "A sync target's path is not a plain relative path inside its repository (no '..', '.', empty or .git components)." {
        Error,
        checks: "A target's path is a plain relative path with no ., .., empty or .git component.",
        why: "sync replaces the directory at that path; the rule keeps it inside the SDK repository and out of its git metadata.",
        example: Validate(&[Set("sync-targets.json", "/targets/0/path", "\"tests/../conformance\"")]),
    }
    SYNC_TARGET_OVERLAP = "BQ705" "sync-target-overlap" "Two sync targets name the same directory, or one lies inside the other." {
        Error,
        checks: "No two targets of one repository name the same directory or nested directories.",
        why: "Syncing one copy would rewrite the other, so the two could never both be exact.",
        example: Validate(&[Set("sync-targets.json", "/targets/-", "{\"repo\": \"php-sdk\", \"path\": \"tests\"}")]),
    }
    SYNC_REPO_MISSING = "BQ706" "sync-repo-missing" "An SDK repository is not under the sync root: the target is skipped (an error under --strict)." {
        Warning("an error under --strict"),
        checks: "The repository of every selected target exists under the sync root; a missing one is skipped and reported.",
        why: "A maintainer may have only some SDKs cloned, so a missing one is a warning; a CI job that must see every SDK passes --strict.",
        example: Sync { edits: &[Delete("babelqueue-python")], args: &["--check"] },
    }
    SYNC_COPY_MISSING = "BQ707" "sync-copy-missing" "An SDK repository has no vendored copy at the target's path." {
        Error,
        checks: "sync --check: the repository holds a vendored copy at the target's path (sync itself creates it).",
        why: "An SDK without its copy runs no conformance tests at all, or runs them from somewhere else.",
        example: Sync { edits: &[Delete("php-sdk/tests/conformance")], args: &["--check"] },
    }
    SYNC_FILE_ADDED = "BQ708" "sync-file-added" "A vendored copy holds a file the canonical suite does not (stale or foreign; a top-level LICENSE is ignored)." {
        Error,
        checks: "sync --check: the copy holds no file (or directory, or symbolic link) that the canonical suite does not; a top-level LICENSE is ignored.",
        why: "A stale fixture or a local addition makes the copy differ from the release the SDK claims to run; its CI diff against the tag would fail too.",
        example: Sync { edits: &[Write("php-sdk/tests/conformance/fixtures/old.json", "{}\n")], args: &["--check"] },
    }
    SYNC_FILE_REMOVED = "BQ709" "sync-file-removed" "A vendored copy lacks a file of the canonical suite." {
        Error,
        checks: "sync --check: the copy holds every file of the canonical suite's vendored set (CONFORMANCE_VERSION, manifest.json, schema/, fixtures/).",
        why: "A missing fixture makes its cases fail or be skipped in that SDK.",
        example: Sync { edits: &[Delete("php-sdk/tests/conformance/fixtures/urn-alias.json")], args: &["--check"] },
    }
    SYNC_FILE_MODIFIED = "BQ710" "sync-file-modified" "A vendored file's bytes differ from the canonical file." {
        Error,
        checks: "sync --check: every vendored file is byte for byte the canonical one (a unified diff is shown for text).",
        why: "A hand-edited copy tests the SDK against expectations nobody released.",
        example: Sync {
            edits: &[Replace("php-sdk/tests/conformance/manifest.json", "\"schema_version\": 1", "\"schema_version\": 2")],
            args: &["--check"],
        },
    }
    SYNC_UNSAFE_TARGET = "BQ711" "sync-unsafe-target" "A vendored directory, or a directory above it, is a symlink leading out of its repository or not a directory, or the directory sync would replace is not a copy: refused." {
        Error,
        checks: "The vendored directory and every directory above it inside the repository are directories, or symbolic links that stay inside the repository (and out of its root and .git); the vendored directory is not the canonical suite's own directory, inside it or above it; and, for sync and --dry-run, an existing vendored directory holds no .git, nothing at its top level a copy never holds, and CONFORMANCE_VERSION or manifest.json (an empty one is written), whether sync-targets.json names it directly or a symbolic link leads to it. No flag overrides the refusal: a maintainer who means to replace such a directory removes it by hand.",
        why: "sync replaces the vendored directory; following a link out of the repository would write somewhere else on the machine, a target at or around the suite would overwrite or delete the suite it copies, and a target such as src or .github/workflows in the targets file (which a pull request can change), or a link such as conformance -> ., would make it delete the SDK's own files.",
        example: Sync {
            edits: &[Delete("php-sdk/tests/conformance"), Symlink("php-sdk/tests/conformance", "../../babelqueue-python/tests/conformance")],
            args: &["--check"],
        },
    }
    SYNC_IO_FAILED = "BQ712" "sync-io-failed" "Reading or writing a vendored copy failed (a failed write keeps the old copy)." {
        Error,
        checks: "Every vendored copy can be read (each file within the 64 MiB cap) and, by sync, written; the error is quoted.",
        why: "A copy that cannot be read cannot be compared, and a write that failed left the old copy in place, so the target is not in sync.",
        example: Sync { edits: &[Grow("php-sdk/tests/conformance/fixtures/huge.json", 67_108_865)], args: &["--check"] },
    }
    SYNC_DOWNGRADE = "BQ713" "sync-downgrade" "A vendored copy is newer than the canonical suite: refused to downgrade it." {
        Error,
        checks: "sync does not replace a copy whose CONFORMANCE_VERSION is newer than the canonical suite's.",
        why: "A checkout of an older suite must not roll an SDK back; update this checkout instead.",
        example: Sync { edits: &[Write("php-sdk/tests/conformance/CONFORMANCE_VERSION", "{next-minor}\n")], args: &[] },
    }
    PIN_BEHIND = "BQ714" "pin-behind" "An SDK's vendored copy and CI pin agree on a version older than the canonical suite." {
        Warning,
        checks: "The copy's CONFORMANCE_VERSION and the tag the SDK's CI workflows pin (--branch vX.Y.Z, or BabelQueue/conformance@vX.Y.Z) agree on a version older than the canonical suite's.",
        why: "Such an SDK stays green in its own CI while it lags behind; sync --check is where that shows.",
        example: Sync {
            edits: &[
                Write("php-sdk/tests/conformance/CONFORMANCE_VERSION", "1.0.0\n"),
                Replace("php-sdk/.github/workflows/ci.yml", "--branch v{version}", "--branch v1.0.0"),
            ],
            args: &["--check"],
        },
    }
    PIN_AHEAD = "BQ715" "pin-ahead" "An SDK's vendored copy and CI pin agree on a version newer than the canonical suite." {
        Warning,
        checks: "The copy and its CI pin agree on a version newer than the canonical suite's.",
        why: "This checkout is behind the SDK: update it before syncing.",
        example: Sync {
            edits: &[
                Write("php-sdk/tests/conformance/CONFORMANCE_VERSION", "{next-minor}\n"),
                Replace("php-sdk/.github/workflows/ci.yml", "--branch v{version}", "--branch v{next-minor}"),
            ],
            args: &["--check"],
        },
    }
    PIN_MISMATCH = "BQ716" "pin-mismatch" "An SDK's CI pins a tag other than the version of its vendored copy." {
        Warning,
        checks: "The tag the SDK's CI pins equals the copy's CONFORMANCE_VERSION.",
        why: "The SDK's CI diffs its copy against the pinned tag, so a copy re-vendored without bumping the pin (or the reverse) turns that CI red.",
        example: Sync { edits: &[Replace("php-sdk/.github/workflows/ci.yml", "--branch v{version}", "--branch v1.0.0")], args: &["--check"] },
    }
    PIN_CONFLICT = "BQ717" "pin-conflict" "An SDK's CI workflows pin several different suite tags." {
        Warning,
        checks: "All the suite pins in one repository's workflows name the same tag.",
        why: "With two pins, one job checks the copy against one release and another against a second; at most one can pass.",
        example: Sync {
            edits: &[Write("php-sdk/.github/workflows/nightly.yml", "on: push\njobs:\n  old:\n    runs-on: ubuntu-latest\n    steps:\n      - run: git clone --depth 1 --branch v1.0.0 https://github.com/BabelQueue/conformance suite\n")],
            args: &["--check"],
        },
    }
    PIN_MISSING = "BQ718" "pin-missing" "An SDK's CI workflows pin no suite tag (a clone of the suite with --branch vX.Y.Z, or its action at vX.Y.Z)." {
        Warning,
        checks: "At least one workflow under .github/workflows pins a suite tag.",
        why: "Without a pin the SDK's CI cannot check its copy against a release, so drift goes unnoticed there.",
        example: Sync { edits: &[Delete("php-sdk/.github/workflows/ci.yml")], args: &["--check"] },
    }
    SYNC_STAGING_LEFTOVER = "BQ719" "sync-staging-leftover" "A staging area of an interrupted bqsuite run sits beside a vendored copy (an error under --check; sync removes it, or restores the old copy it holds when the copy is missing, or, when several old copies lie beside a missing copy, keeps them and writes no copy until one is moved back)." {
        Error("a warning from sync, which removes the leftover (or restores the old copy it holds); an error when it cannot tell which old copy to restore"),
        checks: "sync --check: no staging sibling of an interrupted run (.<name>.bqsuite-<kind>-<32 hex>) lies beside a vendored copy.",
        why: "A git add -A in the SDK would commit the leftover; only a kill no handler sees (SIGKILL, a crash) leaves one behind, and the next sync cleans it up.",
        example: Sync {
            edits: &[Write("php-sdk/tests/.conformance.bqsuite-stage-0123456789abcdef0123456789abcdef/manifest.json", "{}\n")],
            args: &["--check"],
        },
    }
    SYNC_COPY_UNCOMMITTED = "BQ720" "sync-copy-uncommitted" "A vendored copy holds uncommitted changes in its SDK repository: sync does not replace it without --allow-dirty (fetch --update refuses likewise)." {
        Error,
        checks: "Before sync (or --dry-run, or fetch --update) replaces a vendored copy, git status lists no modified, staged, deleted or untracked file under it in its repository's work tree (ignored files do not count; a copy with no .git in its directory or above it has no committed state and is replaced; where git cannot answer, the target fails, BQ712).",
        why: "Replacing the copy would lose those changes where git cannot bring them back: a case being drafted in the SDK's copy, or a previous sync not yet committed. Commit or stash them first, or pass --allow-dirty to replace them, as cargo fix asks.",
        example: Sync { edits: &[Write("php-sdk/tests/conformance/fixtures/draft.json", "{}\n")], args: &[] },
    }
    SYNC_COPY_ELSEWHERE = "BQ721" "sync-copy-elsewhere" "An SDK repository keeps its copy at another path than the sync target's: another directory holds a copy, or its workflow's vendored: input names another path." {
        Warning("an error from sync and --dry-run, which refuse to create a second copy beside the one the repository keeps"),
        checks: "For every located target: when the target's directory is missing, no other directory of the repository holds a copy (a CONFORMANCE_VERSION and a manifest.json; .git, hidden directories and node_modules are not searched); and when the repository's workflows give the suite's action a vendored: input, one of its paths is the target's.",
        why: "A repository that moved its copy (tests/conformance-suite, say) while sync-targets.json kept the old path is reported missing, and a sync would create a second copy that nothing tests while the one its CI checks stays old. The target's path in sync-targets.json is what to fix.",
        example: Sync {
            edits: &[Delete("php-sdk/tests/conformance"), Write("php-sdk/spec/conformance/CONFORMANCE_VERSION", "{version}\n"), Write("php-sdk/spec/conformance/manifest.json", "{}\n")],
            args: &["--check"],
        },
    }
    SYNC_TARGET_SHARED = "BQ722" "sync-target-shared" "Two sync targets are one directory: one target's path leads, through a symlink inside its repository, to another target's copy." {
        Warning,
        checks: "No two located targets resolve to the same real directory (a copy symlinked to another target's copy inside one repository).",
        why: "Such a copy is one copy counted as two: the report and its counts name it twice, a sync writes it twice, and whichever of the two paths a runner or CI reads, the targets file claims a copy that does not exist on its own. Remove one of the two targets from sync-targets.json, or replace the symlink with a copy.",
        example: Sync {
            edits: &[
                Write("targets.json", "{\"schema_version\": 1, \"targets\": [{\"repo\": \"php-sdk\", \"path\": \"tests/conformance\"}, {\"repo\": \"php-sdk\", \"path\": \"tests/conformance-link\"}, {\"repo\": \"babelqueue-python\", \"path\": \"tests/conformance\"}]}\n"),
                Symlink("php-sdk/tests/conformance-link", "conformance"),
            ],
            args: &["--check", "--targets", "root/targets.json"],
        },
    }
    COPY_EDITED = "BQ723" "copy-edited" "A vendored copy states an older release (for fetch --check, another one) but differs from that release's own files: local edits, which an upgrade discards (sync, fetch --check)." {
        Error("a warning from sync and --dry-run, which report what they do to the edits"),
        checks: "For a copy whose CONFORMANCE_VERSION names a release V other than the one it is compared with (older than the canonical suite, for sync; other than VERSION, for fetch --check), the copy against V's own copy files, byte for byte (CONFORMANCE_VERSION, manifest.json, schema/, fixtures/; a top-level LICENSE is ignored), as sync --check compares a copy with the suite: sync reads V from the v<V> tag of the canonical suite's git repository (one whose CONFORMANCE_VERSION at the suite's path says V), without network; fetch --check reads V's release asset when --base-url is a file:// mirror. One finding per copy, naming the first edited paths and how many; the JSON report lists them all.",
        why: "A copy behind the suite drifts from it anyway, so its drift findings cannot tell 1.5.0 untouched (it only needs the upgrade) from 1.5.0 with fixtures patched by hand: the SDK has been tested against a contract nobody released, and the upgrade silently discards the patch. To keep the edits, record them upstream (a pull request or an issue on the suite) before upgrading; to discard them, run the upgrade the finding names (bqsuite sync --only REPO/PATH, or bqsuite fetch --update VERSION DIR).",
        example: Upgrade(&[Replace("php-sdk/tests/conformance/manifest.json", "\"schema_version\": 1", "\"schema_version\": 2")]),
    }
    COPY_EDITS_UNKNOWN = "BQ724" "copy-edits-unknown" "A vendored copy states an older release (for fetch --check, another one) whose own files cannot be read here, so whether it holds local edits cannot be told (sync, fetch --check)." {
        Warning,
        checks: "Where BQ723 would judge a copy, the release it states cannot be read without guessing: the canonical suite's repository has no v<V> tag that releases the suite (never released, or tags not fetched), it is a shallow clone that may lack the tag, the suite is in no git repository, V is a -pre version (never tagged), or fetch --check was given no file:// mirror. The finding says which, and gives the command that tells it (git fetch --tags, or bqsuite fetch --check V DIR).",
        why: "Silence would read as an untouched copy. A maintainer scanning many copies needs to know which ones were not judged, and why, before an upgrade discards edits nobody saw.",
        example: Upgrade(&[Write("php-sdk/tests/conformance/CONFORMANCE_VERSION", "1.0.0\n")]),
    }

    PRODUCER_SCHEMA_FAILS = "BQ801" "producer-schema-fails" "A roundtrip or forbidden_keys fixture fails the producer schema, and its case does not say producer_schema_valid: false." {
        Error,
        checks: "Every roundtrip and forbidden_keys fixture passes the producer envelope schema (Draft-07, formats not asserted), and writes each member the schema types integer (attempts, meta.schema_version, meta.created_at, dead_letter.attempts, dead_letter.failed_at) as an integer literal, not 7.0 or 7e0, which Draft-07 lets pass but most SDKs' JSON readers take for a float; unless its case says producer_schema_valid: false.",
        why: "These fixtures stand for messages a producer emitted; one that fails the schema must be marked a consumer tolerance, so nobody takes it for valid producer output.",
        example: Validate(&[Remove("manifest.json", "/roundtrip/cases/[unknown-lang]/producer_schema_valid")]),
    }
    PRODUCER_SCHEMA_FLAG_LIES = "BQ802" "producer-schema-flag-lies" "A case says producer_schema_valid: false, but its fixture passes the producer schema." {
        Error,
        checks: "A fixture whose case says producer_schema_valid: false really is no producer output: it fails the producer schema, or writes a member the schema types integer with a fraction or an exponent (BQ801's rule).",
        why: "The flag tells SDK maintainers the fixture is a consumer tolerance; on a valid fixture it teaches the opposite of the truth.",
        example: Validate(&[Set("manifest.json", "/roundtrip/cases/[unknown-meta-roundtrip]/producer_schema_valid", "false")]),
    }
    REJECTED_FIXTURE_PASSES_SCHEMA = "BQ803" "rejected-fixture-passes-schema" "A data_shape decode case with valid: false has a fixture that passes the producer schema." {
        Error,
        checks: "The fixture of a data_shape decode case with valid: false fails the producer schema.",
        why: "The case pins a rejection the schema also makes (data must be an object); a fixture the schema accepts tests something else.",
        example: Validate(&[Set("fixtures/data-array-rejected.json", "/data", "{}")]),
    }
    BAD_POINTER = "BQ804" "bad-pointer" "A JSON pointer in a behaviour section is not a string holding a valid RFC 6901 pointer." {
        Error,
        checks: "Every JSON pointer of the behaviour sections (forbidden_key, the keys of expect_preserved and expect_after_reencode, expect_absent_after_reencode, expect_warnings) is a valid RFC 6901 pointer: empty, or / followed by reference tokens, ~ only in ~0 and ~1.",
        why: "Runners resolve these pointers in their own JSON libraries; an invalid one resolves differently, or not at all, in each.",
        example: Validate(&[Set("manifest.json", "/forbidden_keys/cases/[forbidden-key-meta-ts]/forbidden_key", "\"meta/ts\"")]),
    }
    PRESERVED_POINTER_MISSING = "BQ805" "preserved-pointer-missing" "An expect_preserved pointer does not exist in its case's fixture." {
        Error,
        checks: "Every expect_preserved pointer exists in the case's fixture.",
        why: "Preserved means unchanged: a value the fixture does not carry cannot be preserved; a value the SDK derives belongs in expect_after_reencode.",
        example: Validate(&[Set("manifest.json", "/roundtrip/cases/[unknown-meta-roundtrip]/expect_preserved/~1meta~1origin", "\"eu\"")]),
    }
    PRESERVED_VALUE_DIFFERS = "BQ806" "preserved-value-differs" "An expect_preserved value is not the value at that pointer in the fixture (preserved means unchanged)." {
        Error,
        checks: "Every expect_preserved value is the same value (the suite's same-value rule) as the fixture holds at that pointer.",
        why: "A preserved value that differs from its input asks the SDK to change data it must leave alone.",
        example: Validate(&[Set("manifest.json", "/forbidden_keys/cases/[forbidden-key-job-and-urn]/expect_preserved/~1job", "\"urn:babel:orders:placed\"")]),
    }
    FORBIDDEN_KEY_MISSING = "BQ807" "forbidden-key-missing" "A forbidden_key pointer does not exist in its case's fixture." {
        Error,
        checks: "A forbidden_keys case's forbidden_key exists in its fixture.",
        why: "The case asserts a warning on decode for that key; a fixture without it cannot make a correct SDK warn.",
        example: Validate(&[Set("manifest.json", "/forbidden_keys/cases/[forbidden-key-meta-ts]/forbidden_key", "\"/meta/origin\"")]),
    }
    FORBIDDEN_KEY_NOT_ABSENT = "BQ808" "forbidden-key-not-absent" "A forbidden_keys case does not list its forbidden_key in expect_absent_after_reencode." {
        Error,
        checks: "A forbidden_keys case lists its forbidden_key in expect_absent_after_reencode.",
        why: "Decode may tolerate a forbidden key, but encode must never emit it (K-15); the case must check that it is gone.",
        example: Validate(&[Set("manifest.json", "/forbidden_keys/cases/[forbidden-key-meta-ts]/expect_absent_after_reencode", "[\"/meta/queue\"]")]),
    }
    ABSENT_POINTER_MISSING = "BQ809" "absent-pointer-missing" "An expect_absent_after_reencode pointer does not exist in its case's fixture, so the check could never fail." {
        Error,
        checks: "Every expect_absent_after_reencode pointer exists in the case's fixture.",
        why: "Asserting that a key the input never had is absent after re-encoding can never fail, so it pins nothing.",
        example: Validate(&[Set("manifest.json", "/roundtrip/cases/[urn-only-roundtrip]/expect_absent_after_reencode", "[\"/urn\", \"/timestamp\"]")]),
    }
    OFFENDING_KEY_NOT_IN_INPUT = "BQ811" "offending-key-not-in-input" "An encode_reject offending_key is not a key of the case's input." {
        Error,
        checks: "An encode_reject case's offending_key is a key of its input (meta, meta_entries, extras_top or extras_meta).",
        why: "A runner may assert that the error names the offending key; a key the input does not hold makes that assertion wrong.",
        example: Validate(&[Set("manifest.json", "/encode_reject/cases/[reject-top-level-timestamp]/offending_key", "\"ts\"")]),
    }
    PAYLOAD_SCHEMA_VERDICT = "BQ820" "payload-schema-verdict" "A payload_schema / payload_schema_unicode case's valid flag disagrees with the Draft-07 verdict." {
        Error,
        checks: "Each payload_schema and payload_schema_unicode verdict is recomputed with an independent Draft-07 validator; valid must match it.",
        why: "Every SDK's optional payload validator must reach the Draft-07 verdict; a case that states another one would fail the correct validators.",
        example: Validate(&[Set("manifest.json", "/payload_schema/cases/[invalid-below-minimum]/valid", "true")]),
    }
    PAYLOAD_SCHEMA_CASE = "BQ821" "payload-schema-case" "A payload-schema section's schema does not compile with a Draft-07 validator." {
        Error,
        checks: "The schema of payload_schema and payload_schema_unicode compiles with a Draft-07 validator.",
        why: "Verdicts against a schema that is not a schema mean nothing, and SDK validators refuse it differently.",
        example: Validate(&[Set("manifest.json", "/payload_schema/schema/type", "\"strin\"")]),
    }
    INVALID_UTF8_MARK = "BQ823" "invalid-utf8-mark" "A case expecting raw_encoding base64 has a body that is valid UTF-8, or an invalid-UTF-8 body does not expect it." {
        Error,
        checks: "A poison_dlq case expects raw_encoding: base64 exactly when its body is not valid UTF-8.",
        why: "ADR-0035: a wrapper carries the plain string for valid UTF-8 and base64 only for bytes that are not; the other way round is a record no writer may produce.",
        example: Validate(&[
            Set("manifest.json", "/poison_dlq/cases/[invalid-utf8-byte]/body_base64", "\"e30=\""),
            Set("manifest.json", "/poison_dlq/cases/[invalid-utf8-byte]/expect/record/raw", "\"e30=\""),
        ]),
    }
    POISON_EXPECTATION = "BQ825" "poison-expectation" "A poison_dlq expectation contradicts its body (wrapper raw, splice record, shape, splice literals or keys)." {
        Error,
        checks: "Each poison_dlq expectation is rederived from its body: the shape (splice, wrapper, splice_or_wrapper) from the strict-object rule and whether a re-encoding writer can carry the body losslessly, the wrapper's raw from the body's bytes, a splice record from the body, splice_literals found verbatim and splice_keys equal to the body's top-level names.",
        why: "ADR-0035 fixes the record of every poison body; an expectation that does not follow from its body would fail the writers that follow the ADR.",
        example: Validate(&[Set("manifest.json", "/poison_dlq/cases/[nan-literal]/expect/shape", "\"splice\"")]),
    }
    IDEMPOTENCY_OUTCOME = "BQ826" "idempotency-outcome" "An idempotency delivery carries an outcome without effect run, or a run lacks outcome ok / throw." {
        Error,
        checks: "In idempotency sequences, a delivery whose expect_effect is run has outcome ok or throw, and a skip has none.",
        why: "The outcome is the handler's result, and a skipped delivery never invokes the handler.",
        example: Validate(&[Set("manifest.json", "/idempotency/sequences/cases/[duplicate-delivery-runs-once]/deliveries/1/outcome", "\"ok\"")]),
    }
    IDEMPOTENCY_EFFECTS = "BQ827" "idempotency-effects" "expected_effects is not the number of deliveries whose effect is run (R6)." {
        Error,
        checks: "expected_effects equals the number of deliveries whose effect is run, whatever their outcome (decisions R6: a throw counts, the handler ran).",
        why: "The published value 3 of throw-leaves-id-unmarked fixes this counting; any other count contradicts it.",
        example: Validate(&[Set("manifest.json", "/idempotency/sequences/cases/[distinct-ids-each-run]/expected_effects", "2")]),
    }
    IDEMPOTENCY_EFFECT = "BQ828" "idempotency-effect" "A delivery's expect_effect contradicts the seen-set rule given the deliveries before it." {
        Error,
        checks: "Each delivery's expect_effect is replayed against the seen-set rule (run when the id is not remembered or empty; ok remembers, throw does not; forget_before evicts).",
        why: "The sequences pin ADR-0022's decision per delivery; an effect the rule does not give fails every correct helper.",
        example: Validate(&[Remove("manifest.json", "/idempotency/sequences/cases/[forget-allows-rerun]/deliveries/2/forget_before")]),
    }
    RETRY_BACKOFF_EXPECTATION = "BQ830" "retry-backoff-expectation" "A retry_backoff expectation differs from d(n) computed exactly (R14)." {
        Error,
        checks: "Each retry_backoff expectation is recomputed exactly: floor(min(max, retry_backoff × multiplier^(n−1))) ms (max 0 = uncapped), or the range [0, d(n)] under full jitter (decisions R14).",
        why: "The formula is the contract (broker-bindings §6.5, ADR-0034 §9); an expectation off it by one millisecond fails every SDK that computes it right.",
        example: Validate(&[Set("manifest.json", "/retry_backoff/cases/[fractional-result-floors]/expect_delay_ms", "5063")]),
    }
    GATE_FIXTURE_INVALID = "BQ841" "gate-fixture-invalid" "A schema_version_gate fixture is not a valid envelope, so a reject could come from the body instead of the gate." {
        Error,
        checks: "The fixture of every schema_version_gate table is an envelope the reference core accepts.",
        why: "A gate row's reject must come from the property alone; with an invalid body every row would reject for the body's sake and the gate would go untested.",
        example: Validate(&[Set("manifest.json", "/asb/schema_version_gate/fixture", "\"fixtures/invalid-missing-urn.json\"")]),
    }
    GATE_ROW_VALUE_TYPE = "BQ844" "gate-row-value-type" "value_type sits on a row whose value is not a number, or a number written as a float literal with an integral value (1.0) lacks value_type: \"float\"." {
        Error,
        checks: "value_type (float) sits only on gate rows whose value is a JSON number; and in a gate whose property carries numbers (ASB), a number written with a fraction or an exponent whose value is integral (1.0, 2e0) carries value_type: \"float\". A non-integral number (1.5) is a float in every language and needs no marker.",
        why: "value_type tells a runner to hand over a real floating-point value; on a string row it has no meaning. Without it, 1.0 is the same value as 1 (R4) to Go and Node, while Java, .NET and Python runners parse a double and hand the SDK a float, which a correct SDK rejects: the row would mean decode to some runners and reject to others.",
        example: Validate(&[Set("manifest.json", "/sqs/schema_version_gate/cases/0/value_type", "\"float\"")]),
    }
    GATE_ROW_NOT_CARRIED = "BQ845" "gate-row-not-carried" "A gate row's value has a type the binding's property cannot carry (only ASB carries numbers; SQS and Pulsar carry no null)." {
        Error,
        checks: "A gate row's value is one its binding's property can carry: strings everywhere, numbers only on ASB (within the AMQP integer widths), null only on ASB, Kafka and Artemis.",
        why: "A row a binding cannot express cannot be run by any SDK of that binding.",
        example: Validate(&[Set("manifest.json", "/sqs/schema_version_gate/cases/0/value", "null")]),
    }

    REDIS_UNKNOWN_LAYOUT = "BQ860" "redis-unknown-layout" "A redis_layout case names a layout other than zset or processing." {
        Error,
        checks: "Every redis_layout case's layout is zset (broker-bindings §1.1) or processing (the legacy layout, §1.7).",
        why: "The layout decides the keys and ops a case may use; another one has no key names in the contract.",
        example: Validate(&[Set("manifest.json", "/redis_layout/migrate/cases/0/layout", "\"list\"")]),
    }
    REDIS_UNKNOWN_OP = "BQ861" "redis-unknown-op" "A redis_layout step has no op, or one the case language does not have." {
        Error,
        checks: "Every step's op is one of push, push_delayed, migrate, sweep, reserve, release, ack, dead_letter.",
        why: "A runner maps each op to a transport call; an unknown op has none.",
        example: Validate(&[Set("manifest.json", "/redis_layout/migrate/cases/0/steps/0/op", "\"teleport\"")]),
    }
    REDIS_STEP_WITHOUT_NOW = "BQ862" "redis-step-without-now" "A redis_layout step has no finite numeric now." {
        Error,
        checks: "Every step has now, a finite number of epoch seconds.",
        why: "Scores and deadlines are computed from the injected clock; a step without it is not deterministic.",
        example: Validate(&[Remove("manifest.json", "/redis_layout/migrate/cases/0/steps/0/now")]),
    }
    REDIS_NOT_IN_LAYOUT = "BQ863" "redis-not-in-layout" "A redis_layout case uses an op, key or field its layout does not have." {
        Error,
        checks: "A case uses only the ops, keys and fields of its layout: migrate and :delayed belong to zset, sweep and :processing to processing, a release delay to zset.",
        why: "An op of the other layout has no defined effect, so any outcome would be arbitrary.",
        example: Validate(&[Set("manifest.json", "/redis_layout/processing_sweep/cases/0/steps/0/op", "\"migrate\"")]),
    }
    REDIS_UNKNOWN_BODY = "BQ864" "redis-unknown-body" "A redis_layout case names a body its bodies map does not define." {
        Error,
        checks: "Every body a step, state item or expectation names is a key of the case's bodies map.",
        why: "Bodies are compared byte for byte; a name without a body has no bytes.",
        example: Validate(&[Set("manifest.json", "/redis_layout/reserve/cases/0/steps/0/body", "\"nope\"")]),
    }
    REDIS_UNKNOWN_RESERVATION = "BQ865" "redis-unknown-reservation" "A redis_layout case uses a reservation or token that no earlier step or state binds." {
        Error,
        checks: "A reservation or token a step uses is bound earlier: by a reserve's as, or by a state item.",
        why: "An ack or release of a reservation nobody made is undefined in every transport.",
        example: Validate(&[Set("manifest.json", "/redis_layout/late_ack/cases/0/steps/3/reservation", "\"r9\"")]),
    }
    REDIS_EXPECT_SHAPE = "BQ866" "redis-expect-shape" "A redis_layout expectation or state entry has the wrong shape, or is not an expectation of its step." {
        Error,
        checks: "Expectations and state entries have their shapes (counts are non-negative integers, contents are lists of items, sorted-set state items carry scores), and a step expects only its own results (handed and poison on reserve, moved on migrate and sweep, applied on release, ack and dead_letter).",
        why: "The judge reads the keys itself and compares them with these expectations; one of the wrong shape cannot be compared.",
        example: Validate(&[Set("manifest.json", "/redis_layout/migrate/cases/0/expect/ready_count", "\"two\"")]),
    }
    REDIS_BAD_RETRY_AFTER = "BQ867" "redis-bad-retry-after" "A redis_layout retry_after is neither a non-negative integer nor null." {
        Error,
        checks: "retry_after (on a case or a step) is a non-negative integer number of seconds, or null.",
        why: "The reserve deadline is floor(now) + retry_after; null means +inf (never swept); anything else is no deadline.",
        example: Validate(&[Set("manifest.json", "/redis_layout/late_ack/cases/0/retry_after", "-5")]),
    }

    DRIFT_ADDED = "BQ900" "drift-added" "A vendored copy holds a file or directory the release does not (fetch --check)." {
        Error,
        checks: "fetch --check: the vendored copy holds no file or directory the release asset does not (a top-level LICENSE is ignored).",
        why: "The SDK claims to run that release; an extra file means it runs something else.",
        example: Fetch(&[Write("fixtures/old.json", "{}\n")]),
    }
    DRIFT_REMOVED = "BQ901" "drift-removed" "A vendored copy lacks a file of the release (fetch --check)." {
        Error,
        checks: "fetch --check: the vendored copy holds every file of the release asset but LICENSE.",
        why: "A missing file makes the cases that read it fail or be skipped in that SDK.",
        example: Fetch(&[Delete("fixtures/urn-alias.json")]),
    }
    DRIFT_MODIFIED = "BQ902" "drift-modified" "A vendored file differs from the release's, or is a symlink where the release has a file (fetch --check)." {
        Error,
        checks: "fetch --check: every vendored file is byte for byte the release's, and a regular file where the release has one.",
        why: "A hand-edited copy runs expectations nobody released.",
        example: Fetch(&[Replace("manifest.json", "\"schema_version\": 1", "\"schema_version\": 2")]),
    }

    BUMP_TOO_SMALL = "BQ950" "bump-too-small" "CONFORMANCE_VERSION bumps the previous release by less than its changes need under the SemVer rule (release gate)." {
        Error("a warning while CONFORMANCE_VERSION is a pre-release (X.Y.Z-pre)"),
        checks: "The bump from the previous release to CONFORMANCE_VERSION is at least the one the changes need (bqsuite diff): PATCH for prose only, MINOR for additions and corrections the CHANGELOG names, MAJOR for anything breaking.",
        why: "SDKs pin versions and upgrade by SemVer; a release that claims less than it changed breaks pinned SDKs without warning.",
        example: Gate {
            previous: &[],
            current: &[
                Write("CONFORMANCE_VERSION", "{next-patch}\n"),
                Set("manifest.json", "/conformance_version", "\"{next-patch}\""),
                Set("manifest.json", "/kafka_poison/cases/-", r#"{"name": "job-true", "body": "{\"job\":true}", "expect": "no_identity"}"#),
                Replace("CHANGELOG.md", "\n## ", "\n## {next-patch}\n\n- `kafka_poison` gains `job-true`.\n\n## "),
            ],
        },
    }
    CORRECTION_NOT_NAMED = "BQ951" "correction-not-named" "A changed expectation (a correction) is not named, with the ADR that justifies it, in the version's CHANGELOG entry (release gate)." {
        Error("a warning while CONFORMANCE_VERSION is a pre-release (X.Y.Z-pre)"),
        checks: "Every changed expectation is named in the version's CHANGELOG entry, in a sentence that states a correction as a word (Correction, corrects, corrected; not correct, correctly or incorrect), not negated (nothing is corrected, not corrected, Correction: none), and names the case (`section.case-id`) or its block (`section.block`), in an item that cites an ADR; one finding per case. HTML comments are not read.",
        why: "A correction changes what SDKs must do; their maintainers learn of it from the CHANGELOG, so an unnamed one is a breaking change in disguise.",
        example: Gate {
            previous: &[],
            current: &[
                Write("CONFORMANCE_VERSION", "{next-minor}\n"),
                Set("manifest.json", "/conformance_version", "\"{next-minor}\""),
                Set("manifest.json", "/redis_layout/migrate/cases/0/expect/delayed_count", "1"),
                Replace("CHANGELOG.md", "\n## ", "\n## {next-minor}\n\n- More Redis cases.\n\n## "),
            ],
        },
    }
    CHANGELOG_ENTRY_MISSING = "BQ952" "changelog-entry-missing" "The suite changed since the previous release, but CHANGELOG.md has no entry for CONFORMANCE_VERSION (release gate)." {
        Error("a warning while CONFORMANCE_VERSION is a pre-release (X.Y.Z-pre)"),
        checks: "When the suite changed since the previous release, CHANGELOG.md has an entry ## X.Y.Z for CONFORMANCE_VERSION.",
        why: "The entry is how SDK maintainers learn what a release asks of them, and the release notes are made from it.",
        example: Gate {
            previous: &[],
            current: &[
                Write("CONFORMANCE_VERSION", "{next-patch}\n"),
                Set("manifest.json", "/conformance_version", "\"{next-patch}\""),
                Replace("manifest.json", "How a Kafka consumer classifies", "How a Kafka consumer sorts"),
            ],
        },
    }
    SECTION_NOT_IN_CHANGELOG = "BQ953" "section-not-in-changelog" "A section added since the previous release is not named in the version's CHANGELOG entry (release gate)." {
        Error("a warning while CONFORMANCE_VERSION is a pre-release (X.Y.Z-pre)"),
        checks: "Every section added since the previous release is named, as a code span, in a sentence of the version's CHANGELOG entry that states the addition as a word (new, add, adds, added, adding, addition, gains, gained, introduces, introduced), not negated. HTML comments are not read.",
        why: "A new section is new work for every SDK in its scope; the entry must say so.",
        example: Gate {
            previous: &[],
            current: &[
                Write("CONFORMANCE_VERSION", "{next-minor}\n"),
                Set("manifest.json", "/conformance_version", "\"{next-minor}\""),
                Set("manifest.json", "/sections/mqtt", "\"core\""),
                Set("manifest.json", "/mqtt", "{\"description\": \"A new section.\", \"cases\": []}"),
                Replace("CHANGELOG.md", "\n## ", "\n## {next-minor}\n\n- A new section.\n\n## "),
            ],
        },
    }
    VERSION_NOT_ABOVE_PREVIOUS = "BQ954" "version-not-above-previous" "CONFORMANCE_VERSION is below the previous release, or equal to it although the suite changed (release gate)." {
        Error("a warning while CONFORMANCE_VERSION is a pre-release (X.Y.Z-pre)"),
        checks: "CONFORMANCE_VERSION is above the previous release's version, or equal to it when nothing changed.",
        why: "A version is released once: the same number with other content, or a lower one, would make two suites answer to one pin.",
        example: Gate {
            previous: &[
                Write("CONFORMANCE_VERSION", "{next-minor}\n"),
                Set("manifest.json", "/conformance_version", "\"{next-minor}\""),
            ],
            current: &[],
        },
    }
    NO_PREVIOUS_RELEASE = "BQ955" "no-previous-release" "No previous release to compare with: no v* release tag (a release candidate does not count) below CONFORMANCE_VERSION and neither --previous nor --no-previous (release gate)." {
        Error("a warning while CONFORMANCE_VERSION is a pre-release (X.Y.Z-pre)"),
        checks: "release finds a previous release to compare with: the highest v<SemVer> tag without a pre-release part below CONFORMANCE_VERSION in the suite's repository (a release candidate promises nothing, so it is never the default), or the one --previous names; --no-previous states that this is the very first release.",
        why: "Without a previous release the gate cannot tell what changed, so a release must say explicitly that it has none.",
        example: Release(&[]),
    }
    RELEASED_VERSION_CHANGED = "BQ956" "released-version-changed" "CONFORMANCE_VERSION is already released (the repository has its v* tag), but a file of the release asset differs from the tag's, or is added or missing (release gate)." {
        Error,
        checks: "When the suite's repository has a tag for CONFORMANCE_VERSION itself (v<SemVer> of the same precedence; a release candidate's tag too), every file of the release asset (CONFORMANCE_VERSION, manifest.json, LICENSE, schema/, fixtures/) has exactly the bytes the tag holds, and no file is added or missing. CHANGELOG.md, README.md and sync-targets.json may change. A tag counts only where it releases this suite: at that tag the suite's own CONFORMANCE_VERSION (at the suite's path) names the tag's version, as the release workflow ensures; an SDK repository's v* tags, over a vendored copy of another version or of none, are not the suite's releases (nor previous releases for BQ950-BQ955). Checked by release and by validate --gate or --against.",
        why: "SDKs pin a version and vendor its files; fetch --check holds every copy to the published asset. A second, different suite under a released version would make every copy drift and two SDKs that both pass \"1.6.0\" pass different contracts.",
        example: Tagged(&[Set("manifest.json", "/trim/description", "\"Prose changed after the release.\"")]),
    }
    ADDITION_NOT_IN_CHANGELOG = "BQ957" "addition-not-in-changelog" "A case or block added to an existing section since the previous release is not named in the version's CHANGELOG entry (release gate)." {
        Error("a warning while CONFORMANCE_VERSION is a pre-release (X.Y.Z-pre)"),
        checks: "Every case and block added to a section that the previous release already had is named in the version's CHANGELOG entry, in a sentence that states the addition as a word (new, add, adds, added, adding, addition, gains, gained, introduces, introduced), not negated, and holds a code span naming it: `section.case-id`, its block `section.block`, or the section's name in one span and the case id or block in another. Naming only the section names no case. Every item under a heading that says only that things were added (### Added) or under a lead-in such as \"New cases:\" states one unless it opens with a negation, as does every row of a table whose head states one; a question states nothing. HTML comments are not read.",
        why: "A new case can turn an SDK that passed red; its maintainers read the entry to find what is new to them. An entry that says \"TBD.\" passed every gate while a case was added.",
        example: Gate {
            previous: &[],
            current: &[
                Write("CONFORMANCE_VERSION", "{next-minor}\n"),
                Set("manifest.json", "/conformance_version", "\"{next-minor}\""),
                Set("manifest.json", "/traceparent/cases/-", "{\"name\": \"valid-header-flags-0f\", \"trace_id\": \"7b3f9c2a-e41d-4f88-9b2a-1c0d5e6f7a8b\", \"traceparent\": \"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0f\", \"expect\": {\"source\": \"header\", \"trace_id\": \"4bf92f3577b34da6a3ce929d0e0e4736\", \"parent_span_id\": \"00f067aa0ba902b7\", \"trace_flags\": \"0f\"}}"),
                Replace("CHANGELOG.md", "\n## ", "\n## {next-minor}\n\n- TBD.\n\n## "),
            ],
        },
    }
    REDIS_CASE_NOT_RUN = "BQ958" "redis-case-not-run" "A case that needs a live Redis is new or changed since the previous release, and the reference core did not run it: no Redis was given (release gate)." {
        Error("a warning while CONFORMANCE_VERSION is a pre-release (X.Y.Z-pre)"),
        checks: "When the reference core did not run the cases that need a live Redis (the redis_layout behavioural blocks, redis.payload_identity), none of them is added or changed since the previous release: a case, block or section added, an expectation or input changed (not prose alone), or a fixture it reads changed. Cases unchanged since the previous release were run when it was built.",
        why: "Without a Redis such a case is read and checked but never run, so an expectation that contradicts the reference core (a score off by one, a count that cannot be) would ship unchallenged; the release workflow sets BQ_REQUIRE_REDIS, and a local release or validate --against must say it has not checked them.",
        example: Gate {
            previous: &[],
            current: &[
                Write("CONFORMANCE_VERSION", "{next-minor}\n"),
                Set("manifest.json", "/conformance_version", "\"{next-minor}\""),
                Set("manifest.json", "/redis_layout/migrate/cases/0/expect/delayed_count", "1"),
                Replace(
                    "CHANGELOG.md",
                    "\n## ",
                    "\n## {next-minor}\n\n- Correction (ADR-0033): `redis_layout.migrate` now counts differently.\n\n## ",
                ),
            ],
        },
    }
    RELEASE_FILE_UNCOMMITTED = "BQ959" "release-file-uncommitted" "No tag of CONFORMANCE_VERSION vouches for the release files, and one of them differs from the commit at HEAD, or is added or missing (release)." {
        Error("a warning while CONFORMANCE_VERSION is a pre-release (X.Y.Z-pre)"),
        checks: "When release cannot check BQ956 (the repository has no tag of CONFORMANCE_VERSION that releases this suite: a clone made with --no-tags, a checkout of a commit's SHA, a repository without the tag), every file of the release asset (CONFORMANCE_VERSION, manifest.json, LICENSE, schema/, fixtures/) has exactly the bytes the commit at HEAD holds at the suite's path, read from git's objects (an ignored or assume-unchanged file counts), and no file is added or missing. release --allow-dirty skips the check for a build nobody publishes; outside a git repository (a git archive export) there is no commit, and release says so. Checked by release only.",
        why: "A release promises that anyone who checks out its commit builds the same bytes. An asset built from an edit nobody committed (a line appended to LICENSE, a blank line in manifest.json) has a sha256 no checkout reproduces, and nothing else said so before the version's tag exists.",
        example: Committed(&[Replace("LICENSE", "MIT License", "MIT License, with additional terms")]),
        only: &["release"],
    }
    DOCS_PAGE_DIFFERS = "BQ960" "docs-page-differs" "A page under docs/ (or a generated table of a hand-written page) differs from what bqsuite docs renders from the suite." {
        Error,
        checks: "Every page bqsuite docs renders (the section pages, the index by scope, the results format, the code reference, the command line, their HTML rendering, and the generated tables inside README.md and the hand-written docs pages) has exactly the bytes the suite and bqsuite's tables give today; the finding's line is the first that differs.",
        why: "The docs are the contract in human form: SDK maintainers write their runners from them. A page that says something the manifest no longer says sends a runner the wrong way, so a change to the data must come with its regenerated pages.",
        example: Docs(&[Replace("docs/sections/README.md", "## `core`: every SDK", "## Every SDK")]),
    }
    DOCS_PAGE_MISSING = "BQ961" "docs-page-missing" "A page bqsuite docs renders is not in the repository (a new section, or a deleted page)." {
        Error,
        checks: "Every page bqsuite docs renders exists in the repository: a section added to the manifest needs its page, and a generated page must not be deleted by hand.",
        why: "A section without its page is a part of the contract no maintainer can read.",
        example: Docs(&[Delete("docs/results-format.md")]),
    }
    DOCS_PAGE_STALE = "BQ962" "docs-page-stale" "A generated page under docs/ that bqsuite docs no longer renders (its section was removed or renamed)." {
        Error,
        checks: "docs/sections/ and docs/html/ hold only the pages bqsuite docs renders, and no other docs/*.md starts with the generated-page note.",
        why: "A page for a section that is gone tells maintainers to run cases that no longer exist.",
        example: Docs(&[Write("docs/sections/mqtt.md", "# `mqtt`\n")]),
    }
    DOCS_DIR_NOT_A_DIRECTORY = "BQ963" "docs-dir-not-a-directory" "docs/, docs/sections/ or docs/html/ is a symlink or a file, not a directory: bqsuite docs refuses to write through it." {
        Error,
        checks: "docs, docs/sections and docs/html, the directories bqsuite docs writes its pages into and removes stale pages from, are each a real directory of the repository (or absent), never a symbolic link, wherever it points, nor a file. Nothing under such an entry is compared, and bqsuite docs writes and removes nothing until it is gone.",
        why: "bqsuite docs removes every file it does not render from docs/sections and docs/html. Through a committed link (docs/html -> ../../elsewhere, or -> ~/.ssh) it would delete and overwrite files outside the repository: on a maintainer's machine that checks out a pull request, or on the CI runner that builds it. Delete the link (git rm), then run bqsuite docs and commit the pages it writes.",
        example: Docs(&[Symlink("docs/html", "sections")]),
    }
}

/// A code no longer reported: kept so its id and name are never reused and so an old log's code
/// still has an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retired {
    pub id: &'static str,
    pub name: &'static str,
    /// What it reported, as its summary said.
    pub summary: &'static str,
    /// The codes that make its checks now (ids of [`ALL_CODES`]).
    pub successors: &'static [&'static str],
}

/// Every retired code, in numeric order.
pub const RETIRED: &[Retired] = &[
    Retired {
        id: "BQ810",
        name: "encode-reject-input",
        summary: "An encode_reject case does not carry exactly one input (meta, meta_entries, extras_top, extras_meta) of the right shape.",
        successors: &["BQ305", "BQ307"],
    },
    Retired {
        id: "BQ822",
        name: "body-base64",
        summary: "A body_base64 is not standard padded base64.",
        successors: &["BQ308"],
    },
    Retired {
        id: "BQ824",
        name: "poison-case-shape",
        summary: "A poison_dlq case lacks exactly one of body / body_base64, a known shape, a record object, or (splice_or_wrapper) non-empty splice_literals and splice_keys.",
        successors: &["BQ305", "BQ306", "BQ307"],
    },
    Retired {
        id: "BQ829",
        name: "retry-backoff-case",
        summary: "A retry_backoff case's inputs or expectation do not have the shape of decisions R14.",
        successors: &["BQ305", "BQ306", "BQ308"],
    },
    Retired {
        id: "BQ840",
        name: "gate-table-shape",
        summary: "A schema_version_gate table lacks a non-empty property name, a fixture or a cases array of objects.",
        successors: &["BQ305", "BQ308"],
    },
    Retired {
        id: "BQ842",
        name: "gate-row-value-or-absent",
        summary: "A gate row does not have exactly one of value and absent: true.",
        successors: &["BQ307", "BQ308"],
    },
    Retired {
        id: "BQ843",
        name: "gate-row-expect",
        summary: "A gate row's expect is not decode or reject.",
        successors: &["BQ306"],
    },
    Retired {
        id: "BQ846",
        name: "reconciliation-case-shape",
        summary: "An attempts_reconciliation case lacks a field or has it with another JSON type than the published one (R20.3, R20.6).",
        successors: &["BQ305", "BQ306", "BQ307", "BQ308"],
    },
    Retired {
        id: "BQ847",
        name: "delay-case-shape",
        summary: "A delay block or case lacks a field its shape requires, or has it with the wrong type or value.",
        successors: &["BQ305", "BQ306", "BQ307", "BQ308"],
    },
    Retired {
        id: "BQ848",
        name: "backoff-case-shape",
        summary: "A backoff block or case lacks a field its shape requires, or has it with the wrong type or value.",
        successors: &["BQ305", "BQ306", "BQ307", "BQ308"],
    },
    Retired {
        id: "BQ849",
        name: "kafka-poison-case-shape",
        summary: "A kafka_poison case lacks a name or verdict, or does not carry exactly one of body and valid base64 body_base64.",
        successors: &["BQ305", "BQ306", "BQ307", "BQ308"],
    },
    Retired {
        id: "BQ868",
        name: "redis-case-shape",
        summary: "A redis_layout case or step lacks a field or has one of the wrong type.",
        successors: &["BQ305"],
    },
    Retired {
        id: "BQ869",
        name: "redis-delay-case-shape",
        summary: "A redis_delay case lacks a numeric now or delay, or an integer expected_score.",
        successors: &["BQ305"],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retired_codes_are_never_reused_and_name_live_successors() {
        let ids: Vec<&str> = RETIRED.iter().map(|r| r.id).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(ids, sorted, "keep RETIRED in numeric order, once each");
        for r in RETIRED {
            assert!(r.id.len() == 5 && r.id.starts_with("BQ") && r.id[2..].bytes().all(|b| b.is_ascii_digit()));
            assert!(!ALL_CODES.iter().any(|c| c.id == r.id || c.name == r.name), "{} is reused", r.id);
            assert!(!r.successors.is_empty(), "{} names no successor", r.id);
            for s in r.successors {
                assert!(ALL_CODES.iter().any(|c| c.id == *s), "{}'s successor {s} is no code", r.id);
            }
        }
    }

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
