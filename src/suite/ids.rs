//! The case-id rule: the one implementation `run`, `validate`, `results` and `ids` share.
//!
//! Spec ("Case ids used by a runner"): a section's `cases` array yields each case's `name`, or
//! `<section>#<0-based index>` when it has none; a sub-key with its own `cases` array yields
//! `<sub-key>/<name>` (`<sub-key>/<index>` when unnamed); any other object sub-key is a single
//! case keyed by the sub-key; `description` and `schema` are not cases; the top-level `cases`
//! array is the section named `cases`. Ids come out in manifest order.

use serde_json::Value;

use super::pointer;

/// One case of a section, as the id rule sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseRef<'a> {
    /// The case id.
    pub id: String,
    /// The sub-key this case lives under (`None` for a section-level case).
    pub sub: Option<&'a str>,
    /// The case's position in its `cases` array (`None` for a single-case sub-key).
    pub index: Option<usize>,
    /// RFC 6901 pointer of the case inside manifest.json.
    pub pointer: String,
    /// The case object (or the sub-key object for a single-case sub-key).
    pub value: &'a Value,
}

/// Keys of a section object that never are cases.
pub const NOT_CASES: [&str; 2] = ["description", "schema"];

/// Members of a case, block or section object that are prose, not data (deeper members of
/// those names are data, such as `expect.dead_letter.reason`; in `skip_policy` and an
/// `exceptions` entry `diff` takes them at any depth): `diff` calls an edit of theirs
/// editorial, and the recorded content of a case leaves them out.
pub const PROSE: [&str; 7] = ["description", "reason", "note", "notes", "comment", "$comment", "title"];

/// The keys whose string values name a suite file (a fixture a case or a block reads).
pub const FILE_REF_KEYS: [&str; 3] = ["file", "envelope_file", "fixture"];

fn name_of(case: &Value) -> Option<&str> {
    case.get("name").and_then(Value::as_str)
}

/// Every case of section `section` whose manifest block is `block`.
pub fn case_ids<'a>(section: &str, block: &'a Value) -> Vec<CaseRef<'a>> {
    let base = pointer::join("", section);
    let mut out = Vec::new();
    let list = |arr: &'a [Value], prefix: Option<&'a str>, at: &str, out: &mut Vec<CaseRef<'a>>| {
        for (i, case) in arr.iter().enumerate() {
            let id = match (prefix, name_of(case)) {
                (None, Some(n)) => n.to_owned(),
                (None, None) => format!("{section}#{i}"),
                (Some(sub), Some(n)) => [sub, "/", n].concat(),
                (Some(sub), None) => pointer::join_index(sub, i),
            };
            out.push(CaseRef { id, sub: prefix, index: Some(i), pointer: pointer::join_index(at, i), value: case });
        }
    };
    match block {
        Value::Array(arr) => list(arr, None, &base, &mut out),
        Value::Object(map) => {
            for (key, value) in map {
                if NOT_CASES.contains(&key.as_str()) {
                    continue;
                }
                if key == "cases" {
                    if let Value::Array(arr) = value {
                        list(arr, None, &pointer::join(&base, "cases"), &mut out);
                    }
                    continue;
                }
                let Value::Object(sub) = value else { continue };
                let at = pointer::join(&base, key);
                match sub.get("cases") {
                    Some(Value::Array(arr)) => list(arr, Some(key), &pointer::join(&at, "cases"), &mut out),
                    _ => out.push(CaseRef { id: key.clone(), sub: Some(key), index: None, pointer: at, value }),
                }
            }
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ids(section: &str, block: Value) -> Vec<String> {
        case_ids(section, &block).into_iter().map(|c| c.id).collect()
    }

    #[test]
    fn spec_examples() {
        let sqs = json!({
            "description": "d",
            "attribute_projection": {"description": "x", "envelope_file": "f"},
            "attempts_reconciliation": {"cases": [{"name": "first-delivery"}, {"name": "third-delivery"}]},
            "schema_version_gate": {"property": "p", "cases": [{"value": "1"}, {"absent": true}]},
            "note": "a string sub-key is not a case"
        });
        assert_eq!(
            ids("sqs", sqs),
            [
                "attribute_projection",
                "attempts_reconciliation/first-delivery",
                "attempts_reconciliation/third-delivery",
                "schema_version_gate/0",
                "schema_version_gate/1"
            ]
        );
        assert_eq!(ids("cases", json!([{"name": "a"}, {"file": "x"}])), ["a", "cases#1"]);
        assert_eq!(
            ids("payload_schema", json!({"schema": {"type": "object"}, "cases": [{"name": "v"}, {}]})),
            ["v", "payload_schema#1"]
        );
    }

    #[test]
    fn pointers_address_the_case() {
        let block = json!({"a/b": {"cases": [{"name": "x"}]}, "cases": [{}]});
        let refs = case_ids("s~", &block);
        assert_eq!(refs[0].pointer, "/s~0/a~1b/cases/0");
        assert_eq!(refs[1].pointer, "/s~0/cases/0");
        assert_eq!(refs[1].id, "s~#0");
    }
}
