//! The `operations` region of `docs/adapter-protocol.md`: every operation's request members and
//! result, and every definition they use, rendered from the protocol's schema (the one its
//! serde types generate), so that an adapter's author reads the members in the page rather than
//! in the 90 KB schema, and the page cannot drift from the types.
//!
//! Invariants: everything comes from [`crate::adapter::protocol::schema`] and nothing else; the
//! operations in the schema's order (the interface's); a request's members are written out in
//! its row (its `$defs` entry is not repeated below), every other definition a row names is
//! listed once, by name, after the table, and so are the definitions those name, until none is
//! left; an optional member is marked `?`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Map, Value};

/// The region's Markdown.
pub fn operations() -> String {
    let root = crate::adapter::protocol::schema().to_value();
    let empty = Map::new();
    let defs = root.get("$defs").and_then(Value::as_object).unwrap_or(&empty);
    let mut out = Types { named: BTreeSet::new(), inlined: BTreeSet::new() };
    let branches = |def: &str| -> Vec<Value> {
        defs.get(def).and_then(|d| d.get("oneOf")).and_then(Value::as_array).cloned().unwrap_or_default()
    };
    let op_of = |b: &Value| b.pointer("/properties/op/const").and_then(Value::as_str).map(str::to_owned);
    let results: Vec<(String, Value)> = branches("Response")
        .iter()
        .filter_map(|b| Some((op_of(b)?, b.pointer("/properties/result")?.clone())))
        .collect();
    let mut text = String::from("| operation | request members (beside `op`) | result |\n|---|---|---|\n");
    for b in branches("Request") {
        let Some(op) = op_of(&b) else { continue };
        let request = match b.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
            Some(name) => {
                out.inlined.insert(name.to_owned());
                defs.get(name).map_or_else(String::new, |d| out.members(d))
            }
            None => String::new(),
        };
        let request = if request.is_empty() { "none".to_owned() } else { request };
        let result = results.iter().find(|(o, _)| *o == op).map_or_else(|| "?".to_owned(), |(_, r)| out.ty(r));
        let _ = writeln!(text, "| `{op}` | {request} | {result} |");
    }
    // Every definition named, and those they name in turn.
    let mut listed = BTreeSet::new();
    let mut lines = Vec::new();
    loop {
        let next: Vec<String> =
            out.named.iter().filter(|n| !listed.contains(*n) && !out.inlined.contains(*n)).cloned().collect();
        if next.is_empty() {
            break;
        }
        for name in next {
            let described = defs.get(&name).map_or_else(|| "?".to_owned(), |d| out.definition(d));
            lines.push((name.clone(), described));
            listed.insert(name);
        }
    }
    lines.sort();
    text.push_str("\nThe definitions they name (`?`: an optional member):\n\n");
    for (name, described) in lines {
        let _ = writeln!(text, "- `{name}`: {described}");
    }
    text
}

struct Types {
    /// The definitions named so far.
    named: BTreeSet<String>,
    /// The requests, written out in their rows.
    inlined: BTreeSet<String>,
}

impl Types {
    /// A schema's type, briefly: a definition by its name, a constant as JSON.
    fn ty(&mut self, s: &Value) -> String {
        let Value::Object(m) = s else { return "any".into() };
        if let Some(name) = m.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
            self.named.insert(name.to_owned());
            return format!("`{name}`");
        }
        if let Some(c) = m.get("const") {
            return format!("`{c}`");
        }
        if let Some(Value::Array(values)) = m.get("enum") {
            let each: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
            return format!("one of {}", each.join(", "));
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = m.get(key) {
                let each: Vec<String> = branches.iter().map(|b| self.ty(b)).collect();
                return each.join(" or ");
            }
        }
        let types: Vec<&str> = match m.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if types.is_empty() {
            return "any".into();
        }
        types.iter().map(|t| self.one(m, t)).collect::<Vec<_>>().join(" or ")
    }

    fn one(&mut self, m: &Map<String, Value>, t: &str) -> String {
        match t {
            "integer" => match m.get("format").and_then(Value::as_str) {
                Some(f) => format!("integer ({f})"),
                None => "integer".into(),
            },
            "number" => "number".into(),
            "string" => {
                let how = m.get("contentEncoding").or_else(|| m.get("format")).and_then(Value::as_str);
                match (m.get("maxLength").and_then(Value::as_u64), how) {
                    (Some(n), _) => format!("string (at most {n} characters)"),
                    (None, Some(e)) => format!("string ({e})"),
                    (None, None) => "string".into(),
                }
            }
            "array" => {
                if let Some(Value::Array(items)) = m.get("prefixItems") {
                    let each: Vec<String> = items.iter().map(|i| self.ty(i)).collect();
                    return format!("[{}]", each.join(", "));
                }
                match m.get("items") {
                    Some(items) => format!("array of {}", self.ty(items)),
                    None => "array".into(),
                }
            }
            "object" => {
                if m.contains_key("properties") {
                    return format!("{{{}}}", self.members(&Value::Object(m.clone())));
                }
                match m.get("additionalProperties") {
                    Some(v @ Value::Object(_)) => format!("object of {}", self.ty(v)),
                    _ => "object".into(),
                }
            }
            other => other.to_owned(),
        }
    }

    /// An object's members: `` `name` (type)``, `?` after an optional one.
    fn members(&mut self, s: &Value) -> String {
        let required: Vec<&str> =
            s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let Some(props) = s.get("properties").and_then(Value::as_object) else { return String::new() };
        props
            .iter()
            .map(|(name, p)| {
                let mark = if required.contains(&name.as_str()) { "" } else { "?" };
                format!("`{name}`{mark} ({})", self.ty(p))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A definition in words: its members, its branches, or its type.
    fn definition(&mut self, d: &Value) -> String {
        if let Some(Value::Array(branches)) = d.get("oneOf").or_else(|| d.get("anyOf")) {
            let each: Vec<String> = branches
                .iter()
                .map(|b| if b.get("properties").is_some() { format!("{{{}}}", self.members(b)) } else { self.ty(b) })
                .collect();
            return format!("one of {}", each.join("; "));
        }
        if d.get("properties").is_some() {
            return format!("{{{}}}", self.members(d));
        }
        self.ty(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_has_its_row_and_every_named_definition_its_line() {
        let text = operations();
        let schema = crate::adapter::protocol::schema().to_value();
        let ops: Vec<&str> = schema["$defs"]["Response"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| b.pointer("/properties/op/const").and_then(Value::as_str))
            .collect();
        assert!(ops.len() > 40, "{ops:?}");
        for op in ops {
            assert!(text.contains(&format!("\n| `{op}` | ")), "{op}: {text}");
        }
        assert!(text.contains("\n| `decode` | `body` (`Bytes`) | `DecodeOutcome` |\n"), "{text}");
        // What the newcomer had to dig out of the schema: the broker messages' members.
        assert!(text.contains("`approximate_receive_count`? (string or null)"), "{text}");
        assert!(text.contains("\n- `DecodeOutcome`: one of {`kind` (`\"decoded\"`), "), "{text}");
        // Every definition named is listed (the requests are in their rows instead).
        for name in text.match_indices("(`").filter_map(|(i, _)| text[i + 2..].split('`').next()) {
            if name.chars().next().is_some_and(char::is_uppercase) {
                assert!(text.contains(&format!("\n- `{name}`: ")), "{name} is named but not listed");
            }
        }
    }
}
