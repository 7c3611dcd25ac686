//! The synthetic ×k suite used by the benchmarks stays a valid suite with k times the cases.

mod support;

use bqsuite::suite::Suite;

#[test]
fn a_scaled_suite_validates_cleanly_with_k_times_the_array_cases() {
    let suite = Suite::load(support::repo()).unwrap();
    let out = tempfile::tempdir().unwrap();
    let dest = out.path().join("x3");
    let files = bqsuite::synth::scale(&suite, 3).unwrap();
    bqsuite::synth::write(&files, &dest).unwrap();
    let scaled = Suite::load(&dest).unwrap();
    let findings = bqsuite::validate::validate(&scaled);
    assert!(findings.is_empty(), "{findings:#?}");
    for s in suite.sections() {
        let (one, three) = (s.cases(), scaled.section(s.name).unwrap().cases());
        let singles = one.iter().filter(|c| c.index.is_none()).count();
        assert_eq!(three.len(), singles + 3 * (one.len() - singles), "section {}", s.name);
    }
    assert!(bqsuite::synth::write(&files, &dest).is_err(), "never overwrites");
}

#[test]
fn the_hidden_dev_scale_command_writes_a_scaled_suite_and_never_overwrites() {
    let out = tempfile::tempdir().unwrap();
    let dest = out.path().join("x2");
    let dest_arg = dest.to_str().unwrap();
    let o = support::bqsuite(&support::repo(), &["dev", "scale", "--factor", "2", "--out", dest_arg]);
    assert_eq!(o.status.code(), Some(0), "{}", support::transcript(&o));
    let scaled = Suite::load(&dest).unwrap();
    assert!(bqsuite::validate::validate(&scaled).is_empty());
    let canonical = Suite::load(support::repo()).unwrap();
    let ids = |s: &Suite| s.sections().iter().map(|s| s.cases().len()).sum::<usize>();
    assert!(ids(&scaled) > ids(&canonical), "the scaled suite has more cases");
    let again = support::bqsuite(&support::repo(), &["dev", "scale", "--factor", "2", "--out", dest_arg]);
    assert_eq!(again.status.code(), Some(2), "{}", support::transcript(&again));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    let zero = support::bqsuite(&support::repo(), &["dev", "scale", "--factor", "0", "--out", dest_arg]);
    assert_eq!(zero.status.code(), Some(2), "a factor below 1 is a usage error");
    let help = support::bqsuite(&support::repo(), &["--help"]);
    let listed = String::from_utf8_lossy(&help.stdout).lines().any(|l| l.trim_start().starts_with("dev "));
    assert!(!listed, "dev is hidden from --help");
}
