//! The bqsuite side of the protocol: an adapter process as an [`Sdk`].
//!
//! [`Adapter::start`] spawns the command (its stderr appended to a log file), sends the hello
//! and reads the adapter's; every [`Sdk::call`] is then one `call` line and one reply line,
//! with a deadline — or, for an adapter whose hello declares `pipeline`, the answer to the same
//! call written ahead ([`Adapter::send_ahead`]). The judging stays with the caller: this module
//! only reports what the adapter answered, or what went wrong with it.
//!
//! Invariants:
//! - A call's answer is the adapter's reply to exactly that request: an answer written ahead is
//!   used only when the case's next call equals the next predicted one, and the case's later
//!   calls are made one at a time after the first that does not; only operations that touch no
//!   broker are ever written ahead, at most `WINDOW` (64) unanswered; replies must come in the
//!   order of the calls; trouble while writing ahead is recorded for the call and the case it
//!   hit, exactly as it would be one call at a time.
//! - A call written ahead never shows the adapter an answer it is asked for: a case's first
//!   call is made from the case alone, and a later one (predicted from the reference core's
//!   answers to the case's earlier calls, a `reemit` of the envelope `make` produced) is
//!   written only once the adapter has answered every earlier call of the case exactly as the
//!   reference did.
//! - No call blocks longer than the timeout, whatever the adapter does; a process that is not
//!   trusted any more (it exited, hung, wrote a line that is not JSON or too long, answered
//!   another `seq`, answered twice) is killed with its whole process group, the call fails
//!   with a reason saying what happened, and every later call of the same case fails at once
//!   ("the adapter failed earlier in this case"), because its state (Redis reservations) is
//!   gone. The next case starts a fresh process, until [`AdapterOptions::max_restarts`] restarts
//!   are used up; then every call fails at once.
//! - An operation that no process has answered in this run, whose calls have taken the process
//!   down [`RETIRE_AFTER`] times, at least once as the first call a fresh process was asked, is
//!   not sent again (nor written ahead): its later calls fail at once, naming it, and the
//!   restarts left serve the other operations. An operation that crashes every time is the
//!   SDK's bug in that operation, and should not cost every section after it its run. One that
//!   was ever answered crashes on some inputs only (or was charged for another's crash): it keeps
//!   being sent, within the restart budget. A loss is charged to the call whose reply was
//!   awaited, which is not always the culprit (a process can exit right after answering the call
//!   before, or at its start); hence the evidence of a fresh process, and no charge at all for a
//!   duplicate or misordered reply (another call's).
//! - A well-formed reply with the right `seq` whose content breaks the protocol (an unknown
//!   reply kind, a result of another operation) fails only that call: the stream is still in
//!   step, so the process is kept.
//! - An operation the hello does not list is never sent; it is not implemented, like one the
//!   adapter answers `not_implemented`. A `skip` reply is recorded with its reason for the
//!   caller to judge against the skip policy, and the call fails.
//! - With `trace`, after a failed case, the reference core's answer is told for every call the
//!   adapter answered otherwise (or not at all) whose reference answer is known: a call written
//!   ahead (predicted with it), or, in a case none of whose calls was answered ahead, a call
//!   made one at a time while it is, pair by pair, the call the reference core made when it ran
//!   the case again ([`Adapter::reference_ran`]); those are compared without what each side
//!   names on its own (a key prefix, a reservation's name and token), and a passing case's
//!   differences are never told.
//! - Every incident is recorded (for the summary), with the case it hit; reasons name no
//!   path or time, so a results file stays reproducible.
//! - A restarted adapter must give the same hello as the first one: the same `sdk`, `version`,
//!   `language`, `bindings`, `operations` and `pipeline` (the run was planned on them); one that
//!   differs runs no case, is not started again (no restart mends it), and the incident names
//!   the members that changed.
//! - Every adapter process is registered from its start until it is reaped, so that an
//!   interrupted bqsuite kills it with its group ([`stop_all`]) instead of leaving it behind.
//! - On Linux nothing in an adapter's process group outlives the adapter: when it exits (after
//!   the shutdown, or on its own), the group is killed before the adapter is reaped, while its
//!   id cannot have been reused. A helper that leaves the group (`setsid`) is out of reach, and
//!   elsewhere (macOS's waitid cannot be relied on) only a killed adapter's group is killed.
//!   A group is never signalled once its adapter is reaped.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command as Process, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

use super::departure::departure;
use super::pipe::{Pipe, Received, Unsent};
use super::protocol::{CallLine, Command, Hello, MAX_LINE, MAX_NAME, PROTOCOL, Reply, integral_numbers, quick_reply};
use crate::sdk::{BINDINGS, Identity, OPERATIONS, Request, Response, Sdk, SdkError};

/// How to run an adapter.
#[derive(Debug, Clone)]
pub struct AdapterOptions {
    /// The program and its arguments.
    pub command: Vec<String>,
    /// The longest bqsuite waits for one reply, and for the exit after a shutdown; the hello
    /// waits this long or [`DEFAULT_TIMEOUT`], whichever is longer.
    pub timeout: Duration,
    /// How many times a failed adapter is started again.
    pub max_restarts: u32,
    /// The adapter's stderr is appended here.
    pub log: PathBuf,
    /// The suite version, for the hello.
    pub conformance_version: String,
    /// Write every line exchanged with the adapter to the log too ([`Adapter::trace`]).
    pub trace: bool,
}

/// The calls each case of a section is predicted to make: case id, and its calls in order, each
/// with the reference core's answer to it (`None`: the reference failed it).
pub type Plan = Vec<(String, Vec<(Request, Option<Response>)>)>;

/// The default of `--timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// How many times an operation never answered may take the adapter down before its calls are
/// not sent again.
pub const RETIRE_AFTER: u32 = 3;

/// The default of `--max-restarts`.
pub const DEFAULT_MAX_RESTARTS: u32 = 5;

/// Split `CMD [ARGS]` into words under POSIX shell quoting (no expansion of any kind).
pub fn split_command(text: &str) -> Result<Vec<String>, String> {
    match shlex::split(text) {
        Some(words) if !words.is_empty() => Ok(words),
        Some(_) => Err("the adapter command is empty".into()),
        None => Err(format!("the adapter command {text:?} has an unterminated quote or a trailing backslash")),
    }
}

/// What went wrong with an adapter process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trouble {
    /// It could not be started.
    Spawn(String),
    /// It exited (or closed its stdout): its exit status, and when.
    Exited(String, &'static str),
    /// It did not exit within the timeout after the shutdown, and was killed.
    Lingered,
    /// No answer within the timeout.
    TimedOut(Duration),
    /// No complete line (the hello or a reply) within this long, after this many bytes without a
    /// line end (the start of them).
    NoLineEnd(Duration, usize, String),
    /// Nothing at all within this long before the hello (`--timeout`, at least
    /// [`DEFAULT_TIMEOUT`]).
    NoHello(Duration),
    /// A line longer than [`MAX_LINE`].
    TooLong,
    /// A line that is not a JSON object with a `seq` (or, before the hello, not a hello).
    Garbage(String),
    /// A reply with the right `seq` that does not follow the protocol (an unknown `reply`, a
    /// result of another operation or of the wrong shape): the stream is still in step, so
    /// only the call fails and the process keeps running.
    Malformed(String),
    /// A reply for a `seq` not yet sent.
    WrongSeq(u64),
    /// A reply for a later call written ahead before the reply to an earlier one.
    OutOfOrder(u64),
    /// A second reply for a `seq` already answered.
    Duplicate(u64),
    /// The hello names another protocol version.
    Protocol(String),
    /// The hello is not a hello of this protocol.
    BadHello(String),
    /// A restarted adapter gave another hello than the first.
    Changed(String),
    /// Reading or writing failed.
    Io(String),
}

impl fmt::Display for Trouble {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Trouble::Spawn(e) => write!(f, "could not be started: {e}"),
            Trouble::Exited(status, when) => write!(f, "exited ({status}) {when}"),
            Trouble::TimedOut(t) => write!(f, "gave no answer within {} s (--timeout)", t.as_secs_f64()),
            Trouble::NoLineEnd(t, n, start) => write!(
                f,
                "wrote {n} bytes but no line end within {} s ({start}): every message, the hello too, is one line ending with a line feed (\\n), and stdout is flushed after it",
                t.as_secs_f64()
            ),
            Trouble::NoHello(t) => write!(
                f,
                "wrote no hello within {} s (the hello waits for --timeout, and at least {} s): an adapter writes its hello as soon as it starts, and flushes its stdout after every line",
                t.as_secs_f64(),
                DEFAULT_TIMEOUT.as_secs()
            ),
            Trouble::Lingered => f.write_str("did not exit within the timeout after the shutdown (killed)"),
            Trouble::TooLong => write!(f, "wrote a line longer than {} MiB", MAX_LINE >> 20),
            Trouble::Garbage(what) => write!(f, "wrote a line that is not a reply of the protocol: {what}"),
            Trouble::Malformed(what) => {
                write!(f, "answered with a reply that does not follow the protocol (kept running): {what}")
            }
            Trouble::WrongSeq(got) => write!(f, "answered seq {got}, which was never sent"),
            Trouble::OutOfOrder(got) => {
                write!(f, "answered seq {got} before an earlier call (replies come in the order of the calls)")
            }
            Trouble::Duplicate(seq) => write!(f, "answered seq {seq} a second time (a duplicate response)"),
            Trouble::Protocol(got) => {
                write!(f, "speaks adapter protocol {got}, and bqsuite speaks protocol {PROTOCOL} only")
            }
            Trouble::BadHello(e) => write!(f, "gave a hello that does not follow the protocol: {e}"),
            Trouble::Changed(what) => write!(f, "restarted with another hello than the first ({what})"),
            Trouble::Io(e) => write!(f, "could not be talked to: {e}"),
        }
    }
}

/// One thing that went wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incident {
    pub section: String,
    pub case: String,
    /// The call it hit (`seq` and operation), when it hit one.
    pub call: Option<(u64, &'static str)>,
    pub trouble: Trouble,
    /// The adapter process was killed (or had exited) and will be started again if needed.
    pub lost: bool,
}

impl fmt::Display for Incident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.section.is_empty() {
            write!(f, "{} {}: ", self.section, self.case)?;
        }
        if let Some((seq, op)) = self.call {
            write!(f, "call {seq} ({op}): ")?;
        }
        write!(f, "the adapter {}", self.trouble)
    }
}

/// How much of one incident the summary on stderr shows (the results file has the reason).
const INCIDENT_CHARS: usize = 300;

impl Incident {
    /// The incident as one line of the summary: what a terminal or a CI log would act on
    /// escaped (a reply kind or a hello member quoted by a parse error is the adapter's text,
    /// which may hold a line break and a workflow command), and cut.
    fn line(&self) -> String {
        excerpt(self.to_string().as_bytes(), INCIDENT_CHARS)
    }

    /// The same trouble at the same operation, whatever the case and call.
    fn alike(&self, other: &Incident) -> bool {
        self.call.map(|(_, op)| op) == other.call.map(|(_, op)| op)
            && self.lost == other.lost
            && self.trouble == other.trouble
    }

    /// Where it happened, briefly: the case and call (the section and case are the suite's
    /// names, cut all the same).
    fn place(&self) -> String {
        let mut at = if self.section.is_empty() {
            String::from("outside a case")
        } else {
            format!("{} {}", self.section, self.case)
        };
        if let Some((seq, _)) = self.call {
            at.push_str(&format!(" (call {seq})"));
        }
        excerpt(at.as_bytes(), 100)
    }
}

/// What the adapter said about the current case besides results.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CaseNotes {
    /// Operations it does not implement that the case asked for, each with whether the hello
    /// declared it (so the adapter refused this one call of an operation it has: a variant the
    /// SDK cannot express) or left it out (the SDK has no such operation).
    pub not_implemented: Vec<(&'static str, bool)>,
    /// Operations it skipped, with the reason it gave.
    pub skips: Vec<(&'static str, String)>,
    /// A call of the case reached the adapter (written ahead or one at a time): a trace of the
    /// case shows an exchange.
    pub exchanged: bool,
    /// Why a call of the case was not sent for what happened before the case began (the
    /// restarts used up, an adapter that came back as another, an operation retired), the
    /// first such: the case says nothing of its own, and run alone it would be sent. A call not
    /// sent because the adapter failed earlier in the same case is not this: that case had the
    /// incident.
    pub not_run: Option<String>,
}

/// Why a case's later calls are not sent once the adapter failed in it.
pub const EARLIER_IN_THIS_CASE: &str = "the adapter failed earlier in this case";

/// How the reason of a call not sent begins (`not run: WHY`): `results check` finds the cases
/// not run after the adapter failed by it (a results file has no other mark of them).
pub const NOT_RUN: &str = "not run: ";

/// How the reason of a call an incident hit begins (`adapter: call N (OP): the adapter …`):
/// `results check` finds the cases the adapter's incidents hit by it.
pub const INCIDENT: &str = "adapter: ";

/// How many incidents the summary lists before it counts the rest.
const MAX_LISTED: usize = 20;

/// What the whole run did with the adapter.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Processes started.
    pub starts: u32,
    pub incidents: Vec<Incident>,
    /// Restarts were used up.
    pub gave_up: bool,
    /// No process was started again because a restarted one came back with another hello.
    pub retired: bool,
    /// Operations not sent again, having taken the adapter down [`RETIRE_AFTER`] times.
    pub retired_operations: Vec<String>,
    /// Operations the hello lists that this protocol does not have (never called).
    pub unknown_operations: Vec<String>,
    pub log: PathBuf,
    /// Calls written ahead (the hello declared `pipeline`), and how many of their answers a
    /// case used; the rest were predicted in vain.
    pub ahead: Option<(u64, u64)>,
    /// Calls made one at a time.
    pub one_by_one: u64,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let restarts = self.starts.saturating_sub(1);
        write!(f, "adapter: {} incident(s), {restarts} restart(s)", self.incidents.len())?;
        if self.retired {
            f.write_str(", not started again (it came back with another hello)")?;
        } else if self.gave_up {
            f.write_str(", restarts used up")?;
        }
        if !self.retired_operations.is_empty() {
            write!(
                f,
                ", never answered and not sent again after taking it down {RETIRE_AFTER} times: {}",
                self.retired_operations.join(", ")
            )?;
        }
        if let Some((sent, used)) = self.ahead {
            write!(f, "; {sent} call(s) written ahead ({used} used), {} one at a time", self.one_by_one)?;
        }
        if !self.unknown_operations.is_empty() {
            // The adapter's names: shown escaped and cut, ten at most.
            let listed = crate::diag::shown(self.unknown_operations.len(), 10);
            let mut names: Vec<String> = self.unknown_operations[..listed]
                .iter()
                .map(|o| format!("\"{}\"", excerpt(o.as_bytes(), 40)))
                .collect();
            if self.unknown_operations.len() > listed {
                names.push(format!("… {} more", self.unknown_operations.len() - listed));
            }
            write!(f, "; operations unknown to protocol {PROTOCOL}, never called: [{}]", names.join(", "))?;
        }
        writeln!(f, "; its stderr is in {}", self.log.display())?;
        // Incidents alike (the same trouble at the same operation, as a systematic bug gives
        // in every case) are one entry: the first in full, then where else it happened.
        let mut groups: Vec<(&Incident, Vec<&Incident>)> = Vec::new();
        for i in &self.incidents {
            match groups.iter_mut().find(|(first, _)| first.alike(i)) {
                Some((_, more)) => more.push(i),
                None => groups.push((i, Vec::new())),
            }
        }
        let listed = crate::diag::shown(groups.len(), MAX_LISTED);
        for (first, more) in &groups[..listed] {
            writeln!(f, "  {}", first.line())?;
            if !more.is_empty() {
                let mut wheres: Vec<String> =
                    more[..crate::diag::shown(more.len(), 3)].iter().map(|i| i.place()).collect();
                if more.len() > wheres.len() {
                    wheres.push("…".into());
                }
                writeln!(f, "    and {} more alike: {}", more.len(), wheres.join(", "))?;
            }
        }
        if groups.len() > listed {
            let rest: usize = groups[listed..].iter().map(|(_, more)| 1 + more.len()).sum();
            writeln!(f, "  … and {rest} more")?;
        }
        Ok(())
    }
}

struct Running {
    child: Child,
    pipe: Pipe,
}

/// How often a process that has not answered yet is looked at, to see whether it exited.
const LOOK_EVERY: Duration = Duration::from_millis(20);

impl Running {
    /// The next line, waiting until `deadline` at most, as [`Pipe::recv`] gives it, except that
    /// on Linux ([`look`]) a process seen exiting meanwhile is an end of file (after whatever it
    /// wrote first): a helper it started may hold its stdout open after it exited, and then no
    /// end of file comes until the deadline (as still happens elsewhere). Lines that arrive
    /// quickly never wait for a look.
    fn recv(&mut self, deadline: Instant) -> Received {
        loop {
            let slice = (Instant::now() + LOOK_EVERY).min(deadline);
            match self.pipe.recv(slice) {
                Received::TimedOut if Instant::now() < deadline => {
                    if look(&self.child) == Seen::Exited {
                        // What it wrote before exiting is in the pipe already.
                        return match self.pipe.recv(Instant::now()) {
                            Received::TimedOut => Received::Eof,
                            got => got,
                        };
                    }
                }
                got => return got,
            }
        }
    }
}

/// What an operation's calls have done to the adapter processes, for [`RETIRE_AFTER`].
#[derive(Debug, Clone, Copy)]
enum OpRecord {
    /// Some process answered one of its calls: it crashes on some inputs at most, and is never
    /// retired.
    Answered,
    /// Never answered: how many times its calls took the process down, and whether once as the
    /// first call a fresh process was asked.
    Lost { times: u32, on_a_fresh_process: bool },
}

/// An adapter process (restarted as needed) as the SDK under test.
pub struct Adapter {
    options: AdapterOptions,
    identity: Identity,
    running: Option<Running>,
    starts: u32,
    /// The last `seq` sent to the running process.
    seq: u64,
    section: String,
    case: String,
    /// Why every further call of this case fails at once.
    down: Option<String>,
    /// Why no process is started again: a restarted one came back with another hello, which
    /// no further restart mends (each would be one more incident of the same).
    retired: Option<String>,
    /// What each operation called so far has done to the processes ([`RETIRE_AFTER`]).
    ops: HashMap<&'static str, OpRecord>,
    /// Replies the running process gave (a loss at 0 is a fresh process's first call).
    process_answered: u64,
    notes: CaseNotes,
    incidents: Vec<Incident>,
    /// The hello declared `pipeline`: calls may be written ahead.
    pipeline: bool,
    /// The calls of the current section written ahead, and how far writing and reading are.
    ahead: AheadState,
    /// The current case's place among them (its index, and its next call's), while its calls
    /// are the predicted ones.
    current: Option<(usize, usize)>,
    /// Calls written ahead, their answers used, calls made one at a time.
    counts: (u64, u64, u64),
    /// With `trace`: per case id (of the section written ahead, or the current case), the
    /// reference core's answers that the adapter's differed from (call `seq`, the reference's
    /// response as JSON), told if the case fails ([`Adapter::case_ended`]).
    differing: HashMap<String, Vec<(u64, Vec<u8>)>>,
    /// With `trace`: the current case's calls made one at a time, each with its `seq` and the
    /// adapter's answer (`None`: it gave none), for [`Adapter::reference_ran`] to compare.
    made: Vec<(u64, Request, Option<Response>)>,
    /// A call of the current case was answered from those written ahead (its reference answer
    /// was predicted with it), so `made` does not begin with the case's first call.
    answered_ahead: bool,
}

/// The calls of one section written ahead: one list per case, the queue of those ready to be
/// written, and the ones in flight. Replies are read when a case needs one (or before a call
/// made one at a time, which must come after them), so the adapter answers the next calls while
/// bqsuite judges the last ones.
#[derive(Default)]
struct AheadState {
    /// The section, and each case's id with its predicted calls.
    section: String,
    cases: Vec<(String, Vec<Ahead>)>,
    by_id: HashMap<String, usize>,
    /// The calls to write next, in order (case index, call index): each case's first call, and
    /// a later call of a case once the adapter has answered the one before it exactly as the
    /// reference core did (a later call is predicted from the reference's answers, so written
    /// any earlier it would show the adapter the answer it is being asked for).
    queue: VecDeque<(usize, usize)>,
    /// Written, not yet answered: `seq`, case index and call index, oldest first.
    in_flight: VecDeque<(u64, usize, usize)>,
    /// The adapter was lost: nothing more is written ahead in this section.
    done: bool,
}

/// A call predicted for a case, and what became of it.
struct Ahead {
    request: Request,
    /// The reference core's answer to it (`None`: the reference failed it): the case's next
    /// call is written ahead only once the adapter has given this very answer.
    reference: Option<Response>,
    stage: Stage,
    /// `None`: not answered (not written, or the adapter was lost before it answered); the call
    /// is then made when the case makes it, like any other.
    answer: Option<Answered>,
}

/// Where a predicted call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Not to be written (yet): its operation is not listed in the hello, or the adapter has
    /// not answered the case's earlier calls as the reference did.
    Held,
    /// In [`AheadState::queue`].
    Queued,
    /// Written (answered, or in flight, or lost with the adapter).
    Written,
}

/// The reply to a call written ahead, judged as any reply is.
struct Answered {
    result: Result<Response, SdkError>,
    notes: CaseNotes,
    /// The adapter was lost on this call.
    lost: bool,
}

/// The most calls in flight at once when writing ahead, and the level below which the window
/// is filled again (so calls go out in batches, one write each).
const WINDOW: usize = 64;
const REFILL: usize = 32;

/// An adapter process started by [`Adapter::launch`], not greeted yet (dropped: killed).
pub struct Launched {
    adapter: Option<Adapter>,
    process: Option<Result<Running, Trouble>>,
}

impl Launched {
    /// Send the hello (naming `conformance_version` when given, the options' otherwise) and
    /// read the adapter's; an error means no case can be run.
    pub fn connect(mut self, conformance_version: Option<&str>) -> Result<Adapter, Trouble> {
        let mut adapter = self.adapter.take().expect("connected once");
        if let Some(v) = conformance_version {
            v.clone_into(&mut adapter.options.conformance_version);
        }
        let running = self.process.take().expect("connected once")?;
        let (running, hello) = adapter.greet(running)?;
        adapter.identity = hello.identity();
        adapter.pipeline = hello.pipeline;
        adapter.running = Some(running);
        Ok(adapter)
    }
}

impl Drop for Launched {
    fn drop(&mut self) {
        if let Some(Ok(mut r)) = self.process.take() {
            kill(&mut r.child);
        }
    }
}

/// Why a line of the adapter that serde_json refused is not JSON: in the protocol's words where
/// serde_json's would mislead (an invalid UTF-8 byte reads "invalid unicode code point", an
/// unpaired surrogate escape "unexpected end of hex escape"), else serde_json's own. Only a line
/// that looks like a reply (an object) is blamed on its encoding: a stray banner in Latin-1 is
/// first of all not JSON.
fn not_json(line: &[u8], e: &serde_json::Error) -> String {
    let object = String::from_utf8_lossy(line).trim_start().starts_with('{');
    let why = match std::str::from_utf8(line) {
        _ if line.starts_with(b"\xEF\xBB\xBF") => {
            "it starts with a byte-order mark (U+FEFF), which JSON text does not have: write UTF-8 without one (.NET: new UTF8Encoding(false))".to_owned()
        }
        _ if e.to_string().starts_with("recursion limit exceeded") => format!(
            "JSON nested too deeply (more than {} levels), which bqsuite does not read",
            crate::suite::json::MAX_DEPTH
        ),
        _ if !object => format!("not JSON ({e})"),
        Err(u) => format!(
            "not UTF-8 (a byte at offset {} is invalid): the protocol is UTF-8 text, so the adapter's stdout must write UTF-8 whatever the platform's default encoding",
            u.valid_up_to()
        ),
        Ok(text) => match crate::suite::json::lone_surrogate(text) {
            Some(at) => format!(
                "a lone surrogate escape at byte {at}: a protocol string is Unicode text, which has no unpaired surrogate (bytes travel as base64)"
            ),
            None => format!("not JSON ({e})"),
        },
    };
    format!("{why}: {}", excerpt(line, 80))
}

/// The first `n` characters of what an adapter wrote, for a reason: as written (so a JSON line
/// reads as JSON, not escaped twice once the reason is in a results file), with what a terminal
/// would act on escaped ([`shown`]), `…` where it was cut.
fn excerpt(bytes: &[u8], n: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = shown(text.chars().take(n));
    if text.chars().count() > n {
        out.push('…');
    }
    out
}

/// [`excerpt`] as the trace writes it: what a terminal acts on escaped as there (`\u0007`), and
/// every other character a reader cannot see for what it is (a no-break space, a zero-width
/// space: [`crate::diag::is_hidden`]) in the reasons' notation, `\u{00a0}`. A raw U+00A0 in a
/// traced request looks like the space it is not (user study: `"bq-schema-version":" "`).
fn traced(bytes: &[u8], n: usize) -> String {
    crate::diag::visible(&excerpt(bytes, n)).into_owned()
}

/// Characters as a terminal may show them: every one a terminal or log viewer acts on (controls,
/// line separators, bidirectional controls: [`crate::diag::is_unsafe_char`]) escaped, quotes
/// kept.
fn shown(chars: impl Iterator<Item = char>) -> String {
    crate::diag::terminal_safe(&chars.collect::<String>()).into_owned()
}

fn exit_text(status: std::process::ExitStatus) -> String {
    status.to_string()
}

/// The adapter processes started and not yet reaped (their ids, each its process group's), so
/// that an interrupted bqsuite stops them ([`stop_all`]): each runs in a group of its own, which
/// the terminal's SIGINT does not reach and bqsuite's exit does not end.
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn running() -> MutexGuard<'static, Vec<u32>> {
    RUNNING.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Kill the process group of `pid` (a no-op where there are none).
fn kill_group(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: a plain kill(2). The group is the one this process created for the child
        // (its id is the child's pid); it lives on while any member does, even when the child
        // itself has exited, and signalling a group that is gone is a harmless ESRCH.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = pid;
}

/// Kill every adapter process still running, with everything it started, and hold the
/// registry until the process exits, so that no adapter is started after it: for the
/// SIGINT / SIGTERM handler, which exits next.
pub fn stop_all() -> MutexGuard<'static, Vec<u32>> {
    let guard = running();
    guard.iter().for_each(|&pid| kill_group(pid));
    guard
}

/// Kill the child and everything it started (its process group, which lives on while any
/// member does, even after the child itself exited), then reap it. The group is signalled only
/// while the child is registered, that is not yet reaped, so never after its id may have been
/// reused (an adapter that exited was reaped, and its group killed, by [`wait_exit`]).
fn kill(child: &mut Child) -> String {
    {
        let mut registry = running();
        if registry.contains(&child.id()) {
            kill_group(child.id());
        }
        let _ = child.kill();
        registry.retain(|&p| p != child.id());
    }
    match child.wait() {
        Ok(status) => exit_text(status),
        Err(e) => format!("could not be reaped: {e}"),
    }
}

/// Make this process's children waitable: a parent that ignored SIGCHLD passes that on
/// through exec, and then the kernel reaps every child at once, so an adapter's exit could be
/// neither seen nor told (its status lost, its group killed only at the end of the run), and
/// no git command's status could be read. The binary calls it first; starting an adapter
/// calls it too, for library users.
#[cfg(unix)]
pub fn children_waitable() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: signal(2) with SIG_DFL installs no handler, it only restores the default
        // disposition of SIGCHLD (which is to ignore the signal but keep children waitable).
        unsafe {
            libc::signal(libc::SIGCHLD, libc::SIG_DFL);
        }
    });
}

/// What the system says of a child, looked at without reaping it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// It exited and is not reaped yet: its pid, and with it the id of its process group,
    /// cannot be taken by another process, so the group can still be signalled safely.
    Exited,
    /// It still runs.
    Running,
    /// Not known (already reaped, or no such look on this system): [`Child::try_wait`] decides.
    Unknown,
}

/// Look at the child with waitid(2) and `WNOWAIT`, which leaves it waitable. Linux only: on
/// macOS waitid cannot be relied on to report the pid (CPython leaves `os.waitid` out there).
#[cfg(target_os = "linux")]
fn look(child: &Child) -> Seen {
    let pid = libc::id_t::from(child.id());
    loop {
        // SAFETY: waitid(2) writes only into `info`, a zeroed siginfo_t it owns; `si_pid` is
        // read only after a successful call, where it is the child's pid if it changed state
        // and 0 otherwise (WNOHANG).
        unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
            if libc::waitid(libc::P_PID, pid, &mut info, flags) == 0 {
                return if info.si_pid() != 0 { Seen::Exited } else { Seen::Running };
            }
        }
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            // ECHILD: already reaped, and `try_wait` has its status.
            return Seen::Unknown;
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn look(_: &Child) -> Seen {
    Seen::Unknown
}

/// Wait until `until` for the child to exit: its status and whether it is 0, or `None` while
/// it still runs. Whatever it leaves running in its process group is killed once it has
/// exited, before it is reaped, so nothing an adapter starts outlives it.
fn wait_exit(child: &mut Child, until: Instant) -> Option<(String, bool)> {
    // A process that closed its stdout is usually gone within microseconds: look again soon,
    // then less and less often.
    let mut pause = Duration::from_micros(50);
    loop {
        // Reaped and unregistered under one lock, so a group is never signalled after its id
        // may have been reused.
        let waited = {
            let mut registry = running();
            let seen = look(child);
            if seen == Seen::Exited {
                kill_group(child.id());
            }
            // A child seen running is not waited for: were it to exit between the look and
            // the wait, it would be reaped with its group never signalled.
            let waited = if seen == Seen::Running { Ok(None) } else { child.try_wait() };
            if let Ok(Some(_)) = waited {
                registry.retain(|&p| p != child.id());
            }
            waited
        };
        match waited {
            Ok(Some(status)) => return Some((exit_text(status), status.success())),
            Ok(None) if Instant::now() < until => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(2));
            }
            Ok(None) => return None,
            Err(e) => return Some((format!("could not be waited for: {e}"), false)),
        }
    }
}

/// What is wrong with how the child ended after the shutdown, once it closed its stdout or
/// was seen exiting: nothing for an exit with status 0.
fn after_shutdown(child: &mut Child, deadline: Instant) -> Option<Trouble> {
    match wait_exit(child, deadline) {
        Some((_, true)) => None,
        Some((status, false)) => Some(Trouble::Exited(status, "after the shutdown")),
        None => Some(Trouble::Lingered),
    }
}

/// The child's exit status once it closed its stdout: wait briefly, then kill it.
fn exited(child: &mut Child) -> String {
    match wait_exit(child, Instant::now() + Duration::from_millis(500)) {
        Some((status, _)) => status,
        None => format!("closed its stdout but kept running, killed: {}", kill(child)),
    }
}

impl Adapter {
    /// Start the adapter and read its hello; an error means no case can be run.
    pub fn start(options: AdapterOptions) -> Result<Adapter, Trouble> {
        Adapter::launch(options).connect(None)
    }

    /// Start the adapter's process without greeting it yet, so that it starts (a runtime loads)
    /// while bqsuite does other work; [`Launched::connect`] then sends the hello. Nothing is
    /// reported until then: a process that could not be started is the error of `connect`.
    pub fn launch(options: AdapterOptions) -> Launched {
        let mut adapter = Adapter::new(options);
        let process = adapter.spawn_process();
        Launched { adapter: Some(adapter), process: Some(process) }
    }

    /// An adapter with no process yet.
    fn new(options: AdapterOptions) -> Adapter {
        Adapter {
            options,
            identity: Identity {
                sdk: String::new(),
                version: String::new(),
                language: String::new(),
                bindings: Vec::new(),
                operations: Vec::new(),
            },
            running: None,
            starts: 0,
            seq: 0,
            section: String::new(),
            case: String::new(),
            down: None,
            retired: None,
            ops: HashMap::new(),
            process_answered: 0,
            notes: CaseNotes::default(),
            incidents: Vec::new(),
            pipeline: false,
            ahead: AheadState::default(),
            current: None,
            counts: (0, 0, 0),
            differing: HashMap::new(),
            made: Vec::new(),
            answered_ahead: false,
        }
    }

    /// The calls until the next `begin_case` belong to case `id` of `section`.
    pub fn begin_case(&mut self, section: &str, id: &str) {
        section.clone_into(&mut self.section);
        id.clone_into(&mut self.case);
        self.down = None;
        self.notes = CaseNotes::default();
        self.made.clear();
        self.answered_ahead = false;
        self.current = if self.ahead.section == section { self.ahead.by_id.get(id).map(|&c| (c, 0)) } else { None };
    }

    /// Case `id` of the current section ended as `verdict` (`pass`, `skip`, or `fail: reason`),
    /// `failed` when it failed. With `trace`, the log says so after the case's exchange, and for
    /// a failed case gives the reference core's answers to the calls that the adapter answered
    /// otherwise, written ahead or compared when the reference ran the case again (a passing
    /// case's differences are prose, ids and times the judge does not compare, and would only
    /// be noise).
    pub fn case_ended(&mut self, id: &str, verdict: &str, failed: bool) {
        let differing = self.differing.remove(id).unwrap_or_default();
        self.log_verdict(&self.section, id, verdict);
        if failed {
            for (seq, line) in differing {
                self.trace(Arrow::Reference(seq), &line);
            }
        }
    }

    /// Does the log get the exchange (`--trace`)?
    pub fn traces(&self) -> bool {
        self.options.trace
    }

    /// With `trace`: is the current case to be compared with the reference core running it
    /// again ([`Adapter::reference_ran`])? Only when no call of it was answered from those
    /// written ahead: those were compared with the answers predicted with them, and the calls
    /// made one at a time after them are not the case's from its first.
    pub fn wants_reference(&self) -> bool {
        self.options.trace && !self.answered_ahead
    }

    /// With `trace`: the reference core ran the current case after the adapter did (a case
    /// none of whose calls was answered ahead: it touches a broker, so none was predicted, or
    /// the adapter does not pipeline, or the calls written ahead went unused), and made `calls`,
    /// each with its answer (`None`: it failed the call). Compared call by call with the calls
    /// the adapter was sent, while each pair is the same call, the answers the adapter gave
    /// otherwise are told when the case ends as failed ([`Adapter::case_ended`]), as for a call
    /// written ahead. What each side names on its own is not compared ([`own_names_blanked`]:
    /// the case's key prefix, a reservation's name and token), or every such call would differ.
    pub fn reference_ran(&mut self, calls: Vec<(Request, Option<Response>)>) {
        for ((seq, request, got), (theirs, answer)) in self.made.iter().zip(calls) {
            let json = |v: serde_json::Result<Value>| own_names_blanked(v.expect("a call or an answer serialises"));
            if json(serde_json::to_value(request)) != json(serde_json::to_value(&theirs)) {
                break;
            }
            let Some(answer) = answer else { continue };
            let answer_json = json(serde_json::to_value(&answer));
            if got.as_ref().is_none_or(|got| json(serde_json::to_value(got)) != answer_json) {
                let line = serde_json::to_vec(&answer).expect("a response always serialises");
                self.differing.entry(self.case.clone()).or_default().push((*seq, line));
            }
        }
    }

    /// Case `id` of `section`, after the whole run, is judged `verdict` instead of what
    /// [`Adapter::case_ended`] said (a skip the run's other cases refused): with `trace`, the
    /// log says so.
    pub fn case_judged_again(&self, section: &str, id: &str, verdict: &str) {
        self.log_verdict(section, id, verdict);
    }

    /// Does the adapter take calls written ahead (its hello declared `pipeline`)?
    pub fn pipelines(&self) -> bool {
        self.pipeline
    }

    /// Write ahead the calls `plan` predicts the cases of `section` will make (case id and its
    /// calls in the order the cases run, each with the reference core's answer to it); each
    /// case then gets the answers to the calls it does make as predicted, in order, and makes
    /// any other call when it comes to it. The replies are read as the cases need them, so the
    /// adapter answers the next calls while bqsuite judges the last ones. Only operations that
    /// touch no broker are written ahead (a call whose side effects the judge watches must not
    /// run early), only to a running process of an adapter that declared `pipeline`, and at
    /// most `WINDOW` at a time; a case's later call only once the adapter has answered the one
    /// before it as the reference did (it is predicted from that answer). A reply is
    /// judged as any reply is: trouble is an incident of the case the call was predicted for,
    /// a lost process ends the writing ahead (the calls not answered are made when their
    /// cases come to them, on a restarted process).
    pub fn send_ahead(&mut self, section: &str, plan: Plan) {
        // The last section's replies still in flight come first; nothing more of it is written.
        self.ahead.done = true;
        self.drain();
        self.ahead = AheadState::default();
        self.current = None;
        // Keyed by case id, which another section may share: nothing of the last one is kept.
        self.differing.clear();
        if !self.pipeline || self.running.is_none() {
            return;
        }
        let cases: Vec<(String, Vec<Ahead>)> = plan.into_iter().map(|(id, calls)| (id, ahead_of_time(calls))).collect();
        let mut by_id = HashMap::new();
        for (c, (id, _)) in cases.iter().enumerate() {
            by_id.entry(id.clone()).or_insert(c);
        }
        self.ahead = AheadState { section: section.to_owned(), cases, by_id, ..AheadState::default() };
        // Each case's first call goes out now; a later one once the call before it is answered.
        for c in 0..self.ahead.cases.len() {
            self.queue(c, 0, false);
        }
        self.fill();
    }

    /// Queue call `k` of case `c` to be written ahead (first, when `first`), if it exists and
    /// its operation is one the hello lists (any other is not implemented, and never sent).
    fn queue(&mut self, c: usize, k: usize, first: bool) {
        let Some(call) = self.ahead.cases[c].1.get(k) else { return };
        let op = call.request.operation();
        let listed = self.identity.operations.iter().any(|o| o == op);
        if call.stage != Stage::Held || !listed || self.op_retired(op).is_some() {
            return;
        }
        self.ahead.cases[c].1[k].stage = Stage::Queued;
        if first {
            self.ahead.queue.push_front((c, k));
        } else {
            self.ahead.queue.push_back((c, k));
        }
    }

    /// Write more calls ahead when fewer than `REFILL` are unanswered (up to `WINDOW`, in one
    /// write).
    fn fill(&mut self) {
        let a = &mut self.ahead;
        if a.done || a.in_flight.len() >= REFILL || a.queue.is_empty() {
            return;
        }
        let Some(running) = self.running.as_mut() else {
            a.done = true;
            return;
        };
        let mut batch = Vec::new();
        while a.in_flight.len() < WINDOW
            && let Some((c, k)) = a.queue.pop_front()
        {
            self.seq += 1;
            let (case, calls) = &mut a.cases[c];
            calls[k].stage = Stage::Written;
            CallLine { seq: self.seq, section: &a.section, case, request: &calls[k].request }.to_line(&mut batch);
            a.in_flight.push_back((self.seq, c, k));
            self.counts.0 += 1;
        }
        if self.options.trace {
            for line in batch.split_inclusive(|b| *b == b'\n') {
                trace_to(&self.options.log, Arrow::Sent, line);
            }
        }
        // A closed pipe shows when the replies are read; a stuck one (the adapter reads
        // nothing while bqsuite drains what it writes) is the oldest call's trouble.
        if let Err(Unsent::TimedOut) = running.pipe.send(&batch, Instant::now() + self.options.timeout) {
            let (seq, c, k) = a.in_flight[0];
            let op = a.cases[c].1[k].request.operation();
            let trouble = Trouble::TimedOut(self.options.timeout);
            self.as_case(c, |adapter| {
                let error = adapter.lose(Some((seq, op)), trouble);
                adapter.ahead.cases[c].1[k].answer =
                    Some(Answered { result: Err(error), notes: CaseNotes::default(), lost: true });
            });
            self.ahead.done = true;
            self.ahead.in_flight.clear();
        }
    }

    /// Run `f` with the case of call list `c` as the current case (so that trouble is recorded
    /// for the case the call was predicted for), the current case's state put back after.
    fn as_case(&mut self, c: usize, f: impl FnOnce(&mut Self)) {
        let case = std::mem::replace(&mut self.case, self.ahead.cases[c].0.clone());
        let (down, notes) = (self.down.take(), std::mem::take(&mut self.notes));
        f(self);
        self.case = case;
        self.down = down;
        self.notes = notes;
    }

    /// Read the reply to the oldest call in flight; `false` when none is.
    fn receive_one(&mut self) -> bool {
        let Some((seq, c, k)) = self.ahead.in_flight.pop_front() else { return false };
        let op = self.ahead.cases[c].1[k].request.operation();
        self.as_case(c, |adapter| {
            let last_sent = adapter.seq;
            let running = adapter.running.as_mut().expect("calls are in flight to a running process");
            let got = running.recv(Instant::now() + adapter.options.timeout);
            if let Received::Line(l) = &got {
                adapter.trace(Arrow::Received, l);
            }
            let result = adapter.judge_reply(seq, op, got, last_sent);
            let lost = adapter.running.is_none();
            let notes = std::mem::take(&mut adapter.notes);
            adapter.ahead.cases[c].1[k].answer = Some(Answered { result, notes, lost });
        });
        if self.running.is_none() {
            self.ahead.done = true;
            self.ahead.in_flight.clear();
            return true;
        }
        // Answered as the reference did: the case's next call, predicted from that very
        // answer, now tells the adapter nothing it has not said itself. It goes out first,
        // since the case that needs it is probably running.
        let call = &self.ahead.cases[c].1[k];
        let as_predicted = match (&call.answer, &call.reference) {
            (Some(Answered { result: Ok(got), .. }), Some(predicted)) => got == predicted,
            _ => false,
        };
        if self.options.trace
            && !as_predicted
            && let Some(reference) = &call.reference
        {
            let line = serde_json::to_vec(reference).expect("a response always serialises");
            self.differing.entry(self.ahead.cases[c].0.clone()).or_default().push((seq, line));
        }
        if as_predicted {
            self.queue(c, k + 1, true);
        }
        self.fill();
        true
    }

    /// Read every reply still in flight (before a call made one at a time, the next section,
    /// or the shutdown: those replies come first on the stream).
    fn drain(&mut self) {
        while self.receive_one() {}
    }

    /// The answer written ahead for call `k` of case `c`, once it is there (`None`: it is not
    /// to be written ahead, or the adapter was lost first).
    fn answer_ahead(&mut self, c: usize, k: usize) -> Option<Answered> {
        loop {
            let call = &mut self.ahead.cases[c].1[k];
            if call.answer.is_some() {
                return call.answer.take();
            }
            if call.stage == Stage::Held || self.ahead.done {
                return None;
            }
            self.fill();
            if !self.receive_one() {
                return None;
            }
        }
    }

    /// What the adapter said about the current case besides results.
    pub fn case_notes(&mut self) -> CaseNotes {
        std::mem::take(&mut self.notes)
    }

    /// The incidents so far.
    pub fn incidents(&self) -> &[Incident] {
        &self.incidents
    }

    /// Refuse the adapter after its hello for `trouble` (a hello the caller judges, such as a
    /// name a results file cannot carry): its process is stopped and the log says why, as for
    /// a hello this module refuses.
    pub fn refuse(mut self, trouble: Trouble) -> Trouble {
        if let Some(mut r) = self.running.take() {
            let status = kill(&mut r.child);
            self.log_end(&trouble, &status);
        }
        trouble
    }

    /// Say in the log how a process that went wrong ended, once [`kill`] gave its `status`:
    /// one that exited was not stopped (on Linux its group was, whatever it left running).
    fn log_end(&self, trouble: &Trouble, status: &str) {
        match trouble {
            Trouble::Exited(..) => self.log_line(&format!("the adapter {trouble}")),
            _ => self.log_line(&format!("the adapter {trouble}; stopped it ({status})")),
        }
    }

    fn log_line(&self, text: &str) {
        append_line(&self.options.log, &format!("== bqsuite: {}", crate::diag::terminal_safe(text)));
    }

    /// With `trace` on, case `id` of `section` judged `verdict`, in the log.
    fn log_verdict(&self, section: &str, id: &str, verdict: &str) {
        if self.options.trace {
            self.log_line(&format!("{section} {id}: {}", traced(verdict.as_bytes(), 500)));
        }
    }

    /// With `trace` on, one line exchanged with the adapter, in the log ([`trace_to`]).
    fn trace(&self, arrow: Arrow, line: &[u8]) {
        if self.options.trace {
            trace_to(&self.options.log, arrow, line);
        }
    }

    fn open_log(&self) -> Result<File, Trouble> {
        append_no_follow()
            .open(&self.options.log)
            .map_err(|e| Trouble::Spawn(format!("cannot open the adapter log {}: {e}", self.options.log.display())))
    }

    /// Start a process and read its hello.
    fn spawn(&mut self) -> Result<(Running, Hello), Trouble> {
        let running = self.spawn_process()?;
        self.greet(running)
    }

    /// Start a process (its stdout and stdin piped, its stderr to the log).
    fn spawn_process(&mut self) -> Result<Running, Trouble> {
        self.starts += 1;
        self.seq = 0;
        self.process_answered = 0;
        let argv = &self.options.command;
        self.log_line(&format!(
            "start {} of the adapter: {}",
            self.starts,
            shlex::try_join(argv.iter().map(String::as_str)).unwrap_or_default()
        ));
        let log = self.open_log()?;
        #[cfg(unix)]
        children_waitable();
        let mut cmd = Process::new(&argv[0]);
        cmd.args(&argv[1..]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(log);
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = {
            // Registered before anyone could interrupt between the start and the registration.
            let mut registry = running();
            let child = cmd.spawn().map_err(|e| Trouble::Spawn(format!("{}: {e}", argv[0])))?;
            registry.push(child.id());
            child
        };
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            kill(&mut child);
            return Err(Trouble::Io("the child's pipes are missing".into()));
        };
        let pipe = match Pipe::new(stdin, stdout) {
            Ok(p) => p,
            Err(e) => {
                kill(&mut child);
                return Err(Trouble::Io(e.to_string()));
            }
        };
        Ok(Running { child, pipe })
    }

    /// Send the hello to a started process and read its own.
    fn greet(&self, mut running: Running) -> Result<(Running, Hello), Trouble> {
        match self.handshake(&mut running) {
            Ok(hello) => Ok((running, hello)),
            Err(t) => {
                let status = kill(&mut running.child);
                self.log_end(&t, &status);
                Err(t)
            }
        }
    }

    fn handshake(&self, running: &mut Running) -> Result<Hello, Trouble> {
        let hello = Command::Hello {
            protocol: PROTOCOL,
            bqsuite: env!("CARGO_PKG_VERSION").to_owned(),
            conformance_version: self.options.conformance_version.clone(),
        };
        // Starting a runtime (a JVM, a .NET host) is not answering a call: the hello gets the
        // default timeout at least.
        let wait = self.options.timeout.max(DEFAULT_TIMEOUT);
        let deadline = Instant::now() + wait;
        let line = line_of(&hello);
        self.trace(Arrow::Sent, &line);
        let sent = running.pipe.send(&line, deadline);
        let got = match (sent, running.recv(deadline)) {
            (_, Received::Line(l)) => {
                self.trace(Arrow::Received, &l);
                l
            }
            (_, Received::Eof) | (Err(Unsent::Closed), _) => {
                return Err(Trouble::Exited(exited(&mut running.child), "before its hello"));
            }
            (_, Received::TimedOut) => {
                return Err(no_line(wait, running.pipe.unfinished()).unwrap_or(Trouble::NoHello(wait)));
            }
            (_, Received::TooLong) => return Err(Trouble::TooLong),
            (_, Received::Failed(e)) => return Err(Trouble::Io(e)),
        };
        let mut value: Value = serde_json::from_slice(&got).map_err(|e| Trouble::Garbage(not_json(&got, &e)))?;
        integral_numbers(&mut value, &got);
        if value.get("reply").and_then(Value::as_str) != Some("hello") {
            return Err(Trouble::Garbage(format!("expected its hello, got {}", excerpt(&got, 80))));
        }
        match value.get("protocol") {
            Some(v) if v.as_u64() == Some(u64::from(PROTOCOL)) => {}
            Some(v) => return Err(Trouble::Protocol(literal_at(&got, "/protocol").unwrap_or_else(|| v.to_string()))),
            None => return Err(Trouble::BadHello("it has no protocol member".into())),
        }
        let hello = match Reply::deserialize(&value) {
            Ok(Reply::Hello(h)) => h,
            Ok(_) => unreachable!("the reply member was checked"),
            Err(e) => {
                return Err(Trouble::BadHello(match departure(&value) {
                    // As a reply's departure is told (see `what_departs`).
                    Some(d) if d.of_type => shown(d.to_string().chars()),
                    Some(d) => shown(format!("{d} ({e})").chars()),
                    None => e.to_string(),
                }));
            }
        };
        for (member, text) in [("sdk", &hello.sdk), ("version", &hello.version), ("language", &hello.language)] {
            if text.trim().is_empty() {
                return Err(Trouble::BadHello(format!("{member} is empty")));
            }
            // A name, not a document: it is printed in every summary and verdict line.
            if text.chars().count() > MAX_NAME {
                let n = text.chars().count();
                return Err(Trouble::BadHello(format!("{member} is {n} characters long (at most {MAX_NAME})")));
            }
        }
        // The results file's `bindings` come from here, and the results schema allows only the
        // bindings of the contract, each once: refuse the hello rather than write a file that
        // `results check` rejects.
        for (i, b) in hello.bindings.iter().enumerate() {
            if !BINDINGS.contains(&b.as_str()) {
                let known = BINDINGS.join(", ");
                return Err(Trouble::BadHello(format!(
                    "bindings: \"{}\" is not a binding of the contract ({known})",
                    excerpt(b.as_bytes(), 40)
                )));
            }
            if hello.bindings[..i].contains(b) {
                return Err(Trouble::BadHello(format!("bindings: {b:?} is named twice")));
            }
        }
        if self.starts > 1 {
            // Everything the run was planned on: who the SDK is, what it carries and answers, and
            // whether calls may be written ahead to it.
            let (was, now) = (&self.identity, hello.identity());
            let changed: Vec<&str> = [
                ("sdk", was.sdk != now.sdk),
                ("version", was.version != now.version),
                ("language", was.language != now.language),
                ("bindings", was.bindings != now.bindings),
                ("operations", was.operations != now.operations),
                ("pipeline", self.pipeline != hello.pipeline),
            ]
            .into_iter()
            .filter_map(|(member, differs)| differs.then_some(member))
            .collect();
            if !changed.is_empty() {
                return Err(Trouble::Changed(format!("its {} changed", changed.join(", "))));
            }
        }
        Ok(hello)
    }

    /// Record `trouble` for the call `call`, drop the process, and fail the rest of the case.
    fn lose(&mut self, call: Option<(u64, &'static str)>, trouble: Trouble) -> SdkError {
        // A duplicate or misordered reply is about another call than the one awaited.
        if let Some((_, op)) = call
            && !matches!(trouble, Trouble::Duplicate(_) | Trouble::OutOfOrder(_) | Trouble::WrongSeq(_))
        {
            let fresh = self.process_answered == 0;
            let record = self.ops.entry(op).or_insert(OpRecord::Lost { times: 0, on_a_fresh_process: false });
            if let OpRecord::Lost { times, on_a_fresh_process } = record {
                *times += 1;
                *on_a_fresh_process |= fresh;
            }
        }
        if let Some(mut r) = self.running.take() {
            let status = kill(&mut r.child);
            self.log_end(&trouble, &status);
        }
        let message = reason(call, &trouble);
        self.incident(call, trouble, true);
        self.down = Some(EARLIER_IN_THIS_CASE.into());
        SdkError::Transport { message }
    }

    /// A reply that breaks the protocol without putting the stream out of step.
    fn malformed(&mut self, seq: u64, op: &'static str, what: String) -> SdkError {
        self.answered(op);
        let trouble = Trouble::Malformed(what);
        let message = reason(Some((seq, op)), &trouble);
        self.incident(Some((seq, op)), trouble, false);
        SdkError::Transport { message }
    }

    /// Why `op` is not sent any more: never answered, it took the process down
    /// [`RETIRE_AFTER`] times, once at least as a fresh process's first call.
    fn op_retired(&self, op: &str) -> Option<String> {
        let OpRecord::Lost { times: n, on_a_fresh_process: true } = *self.ops.get(op)? else { return None };
        (n >= RETIRE_AFTER).then(|| {
            format!(
                "{op} took the adapter down {n} times and was never answered, so it is not sent again (the other operations go on)"
            )
        })
    }

    /// The running process answered a call of `op` (well-formed, with its `seq`).
    fn answered(&mut self, op: &'static str) {
        self.process_answered += 1;
        self.ops.insert(op, OpRecord::Answered);
    }

    /// A running process, started again if needed and allowed.
    fn ensure_running(&mut self) -> Result<(), SdkError> {
        if self.running.is_some() {
            return Ok(());
        }
        if let Some(why) = self.retired.clone() {
            return Err(self.not_run(why));
        }
        if self.starts > self.options.max_restarts {
            let why = format!(
                "the adapter failed {} times and is not started again (--max-restarts {})",
                self.starts, self.options.max_restarts
            );
            self.down = Some(why.clone());
            return Err(self.not_run(why));
        }
        match self.spawn() {
            Ok((running, _)) => {
                self.running = Some(running);
                Ok(())
            }
            Err(t) => {
                if matches!(t, Trouble::Changed(_)) {
                    self.retired = Some(format!("the adapter {t}, so it is not started again"));
                }
                Err(self.lose(None, t))
            }
        }
    }

    /// A call not sent, and why; noted for the case ([`CaseNotes::not_run`]) unless the adapter
    /// failed earlier in the same case.
    fn not_run(&mut self, why: String) -> SdkError {
        if why != EARLIER_IN_THIS_CASE && self.notes.not_run.is_none() {
            self.notes.not_run = Some(why.clone());
        }
        SdkError::Transport { message: format!("{NOT_RUN}{why}") }
    }

    /// Is the restart budget used up?
    pub fn gave_up(&self) -> bool {
        self.running.is_none() && self.starts > self.options.max_restarts
    }

    /// Send the shutdown, wait for the exit (killing it after the timeout), and sum up.
    pub fn finish(mut self) -> Summary {
        // Replies still in flight come first (answers to calls written ahead in vain); nothing
        // more is written ahead.
        self.ahead.done = true;
        self.drain();
        // What happens now belongs to no case.
        self.section.clear();
        self.case.clear();
        // Judged before the shutdown takes the process: a budget of 0 restarts is not used up
        // by an adapter that ran to the end.
        let gave_up = self.gave_up();
        if let Some(mut r) = self.running.take() {
            let deadline = Instant::now() + self.options.timeout;
            let line = line_of(&Command::Shutdown);
            self.trace(Arrow::Sent, &line);
            let _ = r.pipe.send(&line, deadline);
            r.pipe.close_input();
            // Anything it still writes is unsolicited: a duplicate of the last reply, or noise.
            let mut extra = None;
            let trouble = loop {
                match r.recv(deadline) {
                    // A line is there whenever one is asked for, so an adapter that writes
                    // without end must be stopped by the clock here, not by a wait.
                    Received::Line(_) if Instant::now() >= deadline => break Some(Trouble::Lingered),
                    Received::Line(l) => {
                        extra.get_or_insert(l);
                    }
                    // Closed its stdout, or seen exiting while a helper it started holds it.
                    Received::Eof => break after_shutdown(&mut r.child, deadline),
                    Received::TimedOut | Received::TooLong | Received::Failed(_) => break Some(Trouble::Lingered),
                }
            };
            let wrote_after = extra.is_some();
            if let Some(line) = extra {
                let trouble = self.unsolicited_trouble(&line);
                self.incident(None, trouble, false);
            }
            match trouble {
                Some(trouble) => {
                    let status = kill(&mut r.child);
                    self.log_end(&trouble, &status);
                    self.incident(None, trouble, true);
                }
                // Exited in time, but not cleanly if it wrote after the shutdown (the summary
                // has the line).
                None if wrote_after => self.log_line("the adapter exited after the shutdown, having written after it"),
                None => self.log_line("the adapter exited cleanly after the shutdown"),
            }
        }
        let unknown_operations =
            self.identity.operations.iter().filter(|o| !OPERATIONS.contains(&o.as_str())).cloned().collect();
        let mut retired_operations: Vec<String> =
            self.ops.keys().filter(|op| self.op_retired(op).is_some()).map(|op| (*op).to_owned()).collect();
        retired_operations.sort();
        Summary {
            unknown_operations,
            retired_operations,
            starts: self.starts,
            incidents: std::mem::take(&mut self.incidents),
            gave_up,
            retired: self.retired.is_some(),
            log: self.options.log.clone(),
            ahead: self.pipeline.then_some((self.counts.0, self.counts.1)),
            one_by_one: self.counts.2,
        }
    }

    /// Record an incident of the current case.
    fn incident(&mut self, call: Option<(u64, &'static str)>, trouble: Trouble, lost: bool) {
        let (section, case) = (self.section.clone(), self.case.clone());
        self.incidents.push(Incident { section, case, call, trouble, lost });
    }

    /// What an unsolicited line is: a second answer to a `seq` already answered, or noise.
    fn unsolicited_trouble(&self, line: &[u8]) -> Trouble {
        let seq = serde_json::from_slice::<Value>(line).ok().and_then(|mut v| {
            integral_numbers(&mut v, line);
            v.get("seq").and_then(Value::as_u64)
        });
        match seq {
            Some(s) if (1..=self.seq).contains(&s) => Trouble::Duplicate(s),
            _ => Trouble::Garbage(format!("unasked for: {}", excerpt(line, 80))),
        }
    }

    fn exchange(&mut self, request: &Request) -> Result<Response, SdkError> {
        let op = request.operation();
        self.ensure_running()?;
        let running = self.running.as_mut().expect("ensure_running");
        if let Some(line) = running.pipe.unsolicited() {
            let trouble = self.unsolicited_trouble(&line);
            return Err(self.lose(Some((self.seq + 1, op)), trouble));
        }
        self.seq += 1;
        self.counts.2 += 1;
        let seq = self.seq;
        let mut line = Vec::new();
        CallLine { seq, section: &self.section, case: &self.case, request }.to_line(&mut line);
        self.trace(Arrow::Sent, &line);
        let deadline = Instant::now() + self.options.timeout;
        let running = self.running.as_mut().expect("ensure_running");
        let got = match running.pipe.send(&line, deadline) {
            Err(Unsent::Closed) => Received::Eof,
            _ => running.recv(deadline),
        };
        if let Received::Line(l) = &got {
            self.trace(Arrow::Received, l);
        }
        self.judge_reply(seq, op, got, seq)
    }

    /// Judge what came back for call `seq` (operation `op`; `last_sent` is the latest `seq`
    /// written): its result, or why there is none (the process is dropped when the stream is
    /// out of step).
    fn judge_reply(&mut self, seq: u64, op: &'static str, got: Received, last_sent: u64) -> Result<Response, SdkError> {
        let got = match got {
            Received::Line(l) => l,
            Received::Eof => {
                let running = self.running.as_mut().expect("a reply is awaited from a running process");
                let status = exited(&mut running.child);
                return Err(self.lose(Some((seq, op)), Trouble::Exited(status, "before answering")));
            }
            Received::TimedOut => {
                let timeout = self.options.timeout;
                let unfinished = self.running.as_ref().map_or(&[][..], |r| r.pipe.unfinished());
                let t = no_line(timeout, unfinished).unwrap_or(Trouble::TimedOut(timeout));
                return Err(self.lose(Some((seq, op)), t));
            }
            Received::TooLong => return Err(self.lose(Some((seq, op)), Trouble::TooLong)),
            Received::Failed(e) => return Err(self.lose(Some((seq, op)), Trouble::Io(e))),
        };
        // The common case, a well-formed reply with this very call's `seq`, parsed straight
        // into its types (a result of another operation is told by `reply_result`); anything
        // else is taken apart below to say exactly what is wrong with it.
        if let Some(reply) = quick_reply(&got)
            && reply.seq() == Some(seq)
        {
            return self.reply_result(op, reply);
        }
        let value: Value = match serde_json::from_slice(&got) {
            Ok(mut v) => {
                integral_numbers(&mut v, &got);
                v
            }
            Err(e) => {
                let t = Trouble::Garbage(not_json(&got, &e));
                return Err(self.lose(Some((seq, op)), t));
            }
        };
        match value.get("seq").and_then(Value::as_u64) {
            Some(s) if s == seq => {}
            // bqsuite counts from 1: a seq 0 was never sent (it is no earlier call either).
            Some(0) => return Err(self.lose(Some((seq, op)), Trouble::WrongSeq(0))),
            Some(s) if s < seq => return Err(self.lose(Some((seq, op)), Trouble::Duplicate(s))),
            Some(s) if s <= last_sent => return Err(self.lose(Some((seq, op)), Trouble::OutOfOrder(s))),
            Some(s) => return Err(self.lose(Some((seq, op)), Trouble::WrongSeq(s))),
            None => {
                let what = match value.get("seq") {
                    None => "no seq".to_owned(),
                    Some(s) => {
                        let written =
                            literal_at(&got, "/seq").unwrap_or_else(|| s.to_string().chars().take(40).collect());
                        format!("seq {written} is not a positive integer")
                    }
                };
                let t = Trouble::Garbage(format!("{what}: {}", excerpt(&got, 80)));
                return Err(self.lose(Some((seq, op)), t));
            }
        }
        // A result names its operation: say so when it is another one, before its shape is
        // judged against the wrong operation's.
        if value.get("reply").and_then(Value::as_str) == Some("result")
            && let Some(other) = value.pointer("/response/op").and_then(Value::as_str)
            && other != op
        {
            return Err(self.malformed(seq, op, another_operation(&excerpt(other.as_bytes(), 40), op)));
        }
        match Reply::deserialize(&value) {
            Ok(reply) => self.reply_result(op, reply),
            Err(e) => Err(self.malformed(seq, op, what_departs(&value, &e, &got))),
        }
    }

    /// What a reply with the right `seq` to an `op` call gives.
    fn reply_result(&mut self, op: &'static str, reply: Reply) -> Result<Response, SdkError> {
        self.answered(op);
        let seq = reply.seq().unwrap_or_default();
        match reply {
            Reply::Result { response, .. } if response.operation() == op => Ok(response),
            Reply::Result { response, .. } => Err(self.malformed(seq, op, another_operation(response.operation(), op))),
            Reply::Error { message, .. } => Err(SdkError::Sdk { message }),
            Reply::NotImplemented { .. } => {
                self.notes.not_implemented.push((op, true));
                Err(SdkError::NotImplemented { operation: op.to_owned() })
            }
            Reply::Skip { reason, .. } => {
                let message = format!("the adapter skipped {op}: {reason}");
                self.notes.skips.push((op, reason));
                Err(SdkError::Sdk { message })
            }
            Reply::Hello(_) => Err(self.malformed(seq, op, "a hello in answer to a call".into())),
        }
    }
}

/// The calls of a case that may be written ahead: up to the first that touches a broker.
fn ahead_of_time(calls: Vec<(Request, Option<Response>)>) -> Vec<Ahead> {
    calls
        .into_iter()
        .take_while(|(r, _)| !r.touches_broker())
        .map(|(request, reference)| Ahead { request, reference, stage: Stage::Held, answer: None })
        .collect()
}

/// What is wrong with a reply serde could not read (`e`): where it departs from the protocol
/// and what the protocol wants there ([`departure`]), serde's message beside it unless the
/// departure is one of JSON type (then serde's message would only repeat the value); when the walk
/// cannot tell, serde's message and the result (what is wrong is almost always in it; the
/// line's first characters are the envelope of the reply).
fn what_departs(value: &Value, e: &serde_json::Error, line: &[u8]) -> String {
    if let Some(mut d) = departure(value) {
        // A value of the wrong JSON type is told by its type alone: serde's message would show
        // the value again (`invalid type: integer `1000`, expected a sequence`), and one fault
        // would read as many as the values it met.
        if d.of_type {
            return shown(d.to_string().chars());
        }
        // A number as the adapter wrote it, not as serde_json read it (`5.0000000000000001`
        // read 5.0, and told "is 5.0" as if the adapter had written that).
        if value.pointer(&d.pointer).is_some_and(Value::is_number)
            && let Some(lit) = literal_at(line, &d.pointer)
        {
            d.found = lit;
        }
        return shown(format!("{d} ({e})").chars());
    }
    let shown = match value.pointer("/response/result") {
        Some(result) => format!("its result: {}", excerpt(result.to_string().as_bytes(), 200)),
        None => excerpt(line, 120),
    };
    format!("{e}; {shown}")
}

/// A wait that ended with bytes written but no line end: not an adapter that said nothing, but
/// one that left out a line feed (or did not flush one).
fn no_line(waited: Duration, unfinished: &[u8]) -> Option<Trouble> {
    (!unfinished.is_empty()).then(|| Trouble::NoLineEnd(waited, unfinished.len(), excerpt(unfinished, 60)))
}

/// The literal of the number at `pointer` of the adapter's line, as written (at most 40
/// characters).
fn literal_at(line: &[u8], pointer: &str) -> Option<String> {
    let numbers = crate::suite::exact::Numbers::of(line)?;
    numbers.get(pointer).map(|(_, lit)| lit.chars().take(40).collect())
}

/// What a result of operation `other` to an `op` call is told.
fn another_operation(other: &str, op: &str) -> String {
    format!("a result of {other} to the {op} call (response.op must be {op})")
}

/// The failure reason of a call that `trouble` hit.
fn reason(call: Option<(u64, &'static str)>, trouble: &Trouble) -> String {
    match call {
        Some((seq, op)) => format!("{INCIDENT}call {seq} ({op}): the adapter {trouble}"),
        None => format!("{INCIDENT}the adapter {trouble}"),
    }
}

fn line_of(command: &Command) -> Vec<u8> {
    let mut line = serde_json::to_vec(command).expect("a command always serialises");
    line.push(b'\n');
    line
}

impl Sdk for Adapter {
    fn hello(&self) -> Identity {
        self.identity.clone()
    }

    fn call(&mut self, request: &Request) -> Result<Response, SdkError> {
        let op = request.operation();
        if !self.identity.operations.iter().any(|o| o == op) {
            self.notes.not_implemented.push((op, false));
            return Err(SdkError::NotImplemented { operation: op.to_owned() });
        }
        if let Some(why) = self.op_retired(op) {
            return Err(self.not_run(why));
        }
        if let Some(why) = self.down.clone() {
            return Err(self.not_run(why));
        }
        if let Some((c, k)) = self.current {
            let predicted = self.ahead.cases[c].1.get(k).is_some_and(|a| a.request == *request);
            // A case that asks something else than predicted makes every further call when
            // it comes; what is left of its calls was written ahead in vain.
            self.current = predicted.then_some((c, k + 1));
            if predicted && let Some(answered) = self.answer_ahead(c, k) {
                self.counts.1 += 1;
                self.answered_ahead = true;
                let CaseNotes { not_implemented, skips, .. } = answered.notes;
                self.notes.not_implemented.extend(not_implemented);
                self.notes.skips.extend(skips);
                self.notes.exchanged = true;
                if answered.lost {
                    self.down = Some(EARLIER_IN_THIS_CASE.into());
                }
                return answered.result;
            }
        }
        self.drain();
        self.notes.exchanged = true;
        let before = self.seq;
        let answer = self.exchange(request);
        if self.options.trace && self.seq > before {
            self.made.push((self.seq, request.clone(), answer.as_ref().ok().cloned()));
        }
        answer
    }
}

/// A call or an answer, as JSON, without what each side of a comparison with the reference
/// core names on its own: every member `prefix` (a Redis case's key prefix, `bqsuite:<uuid>:`,
/// one per run of the case), `reservation` (the SDK's name for a reservation, which later calls
/// pass back) and `token` (a reservation's random deadline token) is made null.
fn own_names_blanked(mut v: Value) -> Value {
    fn blank(v: &mut Value) {
        match v {
            Value::Object(o) => {
                for (k, x) in o.iter_mut() {
                    match k.as_str() {
                        "prefix" | "reservation" | "token" => *x = Value::Null,
                        _ => blank(x),
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(blank),
            _ => {}
        }
    }
    blank(&mut v);
    v
}

impl Drop for Adapter {
    fn drop(&mut self) {
        if let Some(mut r) = self.running.take() {
            kill(&mut r.child);
        }
    }
}

/// Options that append to the adapter log, creating it, and never through a symlink
/// ([`crate::fsutil::no_follow`]): the log lies beside the results file, where a planted link
/// must not redirect the adapter's stderr.
/// Whether the file at `path` ends with something other than a line feed.
/// Which way a traced line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arrow {
    /// bqsuite wrote it to the adapter's stdin.
    Sent,
    /// The adapter wrote it to its stdout.
    Received,
    /// The reference core's answer to call `seq` of a failed case, where the adapter's differs
    /// (known for calls written ahead: they were predicted with it).
    Reference(u64),
}

/// How much of one traced line the log holds.
const TRACED_CHARS: usize = 4096;

/// Append one traced line to the log at `path`: `→ ` what bqsuite wrote, `← ` what the adapter
/// wrote, `≠ reference, call N: ` the reference core's differing answer. Each on a line of its own, the
/// adapter's text terminal-safe (the log is read in terminals and CI logs) and cut to
/// [`TRACED_CHARS`] characters with the line's length beside it ([`traced`]: a hidden character,
/// such as a no-break space, written `\u{XXXX}`).
fn trace_to(path: &std::path::Path, arrow: Arrow, line: &[u8]) {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = &*without_credentials(line);
    let mut text = traced(line, TRACED_CHARS);
    if String::from_utf8_lossy(line).chars().count() > TRACED_CHARS {
        text.push_str(&format!(" ({} bytes)", line.len()));
    }
    let mark = match arrow {
        Arrow::Sent => "→ ".to_owned(),
        Arrow::Received => "← ".to_owned(),
        Arrow::Reference(seq) => format!("≠ reference, call {seq}: "),
    };
    append_line(path, &format!("{mark}{text}"));
    for (at, bytes) in bytes_as_text(line) {
        append_line(path, &format!("  {at} as text: {}", traced(bytes.as_bytes(), TRACED_CHARS)));
    }
}

/// The names of the members the protocol's schema types as `Bytes` (base64), read once from the
/// schema the serde types generate (today `body`, `payload`, `value`, `BinaryValue` and some
/// operations' `result`), so the trace follows the protocol as it changes.
fn bytes_members() -> &'static std::collections::BTreeSet<String> {
    fn is_bytes(v: &Value) -> bool {
        v.get("$ref").and_then(Value::as_str) == Some("#/$defs/Bytes")
            || ["anyOf", "oneOf"]
                .iter()
                .any(|k| v.get(k).and_then(Value::as_array).is_some_and(|a| a.iter().any(is_bytes)))
    }
    fn gather(v: &Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            Value::Object(o) => {
                if let Some(Value::Object(props)) = o.get("properties") {
                    out.extend(props.iter().filter(|(_, p)| is_bytes(p)).map(|(k, _)| k.clone()));
                }
                o.values().for_each(|x| gather(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| gather(x, out)),
            _ => {}
        }
    }
    static NAMES: std::sync::OnceLock<std::collections::BTreeSet<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let mut out = std::collections::BTreeSet::new();
        gather(&super::protocol::schema().to_value(), &mut out);
        out
    })
}

/// The members of a traced line that carry bytes as base64 ([`bytes_members`]), each with its
/// pointer and its bytes as text, when they decode and are UTF-8: base64 is unreadable in a log
/// (the Go adapter's author decoded poison records by hand, stop 49). Only a line that parses.
fn bytes_as_text(line: &[u8]) -> Vec<(String, String)> {
    fn walk(v: &Value, at: &mut String, out: &mut Vec<(String, String)>) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    let len = at.len();
                    crate::suite::pointer::push(at, k);
                    match x {
                        Value::String(s) if bytes_members().contains(k) && !s.is_empty() => {
                            let bytes = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, s);
                            if let Some(text) = bytes.ok().and_then(|b| String::from_utf8(b).ok()) {
                                out.push((at.clone(), text));
                            }
                        }
                        x => walk(x, at, out),
                    }
                    at.truncate(len);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    let len = at.len();
                    crate::suite::pointer::push_index(at, i);
                    walk(x, at, out);
                    at.truncate(len);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Ok(v) = serde_json::from_slice::<Value>(line) {
        walk(&v, &mut String::new(), &mut out);
    }
    out
}

/// `line` with every `url` member (a Redis target's) shown without its credentials: the trace
/// is a log, and a log never shows the Redis password (red team H2 found it in clear in every
/// traced Redis call). The line is parsed only when it may hold one; anything else is traced
/// byte for byte.
fn without_credentials(line: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    fn walk(v: &mut Value, changed: &mut bool) {
        match v {
            Value::Object(o) => {
                for (k, x) in o.iter_mut() {
                    match x {
                        Value::String(url) if k == "url" => {
                            let shown = crate::diag::redact_url(url);
                            if shown != *url {
                                *url = shown;
                                *changed = true;
                            }
                        }
                        x => walk(x, changed),
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| walk(x, changed)),
            _ => {}
        }
    }
    if !line.windows(5).any(|w| w == b"\"url\"") {
        return std::borrow::Cow::Borrowed(line);
    }
    let Ok(mut v) = serde_json::from_slice::<Value>(line) else { return std::borrow::Cow::Borrowed(line) };
    let mut changed = false;
    walk(&mut v, &mut changed);
    match serde_json::to_vec(&v) {
        Ok(text) if changed => std::borrow::Cow::Owned(text),
        _ => std::borrow::Cow::Borrowed(line),
    }
}

/// Append `line` to the log at `path` on a line of its own, whatever the adapter left unfinished
/// before it (its text there, a bidi override say, would otherwise run into bqsuite's).
fn append_line(path: &std::path::Path, line: &str) {
    if let Ok(mut f) = append_no_follow().open(path) {
        let unfinished = ends_unfinished(path);
        let _ = writeln!(f, "{}{line}", if unfinished { "\n" } else { "" });
    }
}

fn ends_unfinished(path: &std::path::Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = File::open(path) else { return false };
    let mut last = [0u8];
    f.seek(SeekFrom::End(-1)).is_ok() && f.read_exact(&mut last).is_ok() && last[0] != b'\n'
}

fn append_no_follow() -> OpenOptions {
    let mut options = OpenOptions::new();
    crate::fsutil::no_follow(options.create(true).append(true));
    options
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdk::ops::{Accepts, RedisQueueOp};

    #[test]
    fn the_bytes_members_come_from_the_schema() {
        let names: Vec<&str> = bytes_members().iter().map(String::as_str).collect();
        assert_eq!(names, ["BinaryValue", "body", "payload", "result", "value"]);
    }

    #[test]
    fn a_traced_line_shows_no_credentials_and_is_otherwise_unchanged() {
        let call = br#"{"cmd":"call","seq":3,"request":{"op":"redis_push","target":{"url":"redis://:s3cretPW@127.0.0.1:6402","prefix":"p:"},"body":"e30="}}"#;
        let shown = without_credentials(call);
        assert_eq!(
            std::str::from_utf8(&shown).unwrap(),
            r#"{"cmd":"call","seq":3,"request":{"op":"redis_push","target":{"url":"redis://:***@127.0.0.1:6402","prefix":"p:"},"body":"e30="}}"#
        );
        let plain =
            br#"{"cmd":"call","seq":4,"request":{"op":"redis_push","target":{"url":"redis://127.0.0.1:6402"}}}"#;
        assert!(matches!(without_credentials(plain), std::borrow::Cow::Borrowed(_)), "nothing to hide");
        let other =
            br#"{"reply":"result","seq":1,"response":{"op":"make","result":{"data":{"link":"https://u:p@h/"}}}}"#;
        assert_eq!(&*without_credentials(other), &other[..], "only url members are touched");
    }
    use crate::sdk::wire::{Bytes, RedisLayout, RedisTarget};

    fn departs(line: &str) -> String {
        let value: Value = serde_json::from_str(line).unwrap();
        let e = Reply::deserialize(&value).expect_err("a reply that does not follow the protocol");
        what_departs(&value, &e, line.as_bytes())
    }

    #[test]
    fn a_departure_is_told_at_its_member_with_serdes_message_beside_it() {
        let line = r#"{"reply":"result","seq":4,"response":{"op":"redis_reserve","result":{"reservation":"r","body":"e30=","poison":"no"}}}"#;
        // A value of the wrong type: told by its type alone, so every value reads the same.
        assert_eq!(departs(line), "/response/result/poison is a string, where the protocol wants a boolean");
        assert_eq!(departs(&line.replace(r#""no""#, "0")), departs(&line.replace(r#""no""#, "1")));
        assert_eq!(departs(&line.replace(r#""no""#, r#""yes""#)), departs(line));
        // A value of the right type that is still refused (a tag): shown, with serde's message.
        let line = r#"{"reply":"result","seq":4,"response":{"op":"decode","result":{"kind":"decodd"}}}"#;
        let told = departs(line);
        assert!(told.starts_with("/response/result/kind is \"decodd\", where the protocol wants one of"), "{told}");
        assert!(told.contains(" ("), "serde's message beside it: {told}");
    }

    /// A traced line is one line of the log whatever the adapter wrote: what a terminal acts on
    /// escaped, cut with its length beside it, and on a line of its own after an unfinished
    /// line of the adapter's stderr.
    #[test]
    fn a_traced_line_is_terminal_safe_cut_and_on_a_line_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("adapter.log");
        std::fs::write(&log, "half a line").unwrap();
        trace_to(&log, Arrow::Received, "{\"reply\":\"\u{202e}\u{1b}[31m\"}\n".as_bytes());
        let long = format!("{{\"x\":\"{}\"}}", "a".repeat(TRACED_CHARS + 10));
        trace_to(&log, Arrow::Sent, long.as_bytes());
        let text = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[0], "half a line");
        assert_eq!(lines[1], "← {\"reply\":\"\\u202e\\u001b[31m\"}");
        let cut = format!("→ {}… ({} bytes)", &long[..TRACED_CHARS], long.len());
        assert_eq!(lines[2], cut);
    }

    #[test]
    fn incidents_alike_are_listed_once_with_where_else_they_happened() {
        let incident = |case: &str, seq: u64, op: &'static str, what: &str| Incident {
            section: "cases".into(),
            case: case.into(),
            call: Some((seq, op)),
            trouble: Trouble::Malformed(what.into()),
            lost: false,
        };
        let mut incidents: Vec<Incident> = (1..=6).map(|n| incident(&format!("c{n}"), n, "decode", "x")).collect();
        // Another operation, or another trouble, is another entry.
        incidents.insert(2, incident("c9", 9, "accepts", "x"));
        incidents.push(incident("c10", 10, "decode", "y"));
        let summary = Summary {
            starts: 1,
            incidents,
            gave_up: false,
            retired: false,
            retired_operations: Vec::new(),
            unknown_operations: Vec::new(),
            log: PathBuf::from("a.log"),
            ahead: None,
            one_by_one: 0,
        };
        let text = summary.to_string();
        let lines: Vec<&str> = text.lines().collect();
        let kept = "the adapter answered with a reply that does not follow the protocol (kept running)";
        assert_eq!(
            lines,
            [
                "adapter: 8 incident(s), 0 restart(s); its stderr is in a.log",
                &format!("  cases c1: call 1 (decode): {kept}: x"),
                "    and 5 more alike: cases c2 (call 2), cases c3 (call 3), cases c4 (call 4), …",
                &format!("  cases c9: call 9 (accepts): {kept}: x"),
                &format!("  cases c10: call 10 (decode): {kept}: y"),
            ]
        );
    }

    /// A list of the summary that would stop to say "and 1 more" (or "…" for one place) names
    /// that one instead: five alike name all four others, 21 entries list all 21, eleven
    /// unknown operations name all eleven.
    #[test]
    fn the_summary_names_the_one_it_would_count() {
        let incident = |case: String, seq: u64, what: String| Incident {
            section: "cases".into(),
            case,
            call: Some((seq, "decode")),
            trouble: Trouble::Malformed(what),
            lost: false,
        };
        let summary = |incidents: Vec<Incident>, unknown_operations: Vec<String>| {
            Summary {
                starts: 1,
                incidents,
                gave_up: false,
                retired: false,
                retired_operations: Vec::new(),
                unknown_operations,
                log: PathBuf::from("a.log"),
                ahead: None,
                one_by_one: 0,
            }
            .to_string()
        };
        let alike: Vec<Incident> = (1..=5).map(|n| incident(format!("c{n}"), n, "x".into())).collect();
        let text = summary(alike, Vec::new());
        assert!(
            text.contains(
                "    and 4 more alike: cases c2 (call 2), cases c3 (call 3), cases c4 (call 4), cases c5 (call 5)\n"
            ),
            "{text}"
        );
        assert!(!text.contains('…'), "{text}");
        let each: Vec<Incident> =
            (1..=MAX_LISTED as u64 + 1).map(|n| incident(format!("c{n}"), n, format!("x{n}"))).collect();
        let text = summary(each, Vec::new());
        assert_eq!(text.lines().count(), 1 + MAX_LISTED + 1, "{text}");
        assert!(!text.contains("more"), "{text}");
        let ops: Vec<String> = (1..=11).map(|n| format!("op{n}")).collect();
        let text = summary(Vec::new(), ops);
        assert!(text.contains("\"op10\", \"op11\"]"), "{text}");
        assert!(!text.contains("more"), "{text}");
    }

    /// A base64 body that is not standard padded base64 is told where, as serde refuses it, and
    /// by its kind: every case's body differs, and one encoder's bug reads as one reason.
    #[test]
    fn a_body_that_is_not_base64_is_told_where() {
        let line = r#"{"reply":"result","seq":4,"response":{"op":"redis_reserve","result":{"reservation":"r","body":"e30!","poison":false}}}"#;
        let why = departs(line);
        assert!(
            why.starts_with("/response/result/body is a string that is not standard padded base64 (raw text, no padding, or the URL-safe alphabet?), where the protocol wants standard padded base64"),
            "{why}"
        );
        assert_eq!(departs(&line.replace("e30!", "{\\\"raw\\\": 1}")), why, "another body, the same reason");
    }

    /// What the walk does not judge (a reply too large for its budget) is told by serde's
    /// message and the result, as before the walk.
    #[test]
    fn what_the_walk_cannot_tell_falls_back_to_serdes_message_and_the_result() {
        let mut items: Vec<String> = (0..100_010).map(|i| i.to_string()).collect();
        items.push("\"x\"".into());
        let line =
            format!(r#"{{"reply":"result","seq":4,"response":{{"op":"retry_delay","result":[{}]}}}}"#, items.join(","));
        let why = departs(&line);
        assert!(why.contains("; its result: [0,1,2,"), "{}", &why[..why.len().min(300)]);
        assert!(!why.contains("where the protocol wants"), "{}", &why[..why.len().min(300)]);
    }

    #[test]
    fn only_the_calls_before_the_first_that_touches_a_broker_go_ahead() {
        let accepts = Request::Accepts(Accepts { body: Bytes::from("{}") });
        let target = RedisTarget {
            url: "redis://127.0.0.1:1/".into(),
            prefix: "p".into(),
            queue: "q".into(),
            layout: RedisLayout::Zset,
            retry_after: None,
            now: None,
        };
        let reserve = Request::RedisReserve(RedisQueueOp { target });
        let calls = [accepts.clone(), accepts.clone(), reserve, accepts.clone()];
        let ahead = ahead_of_time(calls.into_iter().map(|r| (r, None)).collect());
        assert_eq!(ahead.iter().map(|a| &a.request).collect::<Vec<_>>(), [&accepts, &accepts]);
        assert!(ahead.iter().all(|a| a.answer.is_none() && a.stage == Stage::Held));
    }

    /// With `--trace`, a failed case is run again by the reference core and paired call by call
    /// from its first: only a case none of whose calls was answered ahead. One that was is never
    /// run again, since what it made one at a time does not start at its first call: the
    /// pairing below would put the reference's answer to the case's first `accepts` beside the
    /// adapter's second, a difference that is not one.
    #[test]
    fn a_case_answered_ahead_is_not_run_again_by_the_reference() {
        let options = AdapterOptions {
            command: vec!["adapter".into()],
            timeout: DEFAULT_TIMEOUT,
            max_restarts: 0,
            log: PathBuf::from("adapter.log"),
            conformance_version: "1.6.0".into(),
            trace: true,
        };
        let mut adapter = Adapter::new(options);
        let accepts = Request::Accepts(Accepts { body: Bytes::from("{}") });
        adapter.begin_case("envelope", "a");
        assert!(adapter.wants_reference(), "nothing answered ahead yet");
        // What `call` records: the case's first call was answered ahead, its second made now.
        adapter.answered_ahead = true;
        adapter.made.push((7, accepts.clone(), Some(Response::Accepts(false))));
        assert!(!adapter.wants_reference());
        adapter.begin_case("envelope", "b");
        assert!(adapter.wants_reference(), "each case starts afresh");
        assert!(adapter.made.is_empty());
        let mut untraced = Adapter::new(AdapterOptions { trace: false, ..adapter.options.clone() });
        untraced.begin_case("envelope", "a");
        assert!(!untraced.wants_reference(), "only a trace compares");

        // And `call` is what records it: case "c"'s first call was answered ahead (its answer
        // is there, so no process is needed), and the case is not run again.
        adapter.identity.operations = vec!["accepts".into()];
        let answered = Answered { result: Ok(Response::Accepts(true)), notes: CaseNotes::default(), lost: false };
        adapter.ahead = AheadState {
            section: "envelope".into(),
            cases: vec![(
                "c".into(),
                vec![Ahead {
                    request: accepts.clone(),
                    reference: Some(Response::Accepts(true)),
                    stage: Stage::Written,
                    answer: Some(answered),
                }],
            )],
            by_id: HashMap::from([("c".into(), 0)]),
            ..AheadState::default()
        };
        adapter.begin_case("envelope", "c");
        assert!(adapter.wants_reference());
        assert!(matches!(adapter.call(&accepts), Ok(Response::Accepts(true))));
        assert!(!adapter.wants_reference(), "answered ahead: compared with its prediction, not run again");
        assert_eq!(adapter.counts.1, 1, "counted as used");
    }
}
