//! The findings of `results check`, one constructor per kind, so the check reads as logic and
//! every message is written once. Strings from the results file are quoted with `{:?}` or
//! embedded as they are; the reporters escape them for the terminal
//! ([`crate::diag::terminal_safe`]).

use crate::diag::{Code, Finding, Span};
use crate::suite::json::Foreign;
use crate::suite::{Duplicate, Exception, Scope};

pub(super) fn not_utf8(at: usize, span: Span) -> Finding {
    Finding::error(Code::RESULTS_NOT_JSON, format!("not UTF-8 (invalid byte at offset {at})")).with_span(Some(span))
}

/// BQ601 for a file in another encoding than plain UTF-8, said as such (the usual causes are
/// Windows tools: .NET's `Encoding.UTF8` writes a byte-order mark, PowerShell 5's `>` and
/// `Out-File` write UTF-16); `None` when the bytes show neither.
pub(super) fn wrong_encoding(bytes: &[u8]) -> Option<Finding> {
    let why = match Foreign::sniff(bytes)? {
        Foreign::Utf8Bom => {
            "starts with a UTF-8 byte-order mark (EF BB BF), which strict JSON parsers refuse: a results file is \
             UTF-8 without one (RFC 8259 §8.1); write it without (.NET: new UTF8Encoding(false); PowerShell 7: \
             -Encoding utf8NoBOM)"
        }
        Foreign::Utf16 => {
            "is UTF-16, not UTF-8: a results file is UTF-8 (RFC 8259 §8.1); PowerShell 5's > and Out-File write \
             UTF-16, so write the file from the runner itself"
        }
    };
    Some(Finding::error(Code::RESULTS_NOT_JSON, why).with_span(Some(Span { line: 1, column: 1 })))
}

pub(super) fn not_json(message: &str, span: Option<Span>) -> Finding {
    Finding::error(Code::RESULTS_NOT_JSON, format!("not JSON: {message}")).with_span(span)
}

/// BQ601 for text that fails to parse at a lone surrogate escape, said as such (serde's "unexpected
/// end of hex escape" names no cause): `escape` is the six characters, `span` where they are.
pub(super) fn lone_surrogate(escape: &str, span: Span) -> Finding {
    Finding::error(
        Code::RESULTS_NOT_JSON,
        format!(
            "not JSON: {escape} is a lone surrogate escape, half of a UTF-16 pair without its other half, which no \
             Unicode string holds and strict JSON parsers refuse (RFC 8259 §8.2); Python's json.dumps writes one for a \
             str holding a lone surrogate (from surrogateescape or a broken decode): replace it before writing"
        ),
    )
    .with_span(Some(span))
}

pub(super) fn too_deep(message: &str, span: Option<Span>) -> Finding {
    Finding::error(Code::RESULTS_TOO_DEEP, format!("{message}: a results file is sections → case id → outcome"))
        .with_span(span)
}

pub(super) fn duplicate_key(d: &Duplicate) -> Finding {
    Finding::error(
        Code::RESULTS_DUPLICATE_KEY,
        format!("{d}; a results file reports each section and each case once (the last would win silently)"),
    )
    .at(d.pointer.clone())
    .with_span(Some(d.again))
}

pub(super) fn schema(e: &jsonschema::ValidationError<'_>) -> Finding {
    Finding::error(Code::RESULTS_SCHEMA, format!("violates the results schema: {e}")).at(e.instance_path().as_str())
}

/// BQ602: `generated_at` has the shape the schema's pattern asks for but names no instant
/// (its `format: date-time`, asserted by results check).
pub(super) fn not_a_date_time(value: &str, why: &str, at: &str) -> Finding {
    Finding::error(
        Code::RESULTS_SCHEMA,
        format!(
            "violates the results schema: generated_at \"{}\" is no date-time (format: date-time, RFC 3339): {why}",
            crate::diag::token_safe(value)
        ),
    )
    .at(at)
}

/// The pointer of the member a schema violation is about: where it is, or, for a required
/// member that is absent, where that member would be (the violation itself is at its parent).
pub(super) fn schema_subject(e: &jsonschema::ValidationError<'_>) -> String {
    let at = e.instance_path().as_str();
    match e.kind() {
        jsonschema::error::ValidationErrorKind::Required { property: serde_json::Value::String(name) } => {
            crate::suite::pointer::join(at, name)
        }
        _ => at.to_owned(),
    }
}

pub(super) fn binding_under_exception(binding: &str, x: &Exception, family_rule: &str, at: String) -> Finding {
    Finding::error(
        Code::RESULTS_BINDING_UNDER_EXCEPTION,
        format!(
            "binding {binding:?} is under exception {} for family {:?}: a binding under an exception is not listed in \
             bindings and its sections are absent (ADR-0032). {family_rule}",
            x.adr, x.family
        ),
    )
    .at(at)
}

/// BQ622: `sdk` is not the name `--sdk` expects (`sdk`: the file's, `want`: the option's).
pub(super) fn other_sdk(sdk: &str, want: &str) -> Finding {
    let message = if sdk == super::REFERENCE_SDK {
        format!(
            "sdk is {sdk:?}, the reference core's name, not {want:?} (--sdk): this file was written by `bqsuite run` \
             without --sdk or by the adapter `bqsuite adapter`, so its verdict says nothing about {want}"
        )
    } else {
        format!(
            "sdk is {sdk:?}, not {want:?} (--sdk): this is another SDK's results file, so its verdict says nothing \
             about {want}"
        )
    };
    Finding::error(Code::RESULTS_OTHER_SDK, message).at("/sdk")
}

pub(super) fn version_mismatch(ran: &str, suite: &str, root: &std::path::Path) -> Finding {
    Finding::error(
        Code::RESULTS_VERSION_MISMATCH,
        format!(
            "the file ran suite {ran}, but is checked against suite {suite} at {}; its sections and case ids were \
             not checked (check it against a {ran} copy of the suite with --suite)",
            root.display()
        ),
    )
    .at("/conformance_version")
}

pub(super) fn missing_section(section: &str, scope: Scope, at: &str) -> Finding {
    Finding::error(
        Code::RESULTS_MISSING_SECTION,
        format!(
            "required section {section:?} (scope {scope}) is missing: the required sections are every core section \
             plus the sections of every binding in bindings, and every one must be run and reported"
        ),
    )
    .at(at)
}

pub(super) fn out_of_scope_section(section: &str, scope: Scope, why: &str, at: String) -> Finding {
    Finding::error(
        Code::RESULTS_OUT_OF_SCOPE_SECTION,
        format!(
            "section {section:?} is scoped {scope}, which this SDK does not carry ({why}): a section whose scope is \
             not carried is absent from the results"
        ),
    )
    .at(at)
}

pub(super) fn skip_out_of_scope(section: &str, id: &str, at: String) -> Finding {
    Finding::error(
        Code::RESULTS_SKIP_OUT_OF_SCOPE,
        format!(
            "{} is a skip in a section out of the SDK's scope: a skip is only for an individual case of \
             an in-scope section",
            case(section, id)
        ),
    )
    .at(at)
}

pub(super) fn missing_case(section: &str, id: &str, at: String) -> Finding {
    Finding::error(
        Code::RESULTS_MISSING_CASE,
        format!("{} is missing: a results file lists every case of every in-scope section", case(section, id)),
    )
    .at(at)
}

pub(super) fn unknown_case(section: &str, id: &str, version: &str, at: String) -> Finding {
    Finding::error(
        Code::RESULTS_UNKNOWN_CASE,
        format!("{} is not a case id of section {section:?} in suite {version}", case(section, id)),
    )
    .at(at)
}

pub(super) fn unknown_section(section: &str, version: &str, at: String) -> Finding {
    Finding::error(Code::RESULTS_UNKNOWN_SECTION, format!("section {section:?} is not a section of suite {version}"))
        .at(at)
}

/// A skip's reason as a message quotes it: its text, or that it has none, or that the one it
/// has is no text (`kind`: `a number`, `null`, …), which counts as none.
pub(super) fn reason_text(reason: Option<&str>, kind: Option<&str>) -> String {
    match (reason, kind) {
        (Some(x), _) => format!("\"{}\"", said(x)),
        (None, Some(kind)) => format!("a reason that is {kind}, not text, so no reason"),
        (None, None) => "no reason".to_owned(),
    }
}

/// A case as a message names it, `section / id`. (The checker writes the hidden characters of
/// every message it makes as `\u{XXXX}`, an id's among them, once for all.)
fn case(section: &str, id: &str) -> String {
    format!("{section} / {id}")
}

/// The most of a reason a message quotes, in characters (as `run` keeps them): a runner that
/// puts a stack trace or a whole payload in each reason must not make each finding that long.
const REASON_SHOWN: usize = 200;

/// A reason from the file as a message quotes it: cut after [`REASON_SHOWN`] of its characters,
/// saying how many more it has. (Its hidden characters are shown where it is printed: by the
/// checker for every message, by the report for its drill-downs.)
pub(super) fn said(reason: &str) -> String {
    match reason.char_indices().nth(REASON_SHOWN) {
        None => reason.to_owned(),
        Some((i, _)) => {
            let more = reason[i..].chars().count();
            format!("{}… ({more} more character{})", &reason[..i], if more == 1 { "" } else { "s" })
        }
    }
}

/// Why the rules that cover a case allow no skip in this file (their family, a refuted
/// all_or_none condition), as a sentence to append; empty when there is none.
fn notes_text(notes: &[String]) -> String {
    notes.iter().map(|n| format!("; {n}")).collect()
}

pub(super) fn skip_without_adr(
    section: &str,
    id: &str,
    reason: &str,
    allowed: &[&str],
    notes: &[String],
    at: String,
) -> Finding {
    Finding::error(
        Code::RESULTS_SKIP_WITHOUT_ADR,
        format!(
            "{} is a skip whose reason does not cite the ADR that makes the case not applicable \
             (ADR-NNNN; the skip policy allows {}): {}{}",
            case(section, id),
            allowed.join(" or "),
            reason,
            notes_text(notes)
        ),
    )
    .at(at)
}

pub(super) fn skip_not_allowed(section: &str, id: &str, reason: &str, notes: &[String], at: String) -> Finding {
    let why = if notes.is_empty() { "does not allow this case to be skipped" } else { "allows this skip in no rule" };
    Finding::error(
        Code::RESULTS_SKIP_NOT_ALLOWED,
        format!(
            "{} is a skip, but the suite's skip policy (manifest.json → skip_policy) {why}: it must be \
             run ({}){}",
            case(section, id),
            reason,
            notes_text(notes)
        ),
    )
    .at(at)
}

pub(super) fn skip_wrong_adr(
    section: &str,
    id: &str,
    reason: &str,
    allowed: &[&str],
    notes: &[String],
    at: String,
) -> Finding {
    Finding::error(
        Code::RESULTS_SKIP_WRONG_ADR,
        format!(
            "{} is a skip whose reason cites none of the ADRs the skip policy allows for it ({}): {}{}",
            case(section, id),
            allowed.join(", "),
            reason,
            notes_text(notes)
        ),
    )
    .at(at)
}

pub(super) fn section_not_run(section: &str, skipped: usize, refused: usize, whole: &[&str], at: String) -> Finding {
    let why = match whole {
        [] => "no rule of the skip policy may skip this section whole".to_owned(),
        rules => {
            let names = rules.join(", ");
            let (rule, it) = if rules.len() == 1 { ("rule", "that rule") } else { ("rules", "one of them") };
            match refused {
                0 => format!(
                    "{rule} {names} may skip it whole, but only when every skip is one {it} allows, and these are \
                     allowed by different rules"
                ),
                n => format!(
                    "{rule} {names} may skip it whole, but only when every skip is one {it} allows, and {n} of these \
                     {} not allowed (see their findings)",
                    if n == 1 { "is" } else { "are" }
                ),
            }
        }
    };
    Finding::error(
        Code::RESULTS_SECTION_NOT_RUN,
        format!(
            "required section {section:?} was not run: all {skipped} of its reported cases are skips, and skip is \
             never a way to leave a section out; {why}"
        ),
    )
    .at(at)
}

pub(super) fn too_many_skips(skips: usize, max: usize, at: &str) -> Finding {
    Finding::error(
        Code::RESULTS_TOO_MANY_SKIPS,
        format!("{skips} cases are skipped, more than --max-skips {max} allows"),
    )
    .at(at)
}

pub(super) fn no_status(section: &str, id: &str, at: String) -> Finding {
    Finding::error(
        Code::RESULTS_NO_STATUS,
        format!("{} has no status of pass, fail or skip, so it is neither passed nor excused", case(section, id)),
    )
    .at(at)
}

pub(super) fn case_failed(section: &str, id: &str, reason: Option<&str>, kind: Option<&str>, at: String) -> Finding {
    let why = match (reason, kind) {
        (Some(x), _) => said(x),
        (None, Some(kind)) => format!("(its reason is {kind}, not text)"),
        (None, None) => "(no reason given)".to_owned(),
    };
    Finding::error(Code::RESULTS_CASE_FAILED, format!("{} failed: {why}", case(section, id))).at(at)
}

/// BQ620: the file is not one JSON object.
pub(super) fn not_an_object(kind: &str) -> Finding {
    Finding::error(
        Code::RESULTS_MALFORMED,
        format!(
            "the file is {kind}, not an object: a results file is one JSON object with sdk, version, \
             conformance_version, generated_at, bindings and sections (ADR-0032)"
        ),
    )
    .at("")
}

/// BQ620: a member the verdict reads is absent (reported at the root, its parent).
pub(super) fn member_absent(key: &str, want: &str) -> Finding {
    Finding::error(
        Code::RESULTS_MALFORMED,
        format!("{key} is missing: a results file has {key}, {want} (ADR-0032), and results check's verdict reads it"),
    )
    .at("")
}

/// BQ620: a member the verdict reads has a shape the results format does not allow.
pub(super) fn member_malformed(key: &str, want: &str, kind: &str, at: &str) -> Finding {
    Finding::error(
        Code::RESULTS_MALFORMED,
        format!(
            "{key} is {kind}, not {want} (ADR-0032): results check's verdict reads it, and would read it as absent"
        ),
    )
    .at(at)
}

/// BQ620: `sdk` or `version` is a string, but not a name as registries write one.
pub(super) fn not_a_name(key: &str, value: &str, at: &str) -> Finding {
    Finding::error(
        Code::RESULTS_MALFORMED,
        format!(
            "{key} \"{}\" is not a package {} as registries write one, printable ASCII without white space: every \
             report shows the verdict beside it, an invisible or look-alike character would hide which package it is \
             about, and the SDK's family (its exceptions and skip rules) is read from the name's ASCII letters and digits",
            crate::diag::token_safe(value),
            if key == "version" { "version" } else { "name" }
        ),
    )
    .at(at)
}

/// BQ620: a `bindings` entry that names no binding.
pub(super) fn not_a_binding(entry: &serde_json::Value, bindings: &str, at: &str) -> Finding {
    Finding::error(
        Code::RESULTS_MALFORMED,
        format!(
            "bindings lists {entry}, which is no binding (the bindings are {bindings}): it puts no section in scope, \
             so the sections of the binding meant would not be required"
        ),
    )
    .at(at)
}

/// BQ620: a section whose value is not an object of outcomes.
pub(super) fn section_not_an_object(section: &str, kind: &str, at: &str) -> Finding {
    Finding::error(
        Code::RESULTS_MALFORMED,
        format!(
            "section {section:?} is {kind}, not an object of case id → outcome (ADR-0032): none of its cases can \
             be read, so none counts as reported"
        ),
    )
    .at(at)
}
