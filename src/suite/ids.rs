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

/// Is `key: value` a member of a section object that is a block: an object, neither
/// [`NOT_CASES`] nor `cases`, holding a `cases` array (its cases are `<key>/<name>`)?
pub fn is_block(key: &str, value: &Value) -> bool {
    key != "cases" && !NOT_CASES.contains(&key) && value.get("cases").is_some_and(Value::is_array)
}

/// The shared members of a section (`sub` `None`) or of one of its blocks, in manifest order,
/// prose included (a caller that leaves prose out says so). `block` is the section's manifest
/// value.
///
/// - `sub` `None`: every member of the section object that is neither a case nor a block, that
///   is each [`NOT_CASES`] member (`description`, `schema`), a `cases` member that is not an
///   array, and every other member that is not an object (an object is a block or a single
///   case). They are shared by every case of the section, a block's or a single one too (as
///   `payload_schema`'s `schema` is by its cases). A section written as an array shares nothing.
/// - `Some(b)`: the members of block `b` beside its `cases` array, shared by the block's cases
///   (besides the section's); none when `b` is no block (a single case's members are its own).
///
/// The one rule every reader of shared members follows: `diff` (a fixture's readers, a shared
/// field's change), the content a recording pins (BQ318) and the section pages.
pub fn shared<'a>(block: &'a Value, sub: Option<&str>) -> Vec<(&'a str, &'a Value)> {
    let Value::Object(members) = block else { return Vec::new() };
    match sub {
        None => members
            .iter()
            .filter(|(k, v)| match k.as_str() {
                k if NOT_CASES.contains(&k) => true,
                "cases" => !v.is_array(),
                _ => !v.is_object(),
            })
            .map(|(k, v)| (k.as_str(), v))
            .collect(),
        Some(b) => match members.get(b) {
            Some(v @ Value::Object(inner)) if is_block(b, v) => {
                inner.iter().filter(|(k, _)| k.as_str() != "cases").map(|(k, v)| (k.as_str(), v)).collect()
            }
            _ => Vec::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ids(section: &str, block: Value) -> Vec<String> {
        case_ids(section, &block).into_iter().map(|c| c.id).collect()
    }

    #[test]
    fn shared_members_are_what_is_neither_a_case_nor_a_block() {
        let section = json!({
            "description": "d",
            "schema": {"type": "object"},
            "envelope_file": "fixtures/e.json",
            "limits": [1, 2],
            "single": {"envelope_file": "fixtures/s.json"},
            "b": {"description": "B", "fixture": "fixtures/b.json", "cases": [{"name": "x"}]},
            "schema_like": {"cases": "not an array"}
        });
        let keys = |sub| shared(&section, sub).into_iter().map(|(k, _)| k).collect::<Vec<_>>();
        assert_eq!(keys(None), ["description", "schema", "envelope_file", "limits"]);
        assert_eq!(keys(Some("b")), ["description", "fixture"]);
        // A single case, an object that holds no `cases` array, and an absent key share nothing.
        for sub in ["single", "schema_like", "absent", "schema", "description"] {
            assert!(keys(Some(sub)).is_empty(), "{sub}");
        }
        // A `cases` member that is not an array is no case: it is the section's data.
        let odd = json!({"cases": {"file": "fixtures/c.json"}, "only": {"y": 1}});
        assert_eq!(shared(&odd, None).into_iter().map(|(k, _)| k).collect::<Vec<_>>(), ["cases"]);
        assert!(shared(&json!([{"name": "a"}]), None).is_empty());
        // The block test agrees with the id rule: a block's cases are `<key>/<name>`.
        assert!(is_block("b", &section["b"]));
        assert!(!is_block("schema", &json!({"cases": []})) && !is_block("cases", &json!({"cases": []})));
        assert!(!is_block("single", &section["single"]) && !is_block("schema_like", &section["schema_like"]));
        let ids: Vec<_> = case_ids("s", &section).into_iter().map(|c| (c.id, c.sub)).collect();
        assert_eq!(
            ids,
            [
                ("single".to_owned(), Some("single")),
                ("b/x".to_owned(), Some("b")),
                ("schema_like".to_owned(), Some("schema_like"))
            ]
        );
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
