//! The judge's Redis: the one connection of a run, and the runner contract for the cases that
//! need it.
//!
//! Invariants (spec "Runner contract for redis_layout", ADR-0033): a run connects at most once,
//! on the first case that needs Redis, and every later case reuses that connection (or that
//! failure), besides one connection in `MONITOR` mode that the first behavioural case opens and
//! the later ones reuse ([`Keyspace::monitor`]); when Redis is unreachable — no `BQ_REDIS_URL`, a refused connection, a failed
//! PING — a case that needs it is `fail` when the Redis is required ([`Required`]: `BQ_REQUIRE_REDIS`
//! is set, or the Redis was named with `--redis-url`) and otherwise `skip` with a reason citing
//! ADR-0033, and the run logs why on stderr once; each case works under a
//! key prefix of its own (`bqsuite:<uuid>:`), so cases cannot see each other's keys, and
//! everything under that prefix is deleted when the case ends, also when it fails or panics; the
//! judge borrows the connection only for each of its own reads and writes, so an SDK in the same
//! process can share it ([`RedisConnections`]), and what the SDK writes during a case goes
//! through the case's [`Expiring`] connection too.
//!
//! The connection layer's own rules:
//! - A URL that does not parse is the caller's usage error ([`check_url`]), never "cannot
//!   reach Redis". Every message shows the URL with its password replaced by `***`
//!   ([`redact_url`]).
//! - Connecting and every reply are bounded by one timeout (`--redis-timeout`, default
//!   [`DEFAULT_TIMEOUT`]); a server that accepts the connection but does not answer PING in
//!   time is reported as "connected but no reply". The handshake sends only what the URL asks
//!   for (AUTH, SELECT), not the crate's CLIENT SETINFO pair, so a silent server costs one
//!   timeout, not one per handshake command.
//! - Every key a case creates expires ([`KEY_TTL`]), so a run that is killed before its
//!   clean-up leaves nothing forever: the case's connection ([`Expiring`]) follows every
//!   command that names a key under the case's prefix with `EXPIRE key 600` in the same write,
//!   so the server applies the expiry right after the command whatever becomes of bqsuite.
//!   Keys a Lua script creates are covered too, since a script gets its keys as arguments.

use std::cell::{OnceCell, RefCell, RefMut};
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::time::Duration;

use redis::{Connection, ConnectionLike, RedisResult, Value};

use crate::results::Outcome;
use crate::sdk::reference::RedisConnections;
use crate::sections::Check;

use super::watch::Monitor;

/// How long connecting, and then each reply, may take by default before the run gives up.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3);

/// How long a key created by a case outlives the case at most, in seconds.
pub const KEY_TTL: u64 = 600;

/// The ADR of the runner contract: the skip of a case that needs a live Redis, which the run
/// (never the SDK) makes when it has none, cites it.
pub const RUNNER_CONTRACT_ADR: &str = "ADR-0033";

use crate::diag::redact_url;

/// Does `url` parse as a Redis URL? The error names it (redacted) and says what one looks like.
pub fn check_url(url: &str) -> Result<(), String> {
    redis::Client::open(url).map(drop).map_err(|e| {
        format!(
            "{} is not a Redis URL ({e}); write redis://[[user]:password@]host[:port][/db] or unix:///path (TLS, rediss://, is not supported)",
            redact_url(url)
        )
    })
}

/// Whether an unreachable Redis fails the cases that need it, and why; or lets them be skipped,
/// citing ADR-0033 (the runner contract's rule for `BQ_REDIS_URL`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Required {
    /// Skipped (no Redis, or `BQ_REDIS_URL` names one that does not answer).
    #[default]
    No,
    /// `BQ_REQUIRE_REDIS` is set.
    ByEnv,
    /// The Redis was named on the command line (`--redis-url`): a run asked to use a Redis that
    /// is not there has not run what it was asked to, so a mistyped port cannot turn the Redis
    /// cases into allowed skips.
    ByFlag,
}

impl Required {
    /// Is an unreachable Redis a failure?
    pub fn is_required(self) -> bool {
        self != Required::No
    }

    /// Why it is a failure, as a clause ("BQ_REQUIRE_REDIS is set"); empty for [`Required::No`].
    pub fn because(self) -> &'static str {
        match self {
            Required::No => "",
            Required::ByEnv => "BQ_REQUIRE_REDIS is set",
            Required::ByFlag => "the Redis was given with --redis-url",
        }
    }
}

/// The run's Redis, connected lazily.
pub struct RedisLink {
    url: Option<String>,
    require: Required,
    timeout: Duration,
    con: OnceCell<Result<RefCell<Connection>, String>>,
    /// The key prefix of the case being run (the SDK's commands expire under it too).
    prefix: RefCell<Option<String>>,
    /// No note on stderr when the connection fails: the caller says once what did not run.
    quiet: bool,
    /// The run's second connection, in `MONITOR` mode, opened by the first case that watches.
    monitor: OnceCell<Result<RefCell<Monitor>, String>>,
}

impl RedisLink {
    /// A link to the Redis at `url` (none: Redis is unavailable), with the default timeout.
    /// When `require` says so, an unreachable Redis fails the cases that need it instead of
    /// skipping them.
    pub fn new(url: Option<&str>, require: Required) -> Self {
        Self::with_timeout(url, require, DEFAULT_TIMEOUT)
    }

    /// [`RedisLink::new`] with another connect and reply timeout.
    pub fn with_timeout(url: Option<&str>, require: Required, timeout: Duration) -> Self {
        Self {
            url: url.map(str::to_owned),
            require,
            timeout,
            con: OnceCell::new(),
            prefix: RefCell::new(None),
            quiet: false,
            monitor: OnceCell::new(),
        }
    }

    /// This link without its note on a failed connection, for a caller that runs many links
    /// and says once what could not run (`validate`'s chunks, each with a link of its own,
    /// printed "the cases that need Redis are skipped" once per chunk, though validate skips
    /// nothing).
    pub fn quiet(mut self) -> Self {
        self.quiet = true;
        self
    }

    fn connect(&self) -> Result<RefCell<Connection>, String> {
        let url = self
            .url
            .as_deref()
            .filter(|u| !u.trim().is_empty())
            .ok_or("no Redis is given (--redis-url, or a BQ_REDIS_URL that is not blank)")?;
        open(url, self.timeout).map(RefCell::new)
    }

    /// Connect now (at most once, as every case would) and say why not, without the note a
    /// case's connection prints.
    pub fn reach(&self) -> Result<(), String> {
        self.con.get_or_init(|| self.connect()).as_ref().map(drop).map_err(Clone::clone)
    }

    /// Is the run connected to Redis (a case has connected, and it could)? Never connects.
    pub fn connected(&self) -> bool {
        matches!(self.con.get(), Some(Ok(_)))
    }

    fn connection(&self) -> Result<&RefCell<Connection>, &str> {
        self.con
            .get_or_init(|| {
                let got = self.connect();
                if let Err(why) = &got
                    && !self.quiet
                {
                    if self.require.is_required() {
                        note!("bqsuite: {why}; {}, so the cases that need Redis fail", self.require.because());
                    } else {
                        note!("bqsuite: {why}; the cases that need Redis are skipped (ADR-0033)");
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
            Err(why) if self.require.is_required() => {
                return Outcome::fail(format!("{} and Redis is unreachable: {why}", self.require.because()));
            }
            Err(why) => {
                return Outcome::skip(format!(
                    "{RUNNER_CONTRACT_ADR}: this case needs a live Redis and none is reachable ({why}); \
                     set BQ_REQUIRE_REDIS to make that a failure"
                ));
            }
        };
        let prefix = format!("bqsuite:{}:", uuid::Uuid::new_v4().simple());
        *self.prefix.borrow_mut() = Some(prefix.clone());
        let space = Keyspace { link: self, prefix: prefix.clone(), con: cell };
        let result = catch_unwind(AssertUnwindSafe(|| case(&space)));
        *self.prefix.borrow_mut() = None;
        let cleaned = clean(&mut *cell.borrow_mut(), &prefix);
        match (result, cleaned) {
            (Err(panic), _) => resume_unwind(panic),
            (Ok(Err(reason)), _) => Outcome::fail(reason),
            (Ok(Ok(())), Err(e)) => Outcome::fail(format!("the case passed but its keys could not be deleted: {e}")),
            (Ok(Ok(())), Ok(())) => Outcome::pass(),
        }
    }
}

/// The key space of one case: where the Redis is, the case's key prefix, and the judge's access
/// to the connection (its commands expire under the prefix, as the SDK's do).
pub struct Keyspace<'a> {
    link: &'a RedisLink,
    pub prefix: String,
    con: &'a RefCell<Connection>,
}

impl Keyspace<'_> {
    /// Run Redis commands for the judge (reading keys, writing state).
    pub fn with<T>(&self, f: impl FnOnce(&mut dyn ConnectionLike) -> RedisResult<T>) -> Result<T, String> {
        let mut con = self.con.try_borrow_mut().map_err(|_| "the Redis connection is in use".to_owned())?;
        f(&mut Expiring::new(&mut con, &self.prefix)).map_err(|e| e.to_string())
    }

    /// Where the Redis is.
    pub fn url(&self) -> &str {
        self.link.url.as_deref().unwrap_or_default()
    }

    /// The run's connection in `MONITOR` mode ([`Monitor`]), opened on first use: the run's
    /// second and last connection.
    pub fn monitor(&self) -> Result<RefMut<'_, Monitor>, String> {
        let tag = || format!("bqsuite:{}:watch", uuid::Uuid::new_v4().simple());
        let cell = self.link.monitor.get_or_init(|| {
            open(self.url(), self.link.timeout).and_then(|con| Monitor::start(con, &tag())).map(RefCell::new)
        });
        let cell = cell.as_ref().map_err(Clone::clone)?;
        cell.try_borrow_mut().map_err(|_| "the Redis monitor is in use".to_owned())
    }

    /// Write `mark` with `ECHO` on the judge's connection, for a [`Monitor`] to read up to.
    pub fn mark(&self, mark: &str) -> Result<(), String> {
        self.with(|con| redis::cmd("ECHO").arg(mark).exec(con))
    }
}

impl RedisConnections for RedisLink {
    fn with_connection(&self, url: &str, f: &mut dyn FnMut(&mut dyn ConnectionLike)) -> Result<(), String> {
        if self.url.as_deref() != Some(url) {
            return Err(format!("this run's Redis is not at {}", redact_url(url)));
        }
        let cell = self.connection().map_err(str::to_owned)?;
        let mut con = cell.try_borrow_mut().map_err(|_| "the Redis connection is in use".to_owned())?;
        match self.prefix.borrow().as_deref() {
            Some(prefix) => f(&mut Expiring::new(&mut con, prefix)),
            None => f(&mut *con),
        }
        Ok(())
    }
}

/// A connection to the Redis at `url`, its handshake and every reply bounded by `timeout`
/// (see the module doc), checked with a PING.
fn open(url: &str, timeout: Duration) -> Result<Connection, String> {
    let (shown, secs) = (redact_url(url), timeout.as_secs_f64());
    // Without the crate's CLIENT SETINFO pair: each of its replies is awaited for the whole
    // timeout, so a silent server cost twice the timeout before the PING was even sent.
    let info = redis::IntoConnectionInfo::into_connection_info(url).map_err(|_| check_url(url).unwrap_err())?;
    let settings = info.redis_settings().clone().set_skip_set_lib_name();
    let client = redis::Client::open(info.set_redis_settings(settings)).map_err(|_| check_url(url).unwrap_err())?;
    let no_reply =
        || format!("connected to Redis at {shown} but no reply within {secs}s (is it a Redis server? is it busy?)");
    let mut con = client.get_connection_with_timeout(timeout).map_err(|e| {
        if !e.is_timeout() {
            format!("cannot reach Redis at {shown}: {e}")
        } else if accepts(client.get_connection_info().addr(), timeout) {
            // The connection was accepted; the handshake got no reply.
            no_reply()
        } else {
            format!("cannot reach Redis at {shown}: no connection within {secs}s")
        }
    })?;
    let timeouts = con.set_read_timeout(Some(timeout)).and_then(|()| con.set_write_timeout(Some(timeout)));
    timeouts.map_err(|e| format!("cannot reach Redis at {shown}: {e}"))?;
    redis::cmd("PING")
        .exec(&mut con)
        .map_err(|e| if e.is_timeout() { no_reply() } else { format!("Redis at {shown} refused PING: {e}") })?;
    Ok(con)
}

/// Does the TCP address accept a connection within `timeout`? (`false` for other addresses.)
fn accepts(addr: &redis::ConnectionAddr, timeout: Duration) -> bool {
    use std::net::ToSocketAddrs;
    let (host, port) = match addr {
        redis::ConnectionAddr::Tcp(host, port) | redis::ConnectionAddr::TcpTls { host, port, .. } => (host, *port),
        _ => return false,
    };
    let Ok(mut addrs) = (host.as_str(), port).to_socket_addrs() else { return false };
    addrs.any(|a| std::net::TcpStream::connect_timeout(&a, timeout).is_ok())
}

/// A case's connection: every command that names a key under the case's prefix is followed,
/// in the same write, by `EXPIRE key` [`KEY_TTL`] for each such key (see the module doc).
pub struct Expiring<'a> {
    inner: &'a mut Connection,
    prefix: &'a str,
}

impl<'a> Expiring<'a> {
    pub fn new(inner: &'a mut Connection, prefix: &'a str) -> Self {
        Self { inner, prefix }
    }

    /// `packed` followed by the EXPIREs its commands call for, and how many were added.
    fn with_expiry(&self, packed: &[u8]) -> (Vec<u8>, usize) {
        let mut out = packed.to_vec();
        let mut added = 0;
        for key in keys_under(packed, self.prefix) {
            out.extend_from_slice(&redis::cmd("EXPIRE").arg(key).arg(KEY_TTL).get_packed_command());
            added += 1;
        }
        (out, added)
    }
}

impl ConnectionLike for Expiring<'_> {
    fn req_packed_command(&mut self, cmd: &[u8]) -> RedisResult<Value> {
        let (packed, added) = self.with_expiry(cmd);
        if added == 0 {
            return self.inner.req_packed_command(cmd);
        }
        let mut replies = self.inner.req_packed_commands(&packed, 0, 1 + added)?;
        Ok(replies.swap_remove(0))
    }

    fn req_packed_commands(&mut self, cmd: &[u8], offset: usize, count: usize) -> RedisResult<Vec<Value>> {
        let (packed, added) = self.with_expiry(cmd);
        let mut replies = self.inner.req_packed_commands(&packed, offset, count + added)?;
        replies.truncate(count);
        Ok(replies)
    }

    fn get_db(&self) -> i64 {
        self.inner.get_db()
    }

    fn check_connection(&mut self) -> bool {
        self.inner.check_connection()
    }

    fn is_open(&self) -> bool {
        self.inner.is_open()
    }
}

/// The distinct arguments under `prefix` of the commands packed in `packed` (RESP arrays of
/// bulk strings, as the client writes them), skipping commands that only read or delete.
fn keys_under(packed: &[u8], prefix: &str) -> Vec<Vec<u8>> {
    const NO_EXPIRY: [&[u8]; 4] = [b"SCAN", b"DEL", b"EXPIRE", b"UNLINK"];
    let mut keys: Vec<Vec<u8>> = Vec::new();
    let mut rest = packed;
    while let Some((args, after)) = one_command(rest) {
        rest = after;
        if args.first().is_none_or(|c| NO_EXPIRY.iter().any(|n| c.eq_ignore_ascii_case(n))) {
            continue;
        }
        for a in &args[1..] {
            if a.starts_with(prefix.as_bytes()) && !keys.iter().any(|k| k == a) {
                keys.push(a.to_vec());
            }
        }
    }
    keys
}

/// One `*N\r\n($len\r\nbytes\r\n)×N` command from the front of `b`, and what follows it.
fn one_command(b: &[u8]) -> Option<(Vec<&[u8]>, &[u8])> {
    fn line(b: &[u8], mark: u8) -> Option<(usize, &[u8])> {
        let end = b.windows(2).position(|w| w == b"\r\n")?;
        let n = std::str::from_utf8(b.get(1..end)?).ok()?.parse().ok()?;
        (b.first() == Some(&mark)).then_some((n, &b[end + 2..]))
    }
    let (n, mut rest) = line(b, b'*')?;
    let mut args = Vec::with_capacity(n);
    for _ in 0..n {
        let (len, after) = line(rest, b'$')?;
        args.push(after.get(..len)?);
        rest = after.get(len + 2..)?;
    }
    Some((args, rest))
}

/// Delete every key under `prefix`.
fn clean(con: &mut dyn ConnectionLike, prefix: &str) -> redis::RedisResult<()> {
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
    fn passwords_never_show_and_bad_urls_say_so() {
        // redact_url itself is tested in diag::escape.
        assert_eq!(redact_url("redis://user:pw@h/"), "redis://***:***@h/");
        let e = check_url("foo").unwrap_err();
        assert!(e.starts_with("foo is not a Redis URL"), "{e}");
        let e = check_url("http://:hunter2@h/").unwrap_err();
        assert!(!e.contains("hunter2"), "{e}");
        assert!(check_url("redis://127.0.0.1:1/").is_ok());
    }

    #[test]
    fn the_keys_a_command_names_under_the_prefix() {
        let p = "bqsuite:ab:";
        let cmd = |c: &redis::Cmd| c.get_packed_command();
        let mut two = cmd(redis::cmd("RPUSH").arg("bqsuite:ab:q").arg("bqsuite:ab:q").arg("body"));
        two.extend(cmd(redis::cmd("EVALSHA").arg("sha").arg(2).arg("bqsuite:ab:x").arg("other").arg("1")));
        two.extend(cmd(redis::cmd("DEL").arg("bqsuite:ab:gone")));
        assert_eq!(keys_under(&two, p), [b"bqsuite:ab:q".to_vec(), b"bqsuite:ab:x".to_vec()]);
        assert!(keys_under(b"*1\r\n$4\r\nPING\r\n", p).is_empty());
        assert!(keys_under(b"*2\r\n$4\r\nPING", p).is_empty(), "a truncated command is no command");
    }

    #[test]
    fn without_a_url_cases_skip_citing_the_adr_or_fail_when_required() {
        let skip = RedisLink::new(None, Required::No).run(|_| unreachable!("no connection"));
        assert_eq!(skip.status, Status::Skip);
        assert!(skip.reason.unwrap().contains("ADR-0033"));
        let fail = RedisLink::new(Some(""), Required::ByEnv).run(|_| unreachable!("no connection"));
        assert_eq!(fail.status, Status::Fail);
        assert!(fail.reason.unwrap().contains("BQ_REQUIRE_REDIS"));
        let fail = RedisLink::new(Some(""), Required::ByFlag).run(|_| unreachable!("no connection"));
        assert_eq!(fail.status, Status::Fail);
        assert!(fail.reason.unwrap().starts_with("the Redis was given with --redis-url and Redis is unreachable"));
    }
}
