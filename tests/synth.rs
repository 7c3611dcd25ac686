//! The synthetic ×k suite used by the benchmarks stays a valid suite with k times the cases.

mod support;

use bqsuite::suite::Suite;

#[test]
fn a_scaled_suite_validates_cleanly_with_k_times_the_array_cases() {
    let suite = Suite::load(support::repo()).unwrap();
    let out = tempfile::tempdir().unwrap();
    let dest = out.path().join("x3");
    let files = bqsuite::synth::scale(&suite, 3).unwrap();
    bqsuite::synth::write(&suite, &files, &dest).unwrap();
    let scaled = Suite::load(&dest).unwrap();
    let findings = bqsuite::validate::validate(&scaled);
    assert!(findings.is_empty(), "{findings:#?}");
    for s in suite.sections() {
        let (one, three) = (s.cases(), scaled.section(s.name).unwrap().cases());
        let singles = one.iter().filter(|c| c.index.is_none()).count();
        assert_eq!(three.len(), singles + 3 * (one.len() - singles), "section {}", s.name);
    }
    assert!(bqsuite::synth::write(&suite, &files, &dest).is_err(), "never overwrites");
}
