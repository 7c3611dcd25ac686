//! The suite as the only oracle: the repository's suite, the reference core through every
//! section with a live Redis, every case must pass.
//!
//! This is the one test `bench/mutants.sh` runs for every mutant of `src/core` (the unit tests
//! and the other integration tests are left out there on purpose: the question is what the
//! suite alone catches, that is what a broken SDK that passes the suite could still get wrong).
//! A Redis is required (`BQ_REDIS_URL`, else a `redis-server` started by the test support):
//! without one the Redis blocks would be skipped and every mutant of the transport would count
//! as missed.
//!
//! Each failing case is printed as one line `oracle-fail<TAB>section<TAB>case id<TAB>reason`,
//! which the mutants report reads to say which section caught a mutant.

mod support;

use bqsuite::conformance::{self, RunOptions};
use bqsuite::sections::RedisRequired;
use bqsuite::suite::Suite;

#[test]
fn the_reference_core_passes_every_case_of_the_suite() {
    let url = support::redis_url().expect("the oracle needs a live Redis (BQ_REDIS_URL or redis-server on PATH)");
    let suite = Suite::load(support::repo()).expect("the repository's suite loads");
    let options = RunOptions { redis_url: Some(url), require_redis: RedisRequired::ByEnv, ..Default::default() };
    let run = conformance::run(&suite, &options);
    assert!(run.invalid.is_empty(), "the suite has cases that do not read: {:?}", run.invalid);
    let mut bad = Vec::new();
    for (section, cases) in &run.results.sections {
        for (id, outcome) in cases.as_object().into_iter().flatten() {
            if outcome["status"] != "pass" {
                let reason = outcome["reason"].as_str().unwrap_or_default().replace(['\t', '\n'], " ");
                println!("oracle-fail\t{section}\t{id}\t{reason}");
                bad.push(format!("{section} {id}"));
            }
        }
    }
    assert!(bad.is_empty(), "{} cases do not pass: {}", bad.len(), bad.join(", "));
}
