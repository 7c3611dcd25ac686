//! A run connects to Redis once, however many cases need it, besides the one connection that
//! watches the steps' commands (`MONITOR`), and leaves no key behind (alone in its test binary,
//! so no other test's connections or keys are counted).

mod support;

use bqsuite::conformance::{self, RunOptions};
use bqsuite::sections::RedisRequired;
use bqsuite::suite::{Scope, Suite};

fn connections_received(con: &mut redis::Connection) -> u64 {
    let info: String = redis::cmd("INFO").arg("stats").query(con).unwrap();
    info.lines().find_map(|l| l.strip_prefix("total_connections_received:")).unwrap().trim().parse().unwrap()
}

#[test]
fn a_run_opens_one_connection_for_all_its_redis_cases_and_cleans_up() {
    let Some(url) = support::redis_url() else { return };
    let mut con = redis::Client::open(url.as_str()).unwrap().get_connection().unwrap();
    let keys = |con: &mut redis::Connection| -> Vec<String> { redis::cmd("KEYS").arg("bqsuite:*").query(con).unwrap() };
    let keys_before = keys(&mut con);
    let before = connections_received(&mut con);
    let suite = Suite::load(support::repo()).unwrap();
    let only = suite.sections().iter().filter(|s| s.scope == Some(Scope::Redis)).map(|s| s.name.to_owned()).collect();
    let options =
        RunOptions { only, redis_url: Some(url), require_redis: RedisRequired::ByEnv, ..RunOptions::default() };
    let results = conformance::run(&suite, &options).results;
    let c = results.counts(None);
    assert!(c.pass > 0 && c.fail == 0 && c.skip == 0, "{c}");
    assert_eq!(connections_received(&mut con) - before, 2, "the judge's connection and its monitor");
    assert_eq!(keys(&mut con), keys_before, "every case deletes its keys");
}
