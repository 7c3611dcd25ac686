//! The results-format page, from `schema/results.schema.json`, `schema/results.example.json`,
//! the sections map, `exceptions` and `skip_policy`.

use std::fmt::Write as _;

use serde_json::Value;

use super::markdown::{code, compact, prose, relative, table};
use super::{Context, GENERATED_NOTE, RESULTS_PAGE};
use crate::suite::{RESULTS_EXAMPLE, RESULTS_SCHEMA, Scope};

/// The type of a schema, in words.
fn type_of(schema: &Value) -> String {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().unwrap_or(r);
        return format!("{} (below)", code(name));
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return format!("one of {}", values.iter().map(|v| code(&compact(v))).collect::<Vec<_>>().join(", "));
    }
    let ty = schema.get("type").and_then(Value::as_str).unwrap_or("any");
    match ty {
        "array" => match schema.get("items") {
            Some(items) => format!("array of {}", type_of(items)),
            None => "array".into(),
        },
        "object" => match schema.get("additionalProperties") {
            Some(Value::Object(inner)) => {
                let keys = schema
                    .get("propertyNames")
                    .map(constraints)
                    .filter(|c| !c.is_empty())
                    .map(|c| format!(" ({c})"))
                    .unwrap_or_default();
                format!("object: name{keys} → {}", type_of(&Value::Object(inner.clone())))
            }
            _ => "object".into(),
        },
        other => other.to_owned(),
    }
}

/// The constraints of a schema besides its type, in words.
fn constraints(schema: &Value) -> String {
    let mut out = Vec::new();
    if schema.get("minLength").and_then(Value::as_u64) == Some(1) {
        out.push("non-empty".to_owned());
    }
    if let Some(f) = schema.get("format").and_then(Value::as_str) {
        out.push(format!("format {}", code(f)));
    }
    if let Some(p) = schema.get("pattern").and_then(Value::as_str) {
        out.push(format!("matches {}", code(p)));
    }
    if schema.get("uniqueItems").and_then(Value::as_bool) == Some(true) {
        out.push("no repeats".to_owned());
    }
    out.join("; ")
}

/// The members table of an object schema.
fn members(schema: &Value) -> String {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let rows: Vec<Vec<String>> = schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, s)| {
            vec![
                code(name),
                type_of(s),
                if required.contains(&name.as_str()) { "yes".into() } else { "no".into() },
                // The description is prose from the schema; the constraints are Markdown already.
                [prose(s.get("description").and_then(Value::as_str).unwrap_or_default()), constraints(s)]
                    .into_iter()
                    .filter(|t| !t.is_empty())
                    .collect::<Vec<_>>()
                    .join(" "),
            ]
        })
        .collect();
    table(&["member", "type", "required", "meaning"], &rows)
}

/// The page.
pub fn page(cx: &Context<'_>) -> Result<String, String> {
    let schema =
        cx.suite.json(RESULTS_SCHEMA).ok_or_else(|| format!("{RESULTS_SCHEMA} is missing or does not parse"))?;
    let example_text =
        cx.suite.file(RESULTS_EXAMPLE).and_then(|f| f.text()).ok_or_else(|| format!("{RESULTS_EXAMPLE} is missing"))?;
    let mut out = String::new();
    let _ = writeln!(out, "{GENERATED_NOTE}\n");
    let _ = writeln!(out, "# The results format\n");
    if let Some(d) = schema.get("description").and_then(Value::as_str) {
        let _ = writeln!(out, "{}\n", prose(d));
    }
    let _ = writeln!(
        out,
        "A conformance run writes one JSON file, UTF-8, validated by [`{RESULTS_SCHEMA}`]({}) (JSON Schema Draft 2020-12); [`{RESULTS_EXAMPLE}`]({}) is a valid, abbreviated example. `bqsuite run` writes such a file for the reference core, or for an SDK through its adapter; an SDK's own runner writes it itself.\n",
        relative(RESULTS_PAGE, RESULTS_SCHEMA),
        relative(RESULTS_PAGE, RESULTS_EXAMPLE)
    );
    let _ = writeln!(out, "## Members\n");
    let extra = if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        " No other member is allowed."
    } else {
        ""
    };
    let _ = writeln!(out, "The file is one JSON object.{extra}\n");
    out.push_str(&members(schema));
    out.push('\n');
    for (name, def) in schema.get("$defs").and_then(Value::as_object).into_iter().flatten() {
        let _ = writeln!(out, "## `{name}`\n");
        let _ = writeln!(
            out,
            "What each case id of a section maps to: one JSON object.{}\n",
            if def.get("additionalProperties") == Some(&Value::Bool(false)) {
                " No other member is allowed."
            } else {
                ""
            }
        );
        out.push_str(&members(def));
        out.push('\n');
        if let (Some(cond), Some(then)) = (def.get("if"), def.get("then")) {
            let when: Vec<String> = cond
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(k, v)| {
                    format!(
                        "{} is {}",
                        code(k),
                        v.get("const").map(|c| code(&compact(c))).unwrap_or_else(|| type_of(v))
                    )
                })
                .collect();
            let mut then_parts = Vec::new();
            for r in then.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
                then_parts.push(format!("{} is required", code(r)));
            }
            for (k, v) in then.get("properties").and_then(Value::as_object).into_iter().flatten() {
                let c = constraints(v);
                if !c.is_empty() {
                    then_parts.push(format!("{} {c}", code(k)));
                }
            }
            let _ = writeln!(out, "When {}: {}.\n", when.join(" and "), then_parts.join(", and "));
        }
    }
    let _ = writeln!(out, "## Example\n");
    let _ = writeln!(out, "`{RESULTS_EXAMPLE}` (a real file lists every case of every section in scope):\n");
    let _ = writeln!(out, "```json\n{}\n```\n", example_text.trim_end());

    let _ = writeln!(out, "## What the schema does not check\n");
    let _ = writeln!(
        out,
        "`bqsuite results check FILE --suite DIR` checks a file against the suite it ran (and the GitHub Action runs it in an SDK's CI). A file is *Compatible* when none of these holds:\n"
    );
    let core: Vec<String> =
        cx.suite.sections().iter().filter(|s| s.scope == Some(Scope::Core)).map(|s| code(s.name)).collect();
    let _ = writeln!(
        out,
        "- A required section is missing: every `core` section ({}) and every section of each binding listed in `bindings` ([the sections by scope]({})).",
        core.join(", "),
        relative(RESULTS_PAGE, super::SECTIONS_INDEX)
    );
    let _ = writeln!(
        out,
        "- A case id of a required section is missing, or an id is reported that its section does not have (ids: the one case-id rule, `bqsuite ids`)."
    );
    let _ =
        writeln!(out, "- A section is reported whose scope the SDK does not carry, or that the suite does not have.");
    for e in cx.suite.exceptions() {
        let _ = writeln!(
            out,
            "- An SDK of the {} family lists {} in `bindings` ({}: the family has no conformant path for it; its sections are left out, not skipped).",
            code(&e.family),
            code(&e.binding),
            e.adr
        );
    }
    let _ = writeln!(out, "- A case is `fail`.");
    let policy = cx.suite.skip_policy();
    let rules: Vec<String> =
        policy.rules.iter().map(|r| format!("{} ({})", code(&r.name), r.adrs.join(", "))).collect();
    let _ = writeln!(
        out,
        "- A `skip` of a case the skip policy does not allow, or whose reason cites none of its rule's ADRs; the rules: {}. Each section page lists the rules that apply to it.",
        rules.join(", ")
    );
    let limited: Vec<String> = policy
        .rules
        .iter()
        .filter(|r| !r.families.is_empty())
        .map(|r| {
            let fams: Vec<String> = r.families.iter().map(|f| code(f)).collect();
            format!("{} ({})", code(&r.name), fams.join(", "))
        })
        .collect();
    let whole: Vec<String> = policy.rules.iter().filter(|r| r.all_or_none).map(|r| code(&r.name)).collect();
    if !limited.is_empty() {
        let _ = writeln!(
            out,
            "- A `skip` under a rule limited to SDK families, by an SDK of another family: {}.",
            limited.join(", ")
        );
    }
    if !whole.is_empty() {
        let _ = writeln!(
            out,
            "- A `skip` under a rule whose condition is about the whole run or SDK (`all_or_none`), in a file where a case that rule covers ran (pass or fail): {}.",
            whole.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "- Every case of a required section is a skip (the section was not run), unless a rule may skip it whole."
    );
    let _ = writeln!(
        out,
        "- `conformance_version` is not the suite's version (the ids are then not compared: check against that version)."
    );
    let _ = writeln!(
        out,
        "- Whatever the schema allows, a member the verdict reads is missing or of another shape: the file is one object, `sdk` and `version` are names as package registries write them (printable ASCII without white space), `conformance_version` is a string, every `bindings` entry names a binding, every section is an object, and every case has a `status` of `pass`, `fail` or `skip`."
    );
    let _ = writeln!(
        out,
        "- `generated_at` has the schema's shape but names no instant (a month 13, a 30 February, 25 o'clock): results check asserts the schema's `format: date-time` itself, which Draft 2020-12 leaves an annotation.\n"
    );
    let _ = writeln!(out, "The findings:\n");
    out.push_str(&super::codes::range_table(RESULTS_PAGE, "BQ601", "BQ699"));
    let _ = writeln!(out, "\n## What results check cannot know\n");
    let _ = writeln!(
        out,
        "A results file is the SDK's own account of its run. `results check` holds it to the suite, but some things only the run knows, and a file can say them falsely without any finding:\n"
    );
    for limit in [
        "**Which bindings the package carries.** `bindings` decides which sections are required. A file that leaves out a binding the package has, together with that binding's sections, is judged on the rest. The package's manifest (composer.json, package.json, …) is where a reviewer checks it.",
        "**Whether a skip's condition holds.** A rule allows a skip under a condition (no live Redis, a message API that cannot carry a null, a consumer without the native receive count); the runner decides it holds and says so in the reason. `all_or_none` refutes a condition only when the same file shows a case it covers running, and `families` limits a rule by the SDK's name.",
        "**What a reason says.** A skip's reason must cite an allowed ADR as a word (`ADR-0033`); its prose is not read, so \"we have not read ADR-0031 yet\" cites ADR-0031.",
        "**That a `pass` was earned.** The outcomes are the runner's. `bqsuite run --sdk` (the adapter protocol) is the route where bqsuite judges every case itself.",
        "**Which copy the run read.** Against a vendored copy, `results check` refuses one whose recorded cases, scopes, skip policy or results schema differ from the published version's (on the version the tool records), but the copy the runner read may be another. The GitHub Action checks results against the release itself, fetched and verified, and `fetch --check` holds the vendored copy to it.",
    ] {
        let _ = writeln!(out, "- {limit}");
    }
    Ok(out)
}
