//! The kill matrix, derived from the registry: the reference core passes every case; every
//! broken variant of the catalogue is declared by at least one section and caught by at least
//! one case; every case id a section declares for a variant fails under it (and, for a
//! `catch_only`, no other case of that section does). The Redis blocks need a live Redis (the
//! common test rule: `BQ_REDIS_URL`, else a `redis-server` started here, else they are skipped
//! and said so, and under `BQ_REQUIRE_REDIS` that is a failure).

mod support;

use std::collections::BTreeSet;

use bqsuite::conformance::RunOptions;
use bqsuite::conformance::kill::{KillMatrix, kill_matrix};
use bqsuite::sdk::reference::Broken;
use bqsuite::sections::RedisRequired;
use bqsuite::sections::power::Pair;
use bqsuite::sections::registry;
use bqsuite::suite::Suite;

#[test]
fn every_broken_variant_is_caught_where_the_registry_says() {
    let suite = Suite::load(support::repo()).expect("the canonical suite loads");
    let (matrix, redis_url) = matrix_of(&suite);

    let failing: Vec<_> = matrix.reference.failing.iter().filter(|(_, ids)| !ids.is_empty()).collect();
    assert!(failing.is_empty(), "the reference core fails: {failing:?}");
    let skipped: usize = matrix.reference.skipped.values().map(Vec::len).sum();
    assert!(redis_url.is_none() || skipped == 0, "with a Redis nothing is skipped: {:?}", matrix.reference.skipped);

    let mut problems = Vec::new();
    let mut unverified = BTreeSet::new();
    for row in &matrix.rows {
        let declared: Vec<_> = registry()
            .flat_map(|s| s.catches().iter().map(move |c| (s.name(), c)))
            .filter(|(_, c)| c.broken == row.broken)
            .collect();
        if declared.is_empty() {
            problems.push(format!("{}: no section declares this variant", row.broken));
        }
        let mut checked = false;
        for (section, catch) in declared {
            let ids: Vec<String> =
                suite.section(section).map(|s| s.cases().into_iter().map(|c| c.id).collect()).unwrap_or_default();
            let (fails, skips) = (row.failing_in(section), row.skipped_in(section));
            for id in catch.fails {
                if !ids.iter().any(|i| i == id) {
                    problems.push(format!("{}: {section} has no case {id:?}", row.broken));
                } else if skips.iter().any(|s| s == id) {
                    unverified.insert(format!("{}: {section}/{id}", row.broken));
                } else if fails.iter().any(|f| f == id) {
                    checked = true;
                } else {
                    problems.push(format!("{}: {section}/{id} passed; failing: {fails:?}", row.broken));
                }
            }
            if catch.only && skips.is_empty() {
                let want: BTreeSet<&str> = catch.fails.iter().copied().collect();
                let got: BTreeSet<&str> = fails.iter().map(String::as_str).collect();
                if want != got {
                    problems.push(format!("{}: {section} fails exactly {got:?}, declared {want:?}", row.broken));
                }
            }
        }
        if !row.caught() && (checked || unverified.iter().all(|u| !u.starts_with(&format!("{}:", row.broken)))) {
            problems.push(format!("{}: no case catches it", row.broken));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(matrix.rows.len(), Broken::ALL.len());

    // The recorded power (src/sections/power.json, validate's BQ316) is this matrix: every pair
    // it records still fails, and every failing pair is recorded, except the cases that could not
    // run here for want of a Redis (they are neither confirmed nor contradicted).
    let power = bqsuite::sections::power::recorded();
    support::assert_recording_current();
    let (lost, unrecorded, _) = against_recording(&matrix);
    assert!(
        lost.is_empty() && unrecorded.is_empty(),
        "src/sections/power.json differs from the kill matrix (re-record it with \
         `bqsuite dev kill-matrix --redis-url URL --record src/sections/power.json`): \
         recorded but passing {lost:#?}; failing but not recorded {unrecorded:#?}"
    );
    // It names every case of the suite: the ones no recorded pair fails are listed as
    // unprotected (validate's BQ317 holds them to exist), and no other.
    let caught: BTreeSet<(&str, &str)> = power.pairs.iter().map(|p| (p.section.as_str(), p.id.as_str())).collect();
    let bare: Vec<(String, String)> = suite
        .sections()
        .into_iter()
        .flat_map(|s| s.cases().into_iter().map(move |c| (s.name.to_owned(), c.id)))
        .filter(|(s, id)| !caught.contains(&(s.as_str(), id.as_str())))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(
        power.unprotected, bare,
        "src/sections/power.json's unprotected cases are not the suite's cases no variant fails (re-record it)"
    );
    // It pins what a recording made of the suite now would (validate's BQ318–BQ320, results
    // check's refusal of an edited copy).
    let now = bqsuite::suite::pins::Pins::of(&suite).expect("the suite has a SemVer version");
    assert_eq!(power.suite, now.suite);
    // The content of every case.
    let content = &now.content;
    let stale: Vec<_> = content.iter().filter(|(k, v)| power.content.get(*k) != Some(*v)).map(|(k, _)| k).collect();
    let gone: Vec<_> = power.content.keys().filter(|k| !content.contains_key(*k)).collect();
    assert!(
        stale.is_empty() && gone.is_empty(),
        "src/sections/power.json's content is not the suite's (re-record it): changed or new {stale:?}, gone {gone:?}"
    );
    assert_eq!(content.len(), caught.len() + bare.len(), "every case is pinned");
    // Every rule of its skip policy, by name.
    assert_eq!(
        power.policy, now.policy,
        "src/sections/power.json's skip_policy is not the suite's rules (re-record it)"
    );
    assert_eq!(now.policy.len(), suite.skip_policy().rules.len(), "every rule is pinned");
    // The bytes of its schema files.
    assert_eq!(power.schemas, now.schemas, "src/sections/power.json's schemas are not the suite's (re-record it)");
    assert_eq!(now.schemas.len(), 2, "both schema files are pinned");
    // Every section's scope.
    assert_eq!(power.scopes, now.scopes, "src/sections/power.json's scopes are not the suite's (re-record it)");
    if !unverified.is_empty() {
        eprintln!("skipping (no Redis): {} declared failures need a live Redis: {unverified:?}", unverified.len());
    }
}

/// validate reruns a recorded (variant, case) pair only where the case's content differs from
/// its recorded fingerprint (BQ316): where it is the same, the recording (held to this core's
/// matrix by the test above) already says how the pair comes out. That holds only if nothing the
/// fingerprint leaves out can change a case's outcome. This is the check of that premise: the
/// manifest rewritten in every way the fingerprint ignores (every prose member of a case or a
/// block reworded, each array of named cases in reverse order, each object's members in reverse
/// order, every string character as a `\u` escape, every fractional number in exponent form, no
/// white space) keeps every fingerprint, and the kill matrix of the rewritten suite is the
/// recording, pair for pair.
#[test]
fn a_manifest_rewritten_where_the_fingerprint_does_not_look_keeps_every_catch() {
    let copy = support::SuiteCopy::new();
    let mut v: serde_json::Value = serde_json::from_str(&copy.read("manifest.json")).expect("the manifest parses");
    let (reworded, reversed) = reword(&mut v);
    assert!(reworded > 200 && reversed > 20, "{reworded} prose members reworded, {reversed} arrays reversed");
    let mut text = String::new();
    editorial(&v, &mut text);
    assert_ne!(text, copy.read("manifest.json"));
    copy.write("manifest.json", &text);
    let suite = Suite::load(copy.path()).expect("the rewritten suite loads");
    let power = bqsuite::sections::power::recorded();
    let pins = bqsuite::suite::pins::Pins::of(&suite).expect("the suite has a SemVer version");
    // A recording of another suite (a case added since, a version bumped) is told as such, not
    // as a rewrite that moved nothing.
    let unrecorded: Vec<_> = pins.content.keys().filter(|k| !power.content.contains_key(*k)).collect();
    assert!(
        unrecorded.is_empty() && pins.content.len() == power.content.len(),
        "src/sections/power.json records {} case(s), the suite has {}; not recorded: {unrecorded:?}. Record the power \
         again with a live Redis: `bqsuite dev kill-matrix --redis-url URL --record src/sections/power.json`",
        power.content.len(),
        pins.content.len()
    );
    let moved: Vec<_> =
        power.content.iter().filter(|(k, v)| pins.content.get(*k) != Some(*v)).map(|(k, _)| k).collect();
    assert!(moved.is_empty(), "the rewrite changed these fingerprints, so it tests nothing there: {moved:?}");

    let (matrix, redis_url) = matrix_of(&suite);
    let (lost, gained, checked) = against_recording(&matrix);
    assert!(
        lost.is_empty() && gained.is_empty(),
        "a rewrite the fingerprint does not see changed what the cases catch: lost {lost:#?}; gained {gained:#?}"
    );
    assert!(checked > 0 && (redis_url.is_none() || checked == power.pairs.len()), "{checked} pairs checked");
}

/// The kill matrix of `suite`, with the test Redis when there is one (and its URL).
fn matrix_of(suite: &Suite) -> (KillMatrix, Option<String>) {
    let redis_url = support::redis_url();
    let options = RunOptions {
        redis_url: redis_url.clone(),
        require_redis: if redis_url.is_some() { RedisRequired::ByEnv } else { RedisRequired::No },
        ..Default::default()
    };
    (kill_matrix(suite, &options), redis_url)
}

/// `matrix` against the recorded power, over the cases that ran (those that could not for want
/// of a Redis are neither confirmed nor contradicted): the recorded pairs that now pass, the
/// failing pairs not recorded, and how many recorded pairs were checked.
fn against_recording(matrix: &KillMatrix) -> (Vec<Pair>, Vec<Pair>, usize) {
    let skipped: BTreeSet<(&str, &str)> = matrix
        .reference
        .skipped
        .iter()
        .flat_map(|(s, ids)| ids.iter().map(move |id| (s.as_str(), id.as_str())))
        .collect();
    let ran = |p: &&Pair| !skipped.contains(&(p.section.as_str(), p.id.as_str()));
    let recorded: BTreeSet<Pair> = bqsuite::sections::power::recorded().pairs.iter().filter(ran).cloned().collect();
    let now: BTreeSet<Pair> = matrix.pairs().iter().filter(ran).cloned().collect();
    (recorded.difference(&now).cloned().collect(), now.difference(&recorded).cloned().collect(), recorded.len())
}

/// Every prose member of every case and block of `manifest` reworded, and every array of named
/// cases reversed (a case's id is its name there): how many of each.
fn reword(manifest: &mut serde_json::Value) -> (usize, usize) {
    use bqsuite::suite::ids::PROSE;
    use serde_json::Value;
    const METADATA: [&str; 6] =
        ["schema_version", "conformance_version", "description", "sections", "exceptions", "skip_policy"];
    let (mut reworded, mut reversed) = (0, 0);
    let mut prose = |o: &mut Value| {
        for (k, v) in o.as_object_mut().into_iter().flatten() {
            if PROSE.contains(&k.as_str()) {
                *v = Value::String(format!("reworded {k}"));
                reworded += 1;
            }
        }
    };
    let mut cases = |list: &mut Value, prose: &mut dyn FnMut(&mut Value)| {
        let Some(items) = list.as_array_mut() else { return };
        items.iter_mut().for_each(&mut *prose);
        if items.len() > 1 && items.iter().all(|c| c.get("name").is_some_and(Value::is_string)) {
            items.reverse();
            reversed += 1;
        }
    };
    for (name, section) in manifest.as_object_mut().expect("an object") {
        if METADATA.contains(&name.as_str()) {
            continue;
        }
        if section.is_array() {
            cases(section, &mut prose);
            continue;
        }
        for (key, member) in section.as_object_mut().into_iter().flatten() {
            match key.as_str() {
                "description" | "schema" => {}
                "cases" => cases(member, &mut prose),
                _ => {
                    prose(member);
                    if let Some(list) = member.get_mut("cases") {
                        cases(list, &mut prose);
                    }
                }
            }
        }
    }
    (reworded, reversed)
}

/// `v` as JSON text that the suite's content fingerprint reads as the same: members in reverse
/// order, every character of every string escaped, fractional numbers as `<digits>e-<n>`.
fn editorial(v: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    use std::fmt::Write;
    let string = |s: &str, out: &mut String| {
        out.push('"');
        for unit in s.encode_utf16() {
            let _ = write!(out, "\\u{unit:04X}");
        }
        out.push('"');
    };
    match v {
        Value::Object(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().rev().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(k, out);
                out.push(':');
                editorial(v, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                editorial(v, out);
            }
            out.push(']');
        }
        Value::String(s) => string(s, out),
        Value::Number(n) if n.is_f64() => {
            let text = n.to_string();
            let (mantissa, exponent) = match text.split_once(['e', 'E']) {
                Some((m, e)) => (m.to_owned(), e.parse::<i64>().expect("an exponent")),
                None => (text.clone(), 0),
            };
            let (sign, mantissa) = mantissa.strip_prefix('-').map_or(("", mantissa.as_str()), |m| ("-", m));
            let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
            let digits = format!("{whole}{fraction}");
            let digits = digits.trim_start_matches('0');
            let digits = if digits.is_empty() { "0" } else { digits };
            let _ = write!(out, "{sign}{digits}e{}", exponent - fraction.len() as i64);
        }
        other => out.push_str(&other.to_string()),
    }
}

#[test]
fn the_cli_prints_the_matrix_as_markdown() {
    let o = support::bqsuite(&support::repo(), &["dev", "kill-matrix"]);
    let md = String::from_utf8_lossy(&o.stdout);
    assert!(md.starts_with("| variant | what it breaks |"), "{}", support::transcript(&o));
    // Offline: the cases that need Redis are skipped, and that is said once, not once per run.
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("no Redis is given").count(), 1, "{err}");
    for b in Broken::ALL {
        assert!(md.contains(&format!("| `{}` |", b.name())), "{b} is not a row");
    }
    for s in registry() {
        assert!(md.lines().next().unwrap().contains(&format!(" {} |", s.name())), "{} is not a column", s.name());
    }
}
