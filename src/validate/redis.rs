//! The case languages of the Redis sections (`redis_layout`, `redis_delay`).
//!
//! Rules: every `redis_layout.cases` entry is a key-name case and every case of a behavioural
//! block a program that [`crate::suite::redis_dsl`] parses — known layout and ops, a `now` on
//! every step, ops, keys and fields that exist in the layout, bodies, reservations and tokens
//! defined before use, expectations of the right shape that fit their step, a valid
//! `retry_after` — with no expectation key or step field the language does not know; every
//! `redis_delay` case has numeric `now` and `delay` and an integer `expected_score`. Each
//! problem is reported at its own pointer.

use crate::diag::{Code, Finding};
use crate::suite::MANIFEST;
use crate::suite::redis_dsl::{self, DslError, Problem};

use super::Ctx;

fn code(p: Problem) -> Code {
    match p {
        Problem::UnknownLayout => Code::REDIS_UNKNOWN_LAYOUT,
        Problem::UnknownOp => Code::REDIS_UNKNOWN_OP,
        Problem::StepWithoutNow => Code::REDIS_STEP_WITHOUT_NOW,
        Problem::NotInLayout => Code::REDIS_NOT_IN_LAYOUT,
        Problem::UnknownBody => Code::REDIS_UNKNOWN_BODY,
        Problem::UnknownReservation => Code::REDIS_UNKNOWN_RESERVATION,
        Problem::ExpectShape => Code::REDIS_EXPECT_SHAPE,
        Problem::BadRetryAfter => Code::REDIS_BAD_RETRY_AFTER,
        Problem::CaseShape => Code::REDIS_CASE_SHAPE,
    }
}

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut report = |case_ptr: &str, errors: Vec<DslError>, delay: bool| {
        for e in errors {
            let code = if delay { Code::REDIS_DELAY_CASE_SHAPE } else { code(e.problem) };
            out.push(Finding::error(code, e.message).in_file(MANIFEST).at(format!("{case_ptr}{}", e.pointer)));
        }
    };
    for case in cx.cases("redis_layout") {
        let errors = match case.sub {
            None => redis_dsl::parse_key_names_case(case.value).err().unwrap_or_default(),
            Some(_) => {
                let mut e = redis_dsl::parse_layout_case(case.value).err().unwrap_or_default();
                e.extend(redis_dsl::lint_layout_case(case.value));
                e
            }
        };
        report(&case.pointer, errors, false);
    }
    for case in cx.cases("redis_delay") {
        report(&case.pointer, redis_dsl::parse_delay_case(case.value).err().unwrap_or_default(), true);
    }
    out
}
