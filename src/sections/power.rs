//! The suite's recorded power: which cases each broken variant of the reference core fails.
//!
//! `power.json` beside this module is the kill matrix of the canonical suite (every variant of
//! [`Broken`] × every case, run with a live Redis), recorded by
//! `bqsuite dev kill-matrix --record src/sections/power.json` and embedded at build time.
//! `validate` runs each recorded pair again on the suite it checks (BQ316), so an edit that
//! loosens a case until a variant it caught passes it is a finding, although the reference core
//! still passes the case; on a suite of the recorded version, only the pairs of the cases whose
//! content differs from the recorded one (the others' outcome is this recording).
//!
//! Invariants:
//! - the file is the recording of the suite version it names, and applies to that version and
//!   later ones (a case it names must still exist and still fail under its variant); an older
//!   suite is not held to it;
//! - it names every case of that suite: the ones no variant fails are listed as `unprotected`,
//!   section by section, so a published case stays (decisions R1) even where no variant shows
//!   what it catches (BQ317), and the list of cases the catalogue leaves untested is in view;
//! - it pins the content of every case of that suite ([`crate::suite::content`]: the case
//!   without its prose, its shared fields and the fixtures they name, as a 64-bit fingerprint),
//!   so that on a suite of that same version (the window before its tag, when neither BQ956 nor
//!   the release gate's diff compares it with anything) an edit to any case is a finding
//!   (BQ318) until it is recorded, whatever the kill matrix can see of it; a later version is
//!   compared with its previous release by the release gate instead;
//! - it pins each rule of that suite's skip policy the same way, by name (BQ319): a rule
//!   widened, added or dropped before the tag changes which cases a results file may skip and
//!   still be Compatible, which no case's fingerprint shows;
//! - it pins the bytes of that suite's two schema files (BQ320), as a fixture's: BQ406's
//!   corpus of malformed results files cannot be complete, and a results schema weakened where
//!   the corpus does not look would otherwise pass before the tag;
//! - [`render`] writes it deterministically: variants, sections and ids sorted, one variant per
//!   line group, so a re-recording's diff shows exactly the pairs gained or lost;
//! - every variant it names is in the catalogue (an unknown name is a parse error, which the
//!   tests catch; the embedded file is data the build ships, not input);
//! - `tests/kill_matrix.rs` holds it equal to the matrix of the canonical suite, so it can be
//!   neither stale nor hand-edited into something the suite does not do.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use crate::sdk::reference::Broken;
use crate::suite::pins::Pins;

/// The embedded recording.
const RECORDED: &str = crate::suite::pins::RECORDED;

/// One recorded catch: `variant` fails case `id` of `section`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pair {
    pub variant: Broken,
    pub section: String,
    pub id: String,
}

/// A recording: what it pins ([`Pins`]: the suite version it was made on and every case's,
/// rule's and schema's fingerprint, reached through `Deref`), every pair, and the cases no
/// variant fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Power {
    pub pins: Pins,
    pub pairs: Vec<Pair>,
    /// (section, id) of each case of the recorded suite that no variant fails, sorted.
    pub unprotected: Vec<(String, String)>,
}

impl std::ops::Deref for Power {
    type Target = Pins;
    fn deref(&self) -> &Pins {
        &self.pins
    }
}

impl Power {
    /// The pairs of `section`.
    pub fn of_section<'a>(&'a self, section: &'a str) -> impl Iterator<Item = &'a Pair> + 'a {
        self.pairs.iter().filter(move |p| p.section == section)
    }

    /// The ids of `section` that no variant fails.
    pub fn unprotected_of<'a>(&'a self, section: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.unprotected.iter().filter(move |(s, _)| s == section).map(|(_, id)| id.as_str())
    }
}

/// The recording embedded in this build.
pub fn recorded() -> &'static Power {
    static POWER: OnceLock<Power> = OnceLock::new();
    POWER.get_or_init(|| match parse(RECORDED) {
        Ok(p) => p,
        // The file ships inside the binary and the tests parse it: this is a broken build.
        Err(e) => panic!("src/sections/power.json: {e}"),
    })
}

/// Read a recording's text.
pub fn parse(text: &str) -> Result<Power, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let catches = v.get("catches").and_then(Value::as_object).ok_or("\"catches\" is not an object")?;
    let mut pairs = Vec::new();
    for (name, sections) in catches {
        let variant = Broken::parse(name).ok_or_else(|| format!("{name:?} is not a variant of the catalogue"))?;
        let sections = sections.as_object().ok_or_else(|| format!("catches of {name} are not an object"))?;
        for (section, ids) in sections {
            let ids = ids.as_array().ok_or_else(|| format!("{name}/{section} is not an array"))?;
            for id in ids {
                let id = id.as_str().ok_or_else(|| format!("{name}/{section} holds a non-string id"))?;
                pairs.push(Pair { variant, section: section.clone(), id: id.to_owned() });
            }
        }
    }
    pairs.sort();
    let listed = v.get("unprotected").and_then(Value::as_object).ok_or("\"unprotected\" is not an object")?;
    let mut unprotected = Vec::new();
    for (section, ids) in listed {
        let ids = ids.as_array().ok_or_else(|| format!("unprotected/{section} is not an array"))?;
        for id in ids {
            let id = id.as_str().ok_or_else(|| format!("unprotected/{section} holds a non-string id"))?;
            unprotected.push((section.clone(), id.to_owned()));
        }
    }
    unprotected.sort();
    let pins = crate::suite::pins::from_value(&v)?;
    Ok(Power { pins, pairs, unprotected })
}

/// The text of a recording of `pairs`, whose cases no variant fails are `unprotected` ((section,
/// id); the order does not matter), with what it `pins` (made of the suite: [`Pins::of`]).
pub fn render(pairs: &[Pair], unprotected: &[(String, String)], pins: &Pins) -> String {
    let mut by: BTreeMap<&str, BTreeMap<&str, Vec<&str>>> = BTreeMap::new();
    for p in pairs {
        by.entry(p.variant.name()).or_default().entry(&p.section).or_default().push(&p.id);
    }
    let mut catches = Map::new();
    for (variant, sections) in by {
        let mut m = Map::new();
        for (section, mut ids) in sections {
            ids.sort_unstable();
            ids.dedup();
            m.insert(section.to_owned(), json!(ids));
        }
        catches.insert(variant.to_owned(), Value::Object(m));
    }
    let mut bare: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (section, id) in unprotected {
        bare.entry(section).or_default().push(id);
    }
    let unprotected: Map<String, Value> = bare
        .into_iter()
        .map(|(section, mut ids)| {
            ids.sort_unstable();
            ids.dedup();
            (section.to_owned(), json!(ids))
        })
        .collect();
    let mut pinned: BTreeMap<&str, Map<String, Value>> = BTreeMap::new();
    for ((section, id), print) in &pins.content {
        pinned.entry(section).or_default().insert(id.clone(), json!(print));
    }
    let pinned: Map<String, Value> = pinned.into_iter().map(|(s, m)| (s.to_owned(), Value::Object(m))).collect();
    let doc = json!({
        "description": "The suite's recorded power: for each broken variant of the reference core, the cases it fails, \
                        section by section (the kill matrix of this suite with a live Redis); the cases no variant \
                        fails (unprotected); the content of every case (a fingerprint of the case without its prose, its \
                        shared fields and its fixtures); and the content of every rule of the skip policy (without its \
                        prose), by name; the bytes of the schema files; and every section's scope. validate runs every pair again (BQ316; on a suite of this version, those of the cases whose content differs), holds \
                        every case named here to exist (BQ316, BQ317) and, on a suite of this version, every case to its \
                        content (BQ318), the skip policy to its rules (BQ319) and the schemas to their bytes (BQ320). Written by `bqsuite dev kill-matrix --record src/sections/power.json`; never edited by hand.",
        "suite": pins.suite.to_string(),
        "catches": catches,
        "unprotected": unprotected,
        "content": pinned,
        "skip_policy": pins.policy,
        "schemas": pins.schemas,
        "scopes": pins.scopes,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_recording_parses_and_renders_back_to_itself() {
        let p = recorded();
        assert!(!p.pairs.is_empty());
        assert!(!p.unprotected.is_empty());
        assert_eq!(
            p.content.len(),
            p.pairs.iter().map(|x| (&x.section, &x.id)).collect::<std::collections::BTreeSet<_>>().len()
                + p.unprotected.len()
        );
        assert_eq!(render(&p.pairs, &p.unprotected, &p.pins), RECORDED);
    }

    #[test]
    fn an_unknown_variant_is_refused() {
        let e = parse(
            r#"{"suite": "1.6.0", "catches": {"no-such-fault": {"cases": ["x"]}}, "unprotected": {}, "content": {}}"#,
        )
        .unwrap_err();
        assert!(e.contains("no-such-fault"), "{e}");
    }
}
