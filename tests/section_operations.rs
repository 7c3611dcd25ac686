//! Each section's page lists the adapter-protocol operations its cases call
//! (`Contract::operations`), so an adapter's author knows what a section needs before running
//! it. The lists are declared beside each section's contract, in the protocol's order of
//! operations; this test runs the reference core through every section of the canonical suite
//! (with a live Redis: without one the Redis cases would call nothing) and requires each declared
//! list to be exactly the operations called.

mod support;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use bqsuite::conformance::{RunOptions, UnderTest, run_under};
use bqsuite::sdk::reference::ReferenceSdk;
use bqsuite::sdk::{Identity, OPERATIONS, Request, Response, Sdk, SdkError};
use bqsuite::sections::RedisRequired;
use bqsuite::sections::redis::link::RedisLink;
use bqsuite::suite::Suite;

type Called = Rc<RefCell<BTreeMap<String, Vec<&'static str>>>>;

/// The reference core, noting the operation of every call under the section it belongs to (the
/// order of the first calls does not matter: the lists are compared in the protocol's order).
struct Recording {
    reference: ReferenceSdk,
    section: String,
    called: Called,
}

impl Sdk for Recording {
    fn hello(&self) -> Identity {
        self.reference.hello()
    }

    fn call(&mut self, request: &Request) -> Result<Response, SdkError> {
        let op = request.operation();
        let mut called = self.called.borrow_mut();
        let ops = called.entry(self.section.clone()).or_default();
        if !ops.contains(&op) {
            ops.push(op);
        }
        drop(called);
        self.reference.call(request)
    }
}

impl UnderTest for Recording {
    fn sdk(&mut self) -> &mut dyn Sdk {
        self
    }

    fn begin_case(&mut self, section: &str, _id: &str) {
        self.section = section.to_owned();
    }
}

#[test]
fn every_section_declares_exactly_the_operations_its_cases_call() {
    // Without a Redis the sections that need none are still held to their declarations.
    let url = support::redis_url();
    let require = if url.is_some() { RedisRequired::ByEnv } else { RedisRequired::No };
    let suite = Suite::load(support::repo()).expect("the canonical suite loads");
    let redis = Rc::new(RedisLink::new(url.as_deref(), require));
    let called: Called = Rc::default();
    let mut under = Recording {
        reference: ReferenceSdk::with_redis(redis.clone()),
        section: String::new(),
        called: called.clone(),
    };
    let options = RunOptions { redis_url: url.clone(), require_redis: require, ..RunOptions::default() };
    let run = run_under(&suite, &options, &mut under, &redis);
    assert_eq!(run.results.counts(None).fail, 0, "the reference core passes every case");
    let called = called.borrow();
    let mut wrong = Vec::new();
    let mut compared = 0;
    for section in suite.sections() {
        if run.results.counts(Some(section.name)).skip > 0 {
            eprintln!("skipping {}: its cases need a Redis", section.name);
            continue;
        }
        compared += 1;
        let def = bqsuite::sections::find(section.name).expect("every section of the suite is in the registry");
        let mut got = called.get(section.name).cloned().unwrap_or_default();
        got.sort_by_key(|op| OPERATIONS.iter().position(|o| o == op));
        if def.contract().operations != got.as_slice() {
            wrong.push(format!("{}: declared {:?}, called {:?}", section.name, def.contract().operations, got));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(compared >= suite.sections().len() - 3, "{compared} sections compared");
}
