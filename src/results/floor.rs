//! The results format's floor: the members `results check`'s verdict reads, judged by bqsuite
//! itself whatever the suite's `schema/results.schema.json` allows (BQ620).
//!
//! The verdict reads `sdk` and `version` (whose verdict it is; the family, and with it the
//! exceptions and the family-limited skip rules, comes from `sdk`), `conformance_version`
//! (which suite's rules apply), `bindings` (the scope: which sections are required) and
//! `sections` (every outcome). The lenient view ([`super::view`]) reads a member of the wrong
//! shape as absent, and an absence narrows what is judged: a `bindings` of `"redis sqs"` or
//! `["rabbitmq"]` carries no binding, so no binding section is required; a section that is an
//! array reports no case and so misses none. Left to the schema alone, a suite whose schema was
//! weakened (or a vendored copy edited) turned such a file into a Compatible verdict. So here,
//! as the spec's results format (ADR-0032) says: the file is one object; `sdk` and `version`
//! are non-empty strings, and names as registries write them (a ruling: printable ASCII
//! without white space, [`is_a_name`]); `conformance_version` is a string (a string other
//! than the suite's version is BQ603); `bindings` is an array whose every entry names a
//! binding (the scopes other than `core`, spelled as the manifest spells them); `sections` is
//! an object whose every value is an object. A member that is absent is reported at its parent, as every absence is.
//! Outcomes are judged where they are counted: a status none of pass, fail and skip is BQ619, a
//! skip's reason the skip policy's (BQ610, BQ613, BQ614).
//!
//! Not here: `generated_at`, `bindings` repeated, members the format does not name. No verdict
//! reads them; the suite's schema judges them (BQ602; `generated_at`'s calendar, which the
//! schema's `format` only annotates, [`super::date_time`]), and `validate` holds that schema to
//! the spec's results format (BQ406).
//!
//! Each finding carries its subject, the pointer of the member it judges (also when the member
//! is absent), so that the schema's report of the same member gives way to it: one problem,
//! one finding.

use serde_json::{Map, Value};

use super::diags;
use crate::diag::Finding;
use crate::suite::{Scope, pointer};

/// A finding of the floor and the pointer of the member it judges.
pub(super) struct Judged {
    pub subject: String,
    pub finding: Finding,
}

/// What a value is, in words (also how a reason that is no string is named).
pub(super) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(s) if s.is_empty() => "an empty string",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Every binding a results file may list, as the finding says them.
fn bindings_text() -> String {
    Scope::ALL.iter().filter(|s| s.is_binding()).map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

/// Is `s` a name as package registries write one: non-empty printable ASCII without white space
/// (U+0021–U+007E). A ruling: the registries of the six SDK languages (npm, PyPI, Packagist,
/// Maven Central, NuGet, Go modules) allow only ASCII in package names and versions, and a
/// verdict is about a package a reader recognises by name. Anything else can only mislead: a
/// control or bidirectional character reorders what a report shows (`"node: Compatible
/// \u{202e}"`), a zero-width space, word joiner or byte-order mark is invisible, a Cyrillic `р`
/// looks like a Latin `p`, and the SDK's family (which decides its exceptions and its
/// family-limited skip rules) is read from the name's ASCII letters and digits, so
/// `"ph\u{200b}p-sdk"`, shown as php-sdk, had no family and escaped php's asb exception.
pub fn is_a_name(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

/// The floor's findings for a parsed results file (none for a file that meets it).
pub(super) fn check(v: &Value) -> Vec<Judged> {
    let Some(root) = v.as_object() else {
        return vec![Judged { subject: String::new(), finding: diags::not_an_object(kind_of(v)) }];
    };
    let mut out = Vec::new();
    let mut member = |key: &str, want: &str, ok: &dyn Fn(&Value) -> bool, root: &Map<String, Value>| {
        let subject = pointer::join("", key);
        match root.get(key) {
            None => out.push(Judged { finding: diags::member_absent(key, want), subject }),
            Some(v) if !ok(v) => {
                out.push(Judged { finding: diags::member_malformed(key, want, kind_of(v), &subject), subject })
            }
            Some(_) => {}
        }
    };
    let non_empty = |v: &Value| v.as_str().is_some_and(|s| !s.is_empty());
    member("sdk", "a non-empty string, the package that ran the suite", &non_empty, root);
    member("version", "a non-empty string, the version of that package", &non_empty, root);
    member("conformance_version", "a string, the suite version the run used", &|v| v.is_string(), root);
    member("bindings", "an array of the bindings the package carries", &|v| v.is_array(), root);
    member("sections", "an object: section → case id → outcome", &|v| v.is_object(), root);
    for key in ["sdk", "version"] {
        if let Some(s) = root.get(key).and_then(Value::as_str).filter(|s| !s.is_empty() && !is_a_name(s)) {
            let at = pointer::join("", key);
            out.push(Judged { finding: diags::not_a_name(key, s, &at), subject: at });
        }
    }
    if let Some(bindings) = root.get("bindings").and_then(Value::as_array) {
        for (i, b) in bindings.iter().enumerate() {
            if b.as_str().and_then(Scope::parse).is_none_or(|s| !s.is_binding()) {
                let at = pointer::join_index("/bindings", i);
                out.push(Judged { finding: diags::not_a_binding(b, &bindings_text(), &at), subject: at });
            }
        }
    }
    if let Some(sections) = root.get("sections").and_then(Value::as_object) {
        for (name, cases) in sections.iter().filter(|(_, c)| !c.is_object()) {
            let at = pointer::join("/sections", name);
            out.push(Judged { finding: diags::section_not_an_object(name, kind_of(cases), &at), subject: at });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn subjects(v: &Value) -> Vec<(String, Option<String>)> {
        check(v).into_iter().map(|j| (j.subject, j.finding.pointer)).collect()
    }

    #[test]
    fn a_well_formed_file_meets_the_floor() {
        let v = json!({"sdk": "s", "version": "1", "conformance_version": "1.6.0", "bindings": ["redis", "otel"],
            "sections": {"cases": {}}});
        assert!(check(&v).is_empty());
    }

    #[test]
    fn absences_are_reported_at_the_parent_and_judge_the_member() {
        let got = subjects(&json!({}));
        let want: Vec<(String, Option<String>)> =
            ["/sdk", "/version", "/conformance_version", "/bindings", "/sections"]
                .iter()
                .map(|s| ((*s).to_owned(), Some(String::new())))
                .collect();
        assert_eq!(got, want);
        assert_eq!(subjects(&json!([])), [(String::new(), Some(String::new()))]);
    }

    #[test]
    fn a_name_is_shown_as_it_is() {
        // Helper red team (report): a bidi override in `sdk` reversed the verdict after it in
        // every rendering that did not escape it; no package name or version holds one.
        // And no invisible or look-alike character, nor any other non-ASCII one (the ruling of
        // `is_a_name`): registries write names and versions in printable ASCII.
        let bad = [
            "node: Compatible \u{202e}",
            "php-sdk\n",
            " php-sdk",
            "php\u{1b}[32m",
            "1.0\u{2028}",
            "\t",
            "ph\u{200b}p-sdk",
            "\u{0440}hp-sdk",
            "bäbelqueue-ñ",
            "php sdk",
        ];
        for bad in bad {
            for member in ["sdk", "version"] {
                let mut v =
                    json!({"sdk": "s", "version": "1", "conformance_version": "1.6.0", "bindings": [], "sections": {}});
                v[member] = json!(bad);
                assert_eq!(subjects(&v), [(format!("/{member}"), Some(format!("/{member}")))], "{member} = {bad:?}");
            }
        }
        for good in
            ["php-sdk", "@babelqueue/core", "babelqueue/laravel", "2.4.1+build.5", "github.com/babelqueue/go", "!~"]
        {
            let v =
                json!({"sdk": good, "version": good, "conformance_version": "1.6.0", "bindings": [], "sections": {}});
            assert!(check(&v).is_empty(), "{good:?}");
        }
    }

    #[test]
    fn shapes_the_verdict_would_read_as_absent() {
        let v = json!({"sdk": "", "version": 2, "conformance_version": null, "bindings": ["sqs", "rabbitmq", "core", 7, "Redis"],
            "sections": {"cases": ["order-created"], "sqs": {}}});
        let got: Vec<String> = check(&v).into_iter().map(|j| j.subject).collect();
        assert_eq!(
            got,
            [
                "/sdk",
                "/version",
                "/conformance_version",
                "/bindings/1",
                "/bindings/2",
                "/bindings/3",
                "/bindings/4",
                "/sections/cases"
            ]
        );
        // Each message says what the member is, an empty string told from a string, and which
        // bindings there are (mutation testing: neither was pinned).
        let messages: Vec<String> = check(&v).into_iter().map(|j| j.finding.message).collect();
        assert!(messages[0].starts_with("sdk is an empty string, not a non-empty string"), "{}", messages[0]);
        assert!(
            messages[6].starts_with(
                "bindings lists \"Redis\", which is no binding (the bindings are redis, amqp, sqs, asb, pulsar, kafka, \
                 artemis, otel)"
            ),
            "{}",
            messages[6]
        );
        let v = json!({"sdk": "s", "version": "1", "conformance_version": "1.6.0", "bindings": "redis sqs", "sections": []});
        let got: Vec<(String, String)> = check(&v).into_iter().map(|j| (j.subject, j.finding.message)).collect();
        assert_eq!(got.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>(), ["/bindings", "/sections"]);
        assert!(got[0].1.starts_with("bindings is a string, not an array"), "{}", got[0].1);
    }
}
