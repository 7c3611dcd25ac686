//! The results file (ADR-0032) this runner writes.
//!
//! Invariants: `sections` lists every case of every section the run covered, in manifest order;
//! `bindings` is every binding the reference core carries (decisions R7), complete by
//! construction; `generated_at` is RFC 3339 UTC, from `SOURCE_DATE_EPOCH` when that is set so a
//! run can be reproduced byte for byte.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Map;

use super::outcome::Outcome;

/// A results.json document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultsFile {
    pub sdk: String,
    pub version: String,
    pub conformance_version: String,
    pub generated_at: String,
    pub bindings: Vec<String>,
    /// section → case id → outcome, in manifest order.
    pub sections: Map<String, serde_json::Value>,
}

impl ResultsFile {
    /// Record one case.
    pub fn record(&mut self, section: &str, id: &str, outcome: &Outcome) {
        let entry = self.sections.entry(section.to_owned()).or_insert_with(|| serde_json::Value::Object(Map::new()));
        if let serde_json::Value::Object(m) = entry {
            m.insert(id.to_owned(), serde_json::to_value(outcome).expect("an outcome always serialises"));
        }
    }

    /// Count of each status in one section (or all sections with `None`).
    pub fn counts(&self, section: Option<&str>) -> [usize; 3] {
        let mut c = [0; 3];
        for (name, cases) in &self.sections {
            if section.is_some_and(|s| s != name) {
                continue;
            }
            for o in cases.as_object().into_iter().flat_map(|m| m.values()) {
                match o.get("status").and_then(serde_json::Value::as_str) {
                    Some("pass") => c[0] += 1,
                    Some("skip") => c[2] += 1,
                    _ => c[1] += 1,
                }
            }
        }
        c
    }

    /// Pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("results always serialise");
        s.push('\n');
        s
    }
}

/// Now (or `SOURCE_DATE_EPOCH`) as RFC 3339 UTC, second precision.
pub fn generated_at() -> String {
    let secs =
        std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|s| s.trim().parse::<i64>().ok()).unwrap_or_else(|| {
            SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0))
        });
    rfc3339(secs)
}

/// Seconds since the epoch as `YYYY-MM-DDThh:mm:ssZ`.
pub fn rfc3339(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_749_132_727), "2025-06-05T14:12:07Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59Z");
    }
}
