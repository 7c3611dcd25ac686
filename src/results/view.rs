//! A lenient typed view of a results file, for the checks and the report.
//!
//! Invariants: the view is built from any JSON value and never fails: a member of the wrong
//! type reads as absent (the schema check reports it, and, whatever the schema allows, the
//! checker's own floor does for a member the verdict reads, [`super::floor`]), so one broken
//! part of a file does not hide the rest from the id and scope checks. Sections and case ids
//! keep the file's order; a status other than `pass` / `fail` / `skip` reads as `None`, which
//! is never counted as a pass.

use serde_json::Value;

use super::model::{Counts, Status};
use crate::suite::pointer;

/// One reported case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseResult {
    pub id: String,
    /// `None` when the status is missing or not one of the three.
    pub status: Option<Status>,
    pub reason: Option<String>,
    /// The JSON type of a `reason` that is there but is no string (it counts as no reason).
    pub reason_type: Option<&'static str>,
}

/// One reported section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionResults {
    pub name: String,
    /// The reported cases; `None` when the section's value is not an object.
    pub cases: Option<Vec<CaseResult>>,
}

impl SectionResults {
    /// RFC 6901 pointer of this section inside the results file.
    pub fn pointer(&self) -> String {
        pointer::join(SECTIONS, &self.name)
    }

    /// The reported cases (none when the section is malformed).
    pub fn cases(&self) -> &[CaseResult] {
        self.cases.as_deref().unwrap_or_default()
    }

    /// The tally of the cases whose status is one of the three (an unknown status is not
    /// counted, and never as a pass).
    pub fn counts(&self) -> Counts {
        self.cases().iter().filter_map(|c| c.status).collect()
    }
}

/// The pointer of the `sections` member.
pub const SECTIONS: &str = "/sections";

/// What a results file says, as far as it can be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Results {
    pub sdk: Option<String>,
    pub version: Option<String>,
    pub conformance_version: Option<String>,
    /// `bindings` entries that are strings, with their index.
    pub bindings: Vec<(usize, String)>,
    pub sections: Vec<SectionResults>,
}

fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn status(v: &Value) -> Option<Status> {
    Status::parse(v.get("status")?.as_str()?)
}

impl Results {
    /// Read the view from a parsed results file.
    pub fn from_value(v: &Value) -> Self {
        let bindings = v
            .get("bindings")
            .and_then(Value::as_array)
            .map(|a| a.iter().enumerate().filter_map(|(i, b)| Some((i, b.as_str()?.to_owned()))).collect())
            .unwrap_or_default();
        let sections = v
            .get("sections")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(name, cases)| SectionResults {
                        name: name.clone(),
                        cases: cases.as_object().map(|c| {
                            c.iter()
                                .map(|(id, o)| CaseResult {
                                    id: id.clone(),
                                    status: status(o),
                                    reason: string(o, "reason"),
                                    reason_type: o.get("reason").filter(|r| !r.is_string()).map(super::floor::kind_of),
                                })
                                .collect()
                        }),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Self {
            sdk: string(v, "sdk"),
            version: string(v, "version"),
            conformance_version: string(v, "conformance_version"),
            bindings,
            sections,
        }
    }

    /// One reported section by name.
    pub fn section(&self, name: &str) -> Option<&SectionResults> {
        self.sections.iter().find(|s| s.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_what_it_can_and_ignores_the_rest() {
        let v = json!({
            "sdk": "babelqueue-go", "version": 3, "bindings": ["sqs", 7, "otel"],
            "sections": {
                "cases": {"a": {"status": "pass"}, "b": {"status": "fail", "reason": "r"}, "c": {"status": "passed"}},
                "sqs": []
            }
        });
        let r = Results::from_value(&v);
        assert_eq!(r.sdk.as_deref(), Some("babelqueue-go"));
        assert_eq!(r.version, None);
        assert_eq!(r.bindings, [(0, "sqs".to_owned()), (2, "otel".to_owned())]);
        let cases = r.section("cases").unwrap();
        assert_eq!(cases.counts(), Counts { pass: 1, fail: 1, skip: 0 }, "an unknown status is never a pass");
        assert_eq!(cases.cases()[1].reason.as_deref(), Some("r"));
        assert_eq!(r.section("sqs").unwrap().cases, None);
        assert_eq!(r.section("sqs").unwrap().pointer(), "/sections/sqs");
        assert_eq!(Results::from_value(&json!([])), Results::default());
    }
}
