//! The judge's Redis: the one connection of a run, and the runner contract for the cases that
//! need it.
//!
//! Invariants (spec "Runner contract for redis_layout", ADR-0033): a run connects at most once,
//! on the first case that needs Redis, and every later case reuses that connection (or that
//! failure); when Redis is unreachable — no `BQ_REDIS_URL`, a refused connection, a failed
//! PING — a case that needs it is `fail` when `BQ_REQUIRE_REDIS` is set and otherwise `skip`
//! with a reason citing ADR-0033, and the run logs why on stderr once; each case works under a
//! key prefix of its own (`bqsuite:<uuid>:`), so cases cannot see each other's keys, and
//! everything under that prefix is deleted when the case ends, also when it fails or panics; the
//! judge borrows the connection only for each of its own reads and writes, so an SDK in the same
//! process can share it ([`RedisConnections`]) between them.

use std::cell::{OnceCell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::time::Duration;

use redis::Connection;

use crate::results::Outcome;
use crate::sdk::reference::RedisConnections;
use crate::sections::Check;

/// How long connecting and each command may take before the run gives up on Redis.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The run's Redis, connected lazily.
pub struct RedisLink {
    url: Option<String>,
    require: bool,
    con: OnceCell<Result<RefCell<Connection>, String>>,
}

impl RedisLink {
    /// A link to the Redis at `url` (none: Redis is unavailable). With `require`, an
    /// unreachable Redis fails the cases that need it instead of skipping them.
    pub fn new(url: Option<&str>, require: bool) -> Self {
        Self { url: url.map(str::to_owned), require, con: OnceCell::new() }
    }

    fn connect(&self) -> Result<RefCell<Connection>, String> {
        let url = self.url.as_deref().filter(|u| !u.trim().is_empty()).ok_or("BQ_REDIS_URL is not set")?;
        let reach = || -> redis::RedisResult<Connection> {
            let mut con = redis::Client::open(url)?.get_connection_with_timeout(TIMEOUT)?;
            con.set_read_timeout(Some(TIMEOUT))?;
            con.set_write_timeout(Some(TIMEOUT))?;
            redis::cmd("PING").exec(&mut con)?;
            Ok(con)
        };
        let con = reach().map_err(|e| format!("cannot reach Redis at {url}: {e}"))?;
        Ok(RefCell::new(con))
    }

    fn connection(&self) -> Result<&RefCell<Connection>, &str> {
        self.con
            .get_or_init(|| {
                let got = self.connect();
                if let Err(why) = &got {
                    if self.require {
                        eprintln!("bqsuite: {why}; BQ_REQUIRE_REDIS is set, so the cases that need Redis fail");
                    } else {
                        eprintln!("bqsuite: {why}; the cases that need Redis are skipped (ADR-0033)");
                    }
                }
                got
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// Run `case` in a fresh key space that is deleted afterwards; or skip or fail the case
    /// when Redis is unreachable (see the module invariants).
    pub fn run(&self, case: impl FnOnce(&Keyspace<'_>) -> Check) -> Outcome {
        let cell = match self.connection() {
            Ok(c) => c,
            Err(why) if self.require => {
                return Outcome::fail(format!("BQ_REQUIRE_REDIS is set and Redis is unreachable: {why}"));
            }
            Err(why) => {
                return Outcome::skip(format!(
                    "ADR-0033: this case needs a live Redis and none is reachable ({why}); \
                     set BQ_REQUIRE_REDIS to make that a failure"
                ));
            }
        };
        let prefix = format!("bqsuite:{}:", uuid::Uuid::new_v4().simple());
        let space = Keyspace { url: self.url.as_deref().unwrap_or_default(), prefix: prefix.clone(), con: cell };
        let result = catch_unwind(AssertUnwindSafe(|| case(&space)));
        let cleaned = clean(&mut cell.borrow_mut(), &prefix);
        match (result, cleaned) {
            (Err(panic), _) => resume_unwind(panic),
            (Ok(Err(reason)), _) => Outcome::fail(reason),
            (Ok(Ok(())), Err(e)) => Outcome::fail(format!("the case passed but its keys could not be deleted: {e}")),
            (Ok(Ok(())), Ok(())) => Outcome::pass(),
        }
    }
}

/// The key space of one case: where the Redis is, the case's key prefix, and the judge's access
/// to the connection.
pub struct Keyspace<'a> {
    pub url: &'a str,
    pub prefix: String,
    con: &'a RefCell<Connection>,
}

impl Keyspace<'_> {
    /// Run Redis commands for the judge (reading keys, writing state).
    pub fn with<T>(&self, f: impl FnOnce(&mut Connection) -> redis::RedisResult<T>) -> Result<T, String> {
        let mut con = self.con.try_borrow_mut().map_err(|_| "the Redis connection is in use".to_owned())?;
        f(&mut con).map_err(|e| e.to_string())
    }
}

impl RedisConnections for RedisLink {
    fn with_connection(&self, url: &str, f: &mut dyn FnMut(&mut Connection)) -> Result<(), String> {
        if self.url.as_deref() != Some(url) {
            return Err(format!("this run's Redis is not at {url}"));
        }
        let cell = self.connection().map_err(str::to_owned)?;
        let mut con = cell.try_borrow_mut().map_err(|_| "the Redis connection is in use".to_owned())?;
        f(&mut con);
        Ok(())
    }
}

/// Delete every key under `prefix`.
fn clean(con: &mut Connection, prefix: &str) -> redis::RedisResult<()> {
    let mut cursor: u64 = 0;
    loop {
        let (next, keys): (u64, Vec<String>) =
            redis::cmd("SCAN").arg(cursor).arg("MATCH").arg(format!("{prefix}*")).arg("COUNT").arg(1000).query(con)?;
        if !keys.is_empty() {
            redis::cmd("DEL").arg(&keys).exec(con)?;
        }
        if next == 0 {
            return Ok(());
        }
        cursor = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Status;

    #[test]
    fn without_a_url_cases_skip_citing_the_adr_or_fail_when_required() {
        let skip = RedisLink::new(None, false).run(|_| unreachable!("no connection"));
        assert_eq!(skip.status, Status::Skip);
        assert!(skip.reason.unwrap().contains("ADR-0033"));
        let fail = RedisLink::new(Some(""), true).run(|_| unreachable!("no connection"));
        assert_eq!(fail.status, Status::Fail);
        assert!(fail.reason.unwrap().contains("BQ_REQUIRE_REDIS"));
    }
}
