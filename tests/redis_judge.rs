//! What the Redis judge makes of the legacy layout's reservation token an SDK reports: the
//! token is optional (null: the deadline member is held to the token's shape only), but a token
//! given must be the member's, and a wrong one is told as the SDK's reply, not only as the key's
//! contents (a newcomer's adapter got "no member fits item 0 (…)" and had to work out that the
//! token in it was its own).

mod support;

use std::rc::Rc;

use bqsuite::conformance::{RunOptions, Status, UnderTest, run_under};
use bqsuite::sdk::reference::ReferenceSdk;
use bqsuite::sdk::{Identity, Request, Response, Sdk, SdkError};
use bqsuite::sections::RedisRequired;
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

/// `processing_token/every-reservation-has-its-own-token` run with tokens reported by `token`:
/// its status and reason.
fn run(url: &str, token: fn(&str) -> Option<String>) -> (Status, String) {
    let suite = Suite::load(support::repo()).expect("the canonical suite loads");
    let redis = Rc::new(RedisLink::new(Some(url), RedisRequired::ByEnv));
    let mut sdk = Reporting { reference: ReferenceSdk::with_redis(redis.clone()), token };
    let id = "processing_token/every-reservation-has-its-own-token";
    let options = RunOptions {
        only: vec!["redis_layout".into()],
        cases: vec![id.into()],
        redis_url: Some(url.into()),
        require_redis: RedisRequired::ByEnv,
        ..RunOptions::default()
    };
    let run = run_under(&suite, &options, &mut sdk, &redis);
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
