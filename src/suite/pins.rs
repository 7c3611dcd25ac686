//! What the suite's recording pins: the suite version it was made on, the content of every case,
//! the fingerprints of every skip-policy rule and of both schema files ([`super::content`]),
//! and every section's scope. The recording is `src/sections/power.json` (written by `bqsuite dev
//! kill-matrix --record`); its catches, which broken variant of the reference core each case
//! fails, are the registry's ([`crate::sections::power`], which reads the same file and takes
//! these pins from [`from_value`]).
//!
//! Invariants:
//! - The pins apply to a suite of the recorded version only ([`Pins::holds`]: the same
//!   MAJOR.MINOR.PATCH, a pre-release of it included, the version being prepared); a later one
//!   is compared with its previous release by the release gate instead.
//! - `validate` holds such a suite to every pin (BQ318–BQ320). `results check` refuses one
//!   whose section scopes, skip-policy rules or results schema are not the recorded ones, or
//!   that lacks a recorded case ([`unpinned`]): they decide its verdict (which sections and
//!   cases a file must report, which skips are allowed, which shapes are malformed), so a
//!   vendored copy edited to leave a section out of scope, drop a case, allow a skip or accept
//!   a malformed file cannot excuse one, as an edited exceptions list cannot (BQ218).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::{RESULTS_SCHEMA, Suite, content};
use crate::diag::terminal_safe;

/// The embedded recording (the registry's file: `src/sections/power.json`).
pub const RECORDED: &str = include_str!("../sections/power.json");

/// What a recording pins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pins {
    /// The suite version the recording was made on.
    pub suite: semver::Version,
    /// The content fingerprint of every case, by (section, id).
    pub content: BTreeMap<(String, String), String>,
    /// The content fingerprint of every skip-policy rule, by name.
    pub policy: BTreeMap<String, String>,
    /// The fingerprint of each schema file's bytes, by path.
    pub schemas: BTreeMap<String, String>,
    /// Every section's scope, by name (the `sections` map).
    pub scopes: BTreeMap<String, String>,
}

impl Pins {
    /// What a recording made of `suite` now would pin (`None` when its version is no SemVer
    /// version): every case's content, every named rule's, both schemas' and every scope, from
    /// one walk over its manifest.
    pub fn of(suite: &Suite) -> Option<Pins> {
        let version = semver::Version::parse(suite.version()?).ok()?;
        let texts = content::Texts::of(suite);
        let policy = content::rules(&texts)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|r| Some((r.name?, r.content.print)))
            .collect();
        Some(Pins {
            suite: version,
            content: content::every(&texts),
            policy,
            schemas: content::schemas(&texts),
            scopes: scopes_of(suite),
        })
    }

    /// Does the recording apply to a suite of `version` (its own version, a pre-release of it
    /// included)?
    pub fn holds(&self, version: &str) -> bool {
        semver::Version::parse(version)
            .is_ok_and(|v| (v.major, v.minor, v.patch) == (self.suite.major, self.suite.minor, self.suite.patch))
    }

    /// The recorded content of the cases of `section`: (id, fingerprint).
    pub fn content_of<'a>(&'a self, section: &'a str) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        let from = (section.to_owned(), String::new());
        self.content
            .range(from..)
            .take_while(move |((s, _), _)| s == section)
            .map(|((_, id), print)| (id.as_str(), print.as_str()))
    }
}

/// The pins of the embedded recording.
pub fn recorded() -> &'static Pins {
    static PINS: OnceLock<Pins> = OnceLock::new();
    PINS.get_or_init(|| {
        let pins = serde_json::from_str::<Value>(RECORDED).map_err(|e| e.to_string()).and_then(|v| from_value(&v));
        match pins {
            Ok(p) => p,
            // The file ships inside the binary and the tests parse it: this is a broken build.
            Err(e) => panic!("src/sections/power.json: {e}"),
        }
    })
}

/// The pins of a recording's parsed text.
pub fn from_value(v: &Value) -> Result<Pins, String> {
    let suite = v
        .get("suite")
        .and_then(Value::as_str)
        .and_then(|s| semver::Version::parse(s).ok())
        .ok_or("\"suite\" is not a SemVer version")?;
    let pinned = v.get("content").and_then(Value::as_object).ok_or("\"content\" is not an object")?;
    let mut content = BTreeMap::new();
    for (section, ids) in pinned {
        for (id, print) in prints(Some(ids), &format!("content/{section}"))? {
            content.insert((section.clone(), id), print);
        }
    }
    let policy = prints(v.get("skip_policy"), "skip_policy")?;
    let schemas = prints(v.get("schemas"), "schemas")?;
    let scopes = v
        .get("scopes")
        .and_then(Value::as_object)
        .ok_or("\"scopes\" is not an object")?
        .iter()
        .map(|(name, scope)| {
            Ok((name.clone(), scope.as_str().ok_or(format!("scopes/{name} is not a string"))?.to_owned()))
        })
        .collect::<Result<_, String>>()?;
    Ok(Pins { suite, content, policy, schemas, scopes })
}

/// An object of fingerprints (`at` names it in an error), by key.
fn prints(v: Option<&Value>, at: &str) -> Result<BTreeMap<String, String>, String> {
    let map = v.and_then(Value::as_object).ok_or_else(|| format!("{at:?} is not an object"))?;
    map.iter()
        .map(|(key, print)| match print.as_str().filter(|p| is_print(p)) {
            Some(p) => Ok((key.clone(), p.to_owned())),
            None => Err(format!("{at}/{key} is not 16 lower-case hex digits")),
        })
        .collect()
}

/// A fingerprint as recorded: 16 lower-case hex digits.
fn is_print(p: &str) -> bool {
    p.len() == 16 && p.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// Every section's scope in `suite`'s `sections` map, by name (an unknown one as "").
pub fn scopes_of(suite: &Suite) -> BTreeMap<String, String> {
    suite
        .sections()
        .into_iter()
        .map(|s| (s.name.to_owned(), s.scope.map(|sc| sc.as_str().to_owned()).unwrap_or_default()))
        .collect()
}

/// The keys of `now` and `was` whose values differ (changed, or in one of them only), sorted:
/// what a pinned map (rules by name, scopes by section) says of the suite's.
pub fn differing<'a>(now: &'a BTreeMap<String, String>, was: &'a BTreeMap<String, String>) -> Vec<&'a str> {
    let mut names: Vec<&str> = now.keys().chain(was.keys()).map(String::as_str).collect();
    names.sort_unstable();
    names.dedup();
    names.retain(|n| now.get(*n) != was.get(*n));
    names
}

/// `Err` (results check cannot run) when `suite` is of the recorded version and its section
/// scopes, skip-policy rules or results schema are not the recorded ones, or it lacks a
/// recorded case: which, and what to run.
pub fn unpinned(suite: &Suite) -> Result<(), String> {
    let pins = recorded();
    if !suite.version().is_some_and(|v| pins.holds(v)) {
        return Ok(());
    }
    let texts = content::Texts::of(suite);
    let mut differs = Vec::new();
    // The sections and their scopes decide which sections a file must report; a recorded case
    // missing from a copy would no longer be asked for (a case added is asked for: no excuse).
    let sections = suite.sections();
    let scopes = scopes_of(suite);
    for name in differing(&scopes, &pins.scopes) {
        differs.push(format!("the scope of section {} (BQ310)", terminal_safe(name)));
    }
    let ids: std::collections::BTreeSet<(String, String)> =
        sections.iter().flat_map(|s| s.cases().into_iter().map(|c| (s.name.to_owned(), c.id))).collect();
    let gone = pins.content.keys().filter(|k| !ids.contains(*k)).count();
    if gone > 0 {
        let (s, id) = pins.content.keys().find(|k| !ids.contains(*k)).cloned().unwrap_or_default();
        differs.push(format!("{gone} recorded case(s), the first {s}/{id} (BQ316, BQ317)"));
    }
    // What a case feeds the SDK and compares with: a copy whose expectations were edited would
    // otherwise judge a results file by them (a failing SDK made Compatible by loosening the
    // copy it ran against). Only the recorded cases are fingerprinted, so a suite multiplied a
    // hundred times costs what the canonical one does.
    let mut changed = Vec::new();
    for section in &sections {
        let recorded: std::collections::HashMap<&str, &str> = pins.content_of(section.name).collect();
        if recorded.is_empty() {
            continue;
        }
        for (case, was, now) in content::against_recorded(&texts, section, &section.cases(), &recorded) {
            if now.is_none_or(|c| c.print != was) {
                changed.push(format!("{}/{}", section.name, case.id));
            }
        }
    }
    if let Some(first) = changed.first() {
        let first = terminal_safe(first);
        differs.push(format!("the content of {} recorded case(s), the first {first} (BQ318)", changed.len()));
    }
    let schemas = content::schemas(&texts);
    if let (Some(now), Some(was)) = (schemas.get(RESULTS_SCHEMA), pins.schemas.get(RESULTS_SCHEMA))
        && now != was
    {
        differs.push(format!("{} (BQ320)", suite.display_path(RESULTS_SCHEMA)));
    }
    if let Some(rules) = content::rules(&texts) {
        let now: BTreeMap<String, String> =
            rules.into_iter().filter_map(|r| Some((r.name?, r.content.print))).collect();
        for name in differing(&now, &pins.policy) {
            differs.push(format!("skip-policy rule {} (BQ319)", terminal_safe(name)));
        }
    }
    if differs.is_empty() {
        return Ok(());
    }
    let (root, version) = (suite.root.display(), &pins.suite);
    Err(format!(
        "the suite at {root} is {version} but not as it was published: {} differ{} from the recorded suite, and \
         results check judges by them; a vendored copy: see what changed with `bqsuite fetch --check {version} \
         {root}` and restore it with `bqsuite fetch --update {version} {root}`; the suite's own repository: \
         `bqsuite validate --suite {root}`",
        differs.join(", "),
        if differs.len() == 1 { "s" } else { "" },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_pins_read_and_hold_their_own_version_only() {
        let p = recorded();
        assert!(p.holds(&p.suite.to_string()));
        assert!(p.holds(&format!("{}.{}.{}-rc.1", p.suite.major, p.suite.minor, p.suite.patch)));
        assert!(!p.holds(&format!("{}.{}.{}", p.suite.major, p.suite.minor, p.suite.patch + 1)));
        assert!(!p.holds("not a version"));
        assert!(!p.scopes.is_empty() && !p.policy.is_empty() && p.schemas.len() == 2);
    }

    #[test]
    fn differing_names_what_changed_what_is_new_and_what_is_gone() {
        let map = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
        };
        let was = map(&[("a", "1"), ("b", "2"), ("c", "3")]);
        let now = map(&[("a", "1"), ("b", "9"), ("d", "4")]);
        assert_eq!(differing(&now, &was), ["b", "c", "d"]);
        assert!(differing(&was, &was).is_empty());
    }
}
