//! What the Redis judge makes of the legacy layout's reservation token an SDK reports: the
//! token is optional (null: the deadline member is held to the token's shape only), but a token
//! given must be the member's, and a wrong one is told as the SDK's reply, not only as the key's
//! contents (a newcomer's adapter got "no member fits item 0 (…)" and had to work out that the
//! token in it was its own). And what it makes of an operation cut in two: an ack that removes
//! the deadline member and the body with two commands of its own passes every check of the
//! keys' contents, but a worker that stops between them strands the body, so it fails.

mod support;

use std::rc::Rc;

use std::collections::HashMap;

use bqsuite::conformance::{RunOptions, Status, UnderTest, run_under};
use bqsuite::sdk::reference::ReferenceSdk;
use bqsuite::sdk::wire::{RedisLayout, RedisRole};
use bqsuite::sdk::{Identity, Request, Response, Sdk, SdkError};
use bqsuite::sections::RedisRequired;
use bqsuite::sections::redis::key;
use bqsuite::sections::redis::link::RedisLink;
use bqsuite::suite::Suite;

/// The reference core, with the token of every reservation it reports replaced.
struct Reporting {
    reference: ReferenceSdk,
    token: fn(&str) -> Option<String>,
}

impl Sdk for Reporting {
    fn hello(&self) -> Identity {
        self.reference.hello()
    }

    fn call(&mut self, request: &Request) -> Result<Response, SdkError> {
        match self.reference.call(request)? {
            Response::RedisReserve(Some(mut r)) => {
                r.token = r.token.as_deref().and_then(self.token);
                Ok(Response::RedisReserve(Some(r)))
            }
            other => Ok(other),
        }
    }
}

impl UnderTest for Reporting {
    fn sdk(&mut self) -> &mut dyn Sdk {
        self
    }
}

/// A run of the redis_layout case `id` alone, against the Redis at `url`.
fn one_case(url: &str, id: &str) -> RunOptions {
    RunOptions {
        only: vec!["redis_layout".into()],
        cases: vec![id.into()],
        redis_url: Some(url.into()),
        require_redis: RedisRequired::ByEnv,
        ..RunOptions::default()
    }
}

/// `processing_token/every-reservation-has-its-own-token` run with tokens reported by `token`:
/// its status and reason.
fn run(url: &str, token: fn(&str) -> Option<String>) -> (Status, String) {
    let suite = Suite::load(support::repo()).expect("the canonical suite loads");
    let redis = Rc::new(RedisLink::new(Some(url), RedisRequired::ByEnv));
    let mut sdk = Reporting { reference: ReferenceSdk::with_redis(redis.clone()), token };
    let id = "processing_token/every-reservation-has-its-own-token";
    let run = run_under(&suite, &one_case(url, id), &mut sdk, &redis);
    let outcome = &run.results.sections["redis_layout"][id];
    let status = serde_json::from_value(outcome["status"].clone()).unwrap();
    (status, outcome["reason"].as_str().unwrap_or_default().to_owned())
}

#[test]
fn a_token_is_optional_but_a_wrong_one_is_told_as_the_sdks() {
    let Some(url) = support::redis_url() else { return };
    let (status, reason) = run(&url, |t| Some(t.to_owned()));
    assert_eq!(status, Status::Pass, "the reference's own tokens: {reason}");
    let (status, reason) = run(&url, |_| None);
    assert_eq!(status, Status::Pass, "no token reported: {reason}");
    let (status, reason) = run(&url, |_| Some("0123456789abcdef0123456789abcdef".into()));
    assert_eq!(status, Status::Fail);
    assert!(
        reason
            .contains("its token is not 0123456789abcdef0123456789abcdef, the token the SDK reported when it reserved"),
        "{reason}"
    );
}

/// The reference core, except that a legacy-layout ack is done by the client, one command at a
/// time: `ZREM` of the deadline member, then `LREM` of the body.
struct ClientSideAck {
    reference: ReferenceSdk,
    /// Reservation → (token, body).
    reserved: HashMap<String, (String, Vec<u8>)>,
}

impl Sdk for ClientSideAck {
    fn hello(&self) -> Identity {
        self.reference.hello()
    }

    fn call(&mut self, request: &Request) -> Result<Response, SdkError> {
        let Request::RedisAck(ack) = request else {
            let response = self.reference.call(request)?;
            if let Response::RedisReserve(Some(r)) = &response
                && let Some(token) = &r.token
            {
                self.reserved.insert(r.reservation.clone(), (token.clone(), r.body.as_slice().to_vec()));
            }
            return Ok(response);
        };
        let t = &ack.target;
        assert_eq!(t.layout, RedisLayout::Processing, "the case under test is of the legacy layout");
        let (token, body) = self.reserved[&ack.reservation].clone();
        let name = |role| key(t.layout, &t.prefix, &t.queue, role).unwrap();
        let mut con = redis::Client::open(t.url.as_str()).unwrap().get_connection().unwrap();
        let member = [token.as_bytes(), b":", &body].concat();
        let removed: i64 = redis::cmd("ZREM").arg(name(RedisRole::Deadlines)).arg(member).query(&mut con).unwrap();
        if removed == 1 {
            redis::cmd("LREM").arg(name(RedisRole::Processing)).arg(1).arg(&body).exec(&mut con).unwrap();
        }
        Ok(Response::RedisAck(removed == 1))
    }
}

impl UnderTest for ClientSideAck {
    fn sdk(&mut self) -> &mut dyn Sdk {
        self
    }
}

#[test]
fn an_ack_cut_into_two_commands_fails_though_the_keys_end_right() {
    let Some(url) = support::redis_url() else { return };
    let suite = Suite::load(support::repo()).expect("the canonical suite loads");
    let id = "late_ack/timely-ack-removes-member-and-body";
    let options = one_case(&url, id);
    let outcome = |sdk: &mut dyn UnderTest, redis: &RedisLink| {
        let run = run_under(&suite, &options, sdk, redis);
        let outcome = &run.results.sections["redis_layout"][id];
        let status: Status = serde_json::from_value(outcome["status"].clone()).unwrap();
        (status, outcome["reason"].as_str().unwrap_or_default().to_owned())
    };
    let redis = Rc::new(RedisLink::new(Some(&url), RedisRequired::ByEnv));
    let mut reference = Reporting { reference: ReferenceSdk::with_redis(redis.clone()), token: |t| Some(t.to_owned()) };
    let (status, reason) = outcome(&mut reference, &redis);
    assert_eq!(status, Status::Pass, "the reference acks in one script: {reason}");
    let redis = Rc::new(RedisLink::new(Some(&url), RedisRequired::ByEnv));
    let mut split = ClientSideAck { reference: ReferenceSdk::with_redis(redis.clone()), reserved: HashMap::new() };
    let (status, reason) = outcome(&mut split, &redis);
    assert_eq!(status, Status::Fail);
    assert!(
        reason.contains(
            "step 2 (ack at 1001): the ack's gate removed the deadline member (ZREM orders:processing:deadlines) \
             and the body from :processing (LREM orders:processing) in two steps"
        ),
        "{reason}"
    );
}
