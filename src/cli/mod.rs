//! The command line: clap definitions and the mapping from outcomes to exit codes. Nothing else.
//!
//! Exit codes (documented in `--help` and the README): 0 clean; 1 the command ran and found
//! problems (findings, failing cases, drift, a verification failure); 2 usage error or the
//! command could not run (missing suite, unreadable file, network).

mod adapter;
mod dev;
mod diff;
mod docs;
mod explain;
mod interrupt;
mod report;
mod results;
mod sync;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

mod fetch;
mod release;

use crate::conformance::{self, RunOptions};
use crate::diag::{self, Format, Summary, terminal_safe};
use crate::results::known::KnownFailing;
use crate::sections::{RedisLink, RedisRequired};
use crate::suite::{self, Suite};

/// The exit codes every command shares, for the top-level help.
const EXIT_CODES: &str = "\
Exit codes:
  0  clean: no findings, every case passed, nothing drifted
  1  the command ran and found problems (findings, failing cases, drift, verification failure)
  2  usage error, or the command could not run (no suite, unreadable input, network)
  130, 143  interrupted by SIGINT / SIGTERM (nothing half-written is left behind)
report and completions exit 0 once they have written their output, and diff does too unless --exit-code.";

/// The last line of every command's exit-code help.
macro_rules! exit_help {
    ($zero:literal, $one:literal) => {
        concat!(
            "Exit codes:\n  0  ",
            $zero,
            "\n  1  ",
            $one,
            "\n  2  usage error, or the command could not run (no suite, unreadable input, network)\n  130, 143  interrupted by SIGINT / SIGTERM"
        )
    };
    ($zero:literal) => {
        concat!(
            "Exit codes:\n  0  ",
            $zero,
            "\n  2  usage error, or the command could not run (no suite, unreadable input, network)\n  130, 143  interrupted by SIGINT / SIGTERM"
        )
    };
}
pub(crate) use exit_help;

/// The suite version this binary was built from (`CONFORMANCE_VERSION` of its checkout).
pub const SUITE_VERSION: &str = trimmed(include_str!("../../CONFORMANCE_VERSION"));

/// `s` without trailing ASCII whitespace, at compile time.
const fn trimmed(s: &'static str) -> &'static str {
    let mut bytes = s.as_bytes();
    while let [rest @ .., last] = bytes {
        if !last.is_ascii_whitespace() {
            break;
        }
        bytes = rest;
    }
    match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(_) => panic!("CONFORMANCE_VERSION is not UTF-8"),
    }
}

/// `--version`: the tool's version and the suite version it carries.
fn version() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| format!("{} (suite {SUITE_VERSION})", env!("CARGO_PKG_VERSION")))
}

const DIFF_EXIT_CODES: &str = "\
Exit codes:
  0  compared (whatever changed, unless --exit-code)
  1  with --exit-code: the diff shows at least one change
  2  usage error, or a side could not be loaded (no suite, bad revision, unreadable asset, network)";

const ADAPTER_EXIT_CODES: &str = "\
Exit codes:
  0  served until a shutdown command or the end of input
  2  usage error, or a line on stdin that is not a command of the protocol";

/// The BabelQueue conformance suite's tool: validate the suite, run the reference core, and
/// keep vendored copies honest.
#[derive(Debug, Parser)]
#[command(name = "bqsuite", bin_name = "bqsuite", version = version(), after_help = EXIT_CODES, max_term_width = 100)]
pub struct Cli {
    /// When to colour human output (auto: never when NO_COLOR is set, which wins over
    /// CLICOLOR_FORCE; else only on a terminal).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,
    #[command(subcommand)]
    pub command: Command,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Should output to stdout be coloured? `auto` is anstream's reading of the conventions
    /// (NO_COLOR, then CLICOLOR_FORCE, CLICOLOR, the terminal and TERM).
    pub fn enabled(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never,
        }
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check the suite itself: files, manifest, sections, cases, schemas, compatibility.
    #[command(after_help = exit_help!("no error finding (warnings alone do not fail)", "an error finding"))]
    Validate(ValidateArgs),
    /// List case ids under the suite's one case-id rule.
    #[command(after_help = exit_help!("the ids were listed"))]
    Ids(IdsArgs),
    /// Run the reference core, or an adapter (--sdk), through every in-scope section and write
    /// results.json.
    #[command(after_help = exit_help!(
        "every case passed or was skipped",
        "a case failed (with --sdk, also one an adapter failure hit; an adapter that cannot start is 2)"
    ))]
    Run(RunArgs),
    /// Serve the reference core over the adapter protocol on stdin and stdout.
    ///
    /// The model adapter for `run --sdk` (docs/adapter-protocol.md).
    #[command(after_help = ADAPTER_EXIT_CODES)]
    Adapter(adapter::AdapterArgs),
    /// Check results files of conformance runs against the suite.
    #[command(after_help = exit_help!("every file is Compatible", "a file is Not compatible"))]
    Results(results::ResultsArgs),
    /// The cross-SDK compatibility matrix of results files, as Markdown or HTML.
    #[command(after_help = exit_help!("the report was written, whatever the verdicts (`results check` is the gate)"))]
    Report(report::ReportArgs),
    /// Compare two versions of the suite by case id: each change classified, the SemVer bump
    /// they need.
    #[command(after_help = DIFF_EXIT_CODES)]
    Diff(diff::DiffArgs),
    /// Build the release asset and SHA256SUMS (reproducible; refuses while validate has findings
    /// or the release gate fails).
    #[command(after_help = exit_help!(
        "built (or, with --verify, rebuilt byte for byte)",
        "validate has findings, the release gate fails, the suite cannot be released (e.g. over fetch's caps), or --verify found a difference"
    ))]
    Release(release::ReleaseArgs),
    /// Download a released suite, verify it and unpack it safely, or check a vendored copy.
    #[command(after_help = exit_help!(
        "fetched; --check: the copy is exact; --update: the copy is (now) exact",
        "verification failed (checksum, an unsafe or non-reproducible asset); --check: drift; --update: a downgrade, or a copy with uncommitted changes, refused"
    ))]
    Fetch(fetch::FetchArgs),
    /// Vendor the suite into the sibling SDK repositories, or check the copies (--check).
    #[command(after_help = exit_help!(
        "every present copy is (now) exact",
        "drift, staging leftovers (--check), a refused target, a failed write, a missing repository under --strict"
    ))]
    Sync(sync::SyncArgs),
    /// Explain a finding code (what it checks, why it matters, an example) or a case (the rule
    /// the suite holds an SDK to).
    ///
    /// For a case, offline, from the suite itself (a vendored copy will do): its section's scope
    /// and contract, the block it sits in with its rule, every field (input, expectation or
    /// prose) in full, the rulings and skip rules that apply, and where its docs page is.
    #[command(after_help = concat!(
        "Examples:\n",
        "  bqsuite explain BQ612                               a finding code (or 612, or results-case-failed)\n",
        "  bqsuite explain --list                              every code by family\n",
        "  bqsuite explain cases/duplicate-keys-last-wins      a case: what the contract says about it\n",
        "  bqsuite explain 'cases / duplicate-keys-last-wins'  as a failing case's message names it\n",
        "  bqsuite explain kafka schema_version_gate/3         SECTION ID, as a line of `bqsuite ids`\n",
        "  bqsuite explain trim-make-urn-tab-padded --format json\n",
        "                                                      a bare id one section holds, as data\n\n",
        exit_help!("the explanation or the list was printed")
    ))]
    Explain(explain::ExplainArgs),
    /// Render the suite's contract as pages under docs/ (Markdown and HTML), or check them.
    #[command(after_help = exit_help!(
        "written; --check: every page matches what the suite renders",
        "--check: a page is missing, differs or is stale (run `bqsuite docs` and commit)"
    ))]
    Docs(docs::DocsArgs),
    /// Print a shell completion script.
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Developer tools (benchmarks): not part of the supported interface.
    #[command(hide = true)]
    Dev(dev::DevArgs),
}

/// Where the suite is.
#[derive(Debug, Clone, Args)]
pub struct SuiteArg {
    /// The suite directory (default: the nearest directory upwards holding manifest.json and
    /// CONFORMANCE_VERSION).
    #[arg(long, value_name = "DIR")]
    pub suite: Option<PathBuf>,
}

impl SuiteArg {
    /// Load the suite, or say why not.
    pub fn load(&self) -> Result<Suite, String> {
        Suite::load(self.root()?).map_err(|e| format!("cannot load suite: {e}"))
    }

    /// The suite directory: as given, or the one found upwards.
    pub fn root(&self) -> Result<PathBuf, String> {
        match &self.suite {
            Some(p) => Ok(p.clone()),
            None => default_suite(),
        }
    }
}

fn default_suite() -> Result<PathBuf, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let found = suite::discover(&cwd)
        .ok_or("no suite here: run inside a suite checkout (a directory with manifest.json and CONFORMANCE_VERSION) or pass --suite DIR")?;
    let ups = cwd.components().count() - found.components().count();
    Ok(if ups == 0 { PathBuf::from(".") } else { (0..ups).map(|_| "..").collect() })
}

/// `validate` options.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub suite: SuiteArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Also run the release gate against this previous release, as `release` would (for
    /// pull-request CI): a suite DIR, a release ASSET, a released VERSION or git:REV.
    #[arg(long, value_name = "DIR|ASSET|VERSION|git:REV")]
    pub against: Option<String>,
    /// Also run the release gate against the previous release exactly as `release` picks it
    /// (the highest v* release tag below CONFORMANCE_VERSION in the suite's repository; a release
    /// candidate never counts), for pull-request CI; while there is no such tag the gate is
    /// skipped, and a line says so, but a shallow clone without the tags cannot tell, and stops
    /// (exit 2). With the tag of CONFORMANCE_VERSION itself, the asset's files must also be the
    /// tag's (a released version never changes, BQ956).
    #[arg(long, conflicts_with = "against")]
    pub gate: bool,
    #[command(flatten)]
    pub redis: RedisArgs,
    #[command(flatten)]
    pub remote: diff::RemoteArgs,
}

/// The live Redis of `run`, `validate` and `release`.
#[derive(Debug, Clone, Args)]
pub struct RedisArgs {
    /// A live Redis for the cases that need one (redis_layout's behavioural blocks and
    /// redis.payload_identity): `run` runs them against it; `validate` and `release` also run
    /// them through the reference core, which they otherwise only read and check. A Redis named
    /// here must answer: unreachable, it fails those cases (`run`) or stops the command (exit 2).
    /// Without the flag, BQ_REDIS_URL is used under the runner contract of ADR-0033: unreachable,
    /// the cases are skipped unless BQ_REQUIRE_REDIS is set. A URL that does not parse is a usage
    /// error; a password in it is never shown.
    #[arg(long, value_name = "URL")]
    pub redis_url: Option<String>,
    /// Seconds to wait for the Redis connection, and then for each reply (1 to 3600).
    #[arg(long, value_name = "SECS", default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub redis_timeout: u64,
}

impl RedisArgs {
    /// The Redis given, `--redis-url` first, else `BQ_REDIS_URL` (an empty variable counts as
    /// none), and whether an unreachable one fails the cases that need it: a Redis named on the
    /// command line is asked for, so it must be there; one from `BQ_REDIS_URL`, or none, follows
    /// the runner contract (`BQ_REQUIRE_REDIS`). A usage error for a URL that does not parse or
    /// an empty `--redis-url`.
    pub fn resolve(&self) -> Result<(Option<String>, RedisRequired), String> {
        let env = if require_redis_from_env() { RedisRequired::ByEnv } else { RedisRequired::No };
        let (url, flag) = match self.redis_url.clone() {
            // `--redis-url "$UNSET"` must not quietly become "no Redis" and 92 allowed skips.
            Some(url) if url.trim().is_empty() => {
                return Err("--redis-url: the URL is empty; leave the flag out to run without a Redis".into());
            }
            Some(url) => (url, true),
            None => (std::env::var("BQ_REDIS_URL").unwrap_or_default(), false),
        };
        if url.trim().is_empty() {
            return Ok((None, env));
        }
        let name = if flag { "--redis-url" } else { "BQ_REDIS_URL" };
        crate::sections::redis::link::check_url(&url).map_err(|e| format!("{name}: {e}"))?;
        // BQ_REQUIRE_REDIS names itself when both hold, as it did before the flag counted.
        let required = if flag && env == RedisRequired::No { RedisRequired::ByFlag } else { env };
        Ok((Some(url), required))
    }

    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.redis_timeout)
    }

    /// After `validate` (or `release`'s gate) ran with a required Redis: `Err` when any case
    /// that needs it, or any recorded catch of one, could not run against it (a connection
    /// refused after the first probe, a server that went away): the command was asked to run
    /// them and did not, so it could not run (exit 2), never a clean verdict.
    pub fn covered(&self, command: &str, coverage: crate::validate::RedisCoverage) -> Result<(), String> {
        let (_, required) = self.resolve()?;
        if !required.is_required() || coverage.complete() {
            return Ok(());
        }
        let missed = coverage.cases - coverage.run;
        Err(format!(
            "{command}: {missed} of the {} cases that need a live Redis, and {} recorded catch(es) of them, could not \
             be run through the reference core against the Redis given (it refused or dropped the connection); {}, \
             so {command} did not do what it was asked",
            coverage.cases,
            coverage.pairs_missed,
            required.because()
        ))
    }

    /// What `validate` (or `release`'s validate gate) runs the Redis cases against: the Redis
    /// given, once it answers a PING, else none and why (no URL: `None`). An unreachable Redis
    /// is an error when it is required (`BQ_REQUIRE_REDIS`, or named with `--redis-url`), and
    /// none at all is under `BQ_REQUIRE_REDIS`.
    pub fn for_validate(&self) -> Result<(crate::validate::Options, Option<String>), String> {
        let (Some(url), required) = self.resolve()? else {
            if require_redis_from_env() {
                return Err("BQ_REQUIRE_REDIS is set but no Redis is given (--redis-url or BQ_REDIS_URL), so the \
                            cases that need one cannot be run through the reference core"
                    .into());
            }
            return Ok((crate::validate::Options::default(), None));
        };
        // A probe only: the link's own rule for an unreachable Redis (skip or fail) is not used.
        match RedisLink::with_timeout(Some(&url), RedisRequired::No, self.timeout()).reach() {
            Ok(()) => Ok((crate::validate::Options { redis: Some((url, self.timeout())), ..Default::default() }, None)),
            Err(why) if required.is_required() => Err(format!(
                "{why}; {}, so the cases that need Redis must run through the reference core",
                required.because()
            )),
            Err(why) => Ok((crate::validate::Options::default(), Some(why))),
        }
    }
}

/// Say which cases that need a live Redis the reference core did not run, and why (`why`: the
/// Redis given could not be reached; `given`: a Redis answered the probe, so one that ran
/// nothing refused or dropped the later connections); nothing when it ran them all, or there
/// are none.
pub(crate) fn note_redis_coverage(
    command: &str,
    coverage: crate::validate::RedisCoverage,
    why: Option<&str>,
    given: bool,
) -> Option<String> {
    let text = redis_coverage(command, coverage, why, given)?;
    note!("{text}");
    Some(text)
}

/// What [`note_redis_coverage`] says, if anything.
fn redis_coverage(
    command: &str,
    coverage: crate::validate::RedisCoverage,
    why: Option<&str>,
    given: bool,
) -> Option<String> {
    let crate::validate::RedisCoverage { cases, run, pairs_missed } = coverage;
    if coverage.complete() {
        return None;
    }
    let (s, need, were) = if cases == 1 { ("", "needs", "was") } else { ("s", "need", "were") };
    let catches = if pairs_missed > 0 {
        format!(", and {pairs_missed} recorded catch(es) of them were not checked")
    } else {
        String::new()
    };
    if run == 0 {
        let how = match why {
            Some(why) => format!(": {why}"),
            None if given => ": the Redis given answered the first PING, then refused or dropped the connection".into(),
            None => format!(" (--redis-url or BQ_REDIS_URL runs {})", if cases == 1 { "it" } else { "them" }),
        };
        Some(format!(
            "{command}: {cases} case{s} that {need} a live Redis {were} read and checked but not run through the \
             reference core{how}{catches}"
        ))
    } else {
        Some(format!(
            "{command}: {} of the {cases} cases that need a live Redis could not be run through the reference core \
             (the Redis stopped answering){catches}",
            cases - run
        ))
    }
}

/// `ids` output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IdsFormat {
    Human,
    Json,
}

/// `ids` options.
#[derive(Debug, Args)]
pub struct IdsArgs {
    #[command(flatten)]
    pub suite: SuiteArg,
    /// Only this section.
    #[arg(long, value_name = "S")]
    pub section: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = IdsFormat::Human)]
    pub format: IdsFormat,
}

/// `run` options.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub suite: SuiteArg,
    /// Write results.json here (atomically) instead of to stdout (`-`: stdout).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Run only this section (repeatable). The results then cover only these sections, so
    /// `results check` calls them Not compatible (the other in-scope sections are missing,
    /// BQ605): a partial run is for working on a section, not a verdict. A section whose scope
    /// the SDK does not carry (with --sdk: the bindings of its hello) is a usage error, and
    /// nothing is run.
    #[arg(long = "section", value_name = "S")]
    pub sections: Vec<String>,
    /// Run only this case (repeatable): a case id as the results file names it, or a block's
    /// prefix ending in `/` (`sequences/`) for every case of the block, in every section run
    /// (narrow with --section). Like --section, a partial run is not a verdict. A pattern that
    /// selects no case is a usage error, and nothing is run; a run narrowed to cases that all
    /// need Redis, given none, skips them and exits 2, saying so.
    #[arg(long = "case", value_name = "ID")]
    pub cases: Vec<String>,
    #[command(flatten)]
    pub redis: RedisArgs,
    /// Run this adapter instead of the reference core: a command and its arguments, split
    /// like a shell would (quotes, no expansion), that speaks the adapter protocol on its
    /// stdin and stdout (docs/adapter-protocol.md), e.g. "bqsuite adapter" or "python3
    /// adapter.py". Its stderr is appended to --adapter-log.
    #[arg(long, value_name = "CMD")]
    pub sdk: Option<String>,
    /// With --sdk: seconds to wait for each reply of the adapter and for its exit after the
    /// shutdown (its hello: at least 10); decimals allowed.
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = parse_timeout, requires = "sdk")]
    pub timeout: std::time::Duration,
    /// With --sdk: how many times an adapter that failed is started again for the remaining
    /// cases. An operation never answered that took it down three times is not sent again (its
    /// calls fail at once), so one operation that always crashes does not use the budget up.
    #[arg(long, value_name = "N", default_value_t = crate::adapter::process::DEFAULT_MAX_RESTARTS, requires = "sdk")]
    pub max_restarts: u32,
    /// With --sdk: the file the adapter's stderr goes to (default: adapter.log beside --out,
    /// else in the temporary directory); emptied when the run starts.
    #[arg(long, value_name = "FILE", requires = "sdk")]
    pub adapter_log: Option<PathBuf>,
    /// With --sdk: also write every line exchanged with the adapter to its log, in order with
    /// its stderr: `→` what bqsuite sent, `←` what the adapter answered, each case's verdict,
    /// and after a failed case `≠ reference, call N:` the reference core's answers where the
    /// adapter's differ (for calls written ahead, which were predicted with them; for any other
    /// failed case, the reference core runs it again after the adapter, sending the adapter
    /// nothing, on the same Redis under a key prefix of its own when it needs Redis, and compares
    /// while the calls are the same, all but the prefix and a reservation's name and token). For
    /// working on a case (with --case): a full run's log grows by every call.
    #[arg(long, requires = "sdk")]
    pub trace: bool,
    /// Cases expected to fail for now (the format of `results check --known-failing`): the exit
    /// code counts only the failures the list does not name, and a listed case that does not
    /// fail (of those the run runs) fails it too, so the list only shrinks. The results file
    /// and its verdict are unchanged.
    #[arg(long, value_name = "FILE")]
    pub known_failing: Option<PathBuf>,
}

/// A positive number of seconds, at most a day.
fn parse_timeout(text: &str) -> Result<std::time::Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 => Ok(std::time::Duration::from_secs_f64(s)),
        _ => Err("expected a number of seconds above 0 and at most 86400".into()),
    }
}

/// An error that stops a command: exit 2.
fn fail(msg: impl std::fmt::Display) -> ExitCode {
    note!("bqsuite: error: {msg}");
    ExitCode::from(2)
}

fn exit(problems: bool) -> ExitCode {
    if problems { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// Print to stdout through anstream (which also strips any escape a renderer wrote where
/// colour is off), treating a closed pipe as success.
fn emit(text: &str) {
    let choice = if COLOR.load(std::sync::atomic::Ordering::Relaxed) {
        anstream::ColorChoice::Always
    } else {
        anstream::ColorChoice::Never
    };
    let mut out = anstream::AutoStream::new(std::io::stdout().lock(), choice);
    let text = diag::no_legacy_commands(text);
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// The colour decision of this process, made once in [`dispatch`].
static COLOR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `BQ_REQUIRE_REDIS`: set to anything but empty or `0`.
pub fn require_redis_from_env() -> bool {
    std::env::var_os("BQ_REQUIRE_REDIS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Parse the process arguments and run.
pub fn main() -> ExitCode {
    interrupt::install();
    // Every child bqsuite starts (git, an adapter) is waited for; a SIGCHLD ignored by whoever
    // started bqsuite would make the kernel reap them first.
    #[cfg(unix)]
    crate::adapter::process::children_waitable();
    let cli = Cli::parse();
    dispatch(cli)
}

/// Run a parsed command line.
pub fn dispatch(cli: Cli) -> ExitCode {
    let color = cli.color.enabled();
    COLOR.store(color, std::sync::atomic::Ordering::Relaxed);
    match cli.command {
        Command::Validate(a) => validate(&a, color),
        Command::Ids(a) => ids(&a),
        Command::Run(a) => run(&a),
        Command::Adapter(a) => adapter::run(&a),
        Command::Results(a) => results::run(&a, color),
        Command::Report(a) => report::run(&a),
        Command::Diff(a) => diff::run(&a),
        Command::Release(a) => release::run(&a, color),
        Command::Fetch(a) => fetch::run(&a, color),
        Command::Sync(a) => sync::sync(&a, color),
        Command::Explain(a) => explain::run(&a, color),
        Command::Docs(a) => docs::run(&a, color),
        Command::Dev(a) => dev::run(&a),
        Command::Completions { shell } => {
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut visible(Cli::command()), "bqsuite", &mut buf);
            emit(&String::from_utf8_lossy(&buf));
            ExitCode::SUCCESS
        }
    }
}

/// `cmd` without its hidden subcommands (clap_complete lists those too): what completions offer.
fn visible(cmd: clap::Command) -> clap::Command {
    let subcommands: Vec<clap::Command> =
        cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned().map(visible).collect();
    let args: Vec<clap::Arg> = cmd.get_arguments().cloned().collect();
    // clap names are 'static without its `string` feature; completions run once per process.
    let name: &'static str = Box::leak(cmd.get_name().to_owned().into_boxed_str());
    let mut out = clap::Command::new(name).args(args).subcommands(subcommands);
    if let Some(about) = cmd.get_about() {
        out = out.about(about.clone());
    }
    out
}

fn subject(suite: &Suite) -> String {
    // The version is untrusted text: a byte-order mark or a look-alike in it is shown escaped.
    format!("suite {} at {}", diag::token_safe(suite.version().unwrap_or("?")), suite.root.display())
}

fn validate(a: &ValidateArgs, color: bool) -> ExitCode {
    let suite = match a.suite.load() {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let (options, no_redis) = match a.redis.for_validate() {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    let crate::validate::Validation { mut findings, redis } = crate::validate::validate_with(&suite, &options);
    if let Err(e) = a.redis.covered("validate", redis) {
        return fail(e);
    }
    // What this run did not check, said on stderr now and kept for the JSON and GitHub output.
    let mut notes: Vec<String> = Vec::new();
    notes.extend(note_redis_coverage("validate", redis, no_redis.as_deref(), options.redis.is_some()));
    let mut unchecked = |text: String| {
        note!("{text}");
        notes.push(text);
    };
    let mut gate_left: Option<String> = None;
    let previous = match (&a.against, a.gate) {
        (Some(against), _) => Some(diff::Previous::Given(against.clone())),
        (None, true) => Some(diff::Previous::TagIfAny),
        (None, false) => None,
    };
    if let Some(previous) = previous {
        let broken = crate::validate::broken_cases(&suite, &findings);
        match diff::gate_run(&suite, &previous, &a.remote, redis.run == redis.cases, &broken) {
            Ok((gate, compared, left_out)) => {
                findings.extend(gate);
                if left_out > 0 {
                    // Said on stderr with the comparison below; kept for JSON and GitHub too.
                    gate_left = Some(format!(
                        "release gate: {left_out} change(s) of cases that do not validate were left to validate's \
                         findings"
                    ));
                }
                match compared {
                    Ok(compared) => note!("release gate: compared with {compared}"),
                    Err(why) => unchecked(format!("release gate: {why}: nothing to compare with (skipped)")),
                }
            }
            Err(e) => return fail(e),
        }
        match diff::released_run(&suite, &a.remote) {
            Ok(diff::Released::Checked(tag, changed)) => {
                if changed.is_empty() {
                    note!("release gate: the release files are those of {tag}, this version's release");
                }
                findings.extend(changed);
            }
            Ok(diff::Released::Unreleased) => {}
            Ok(diff::Released::Unchecked(why)) => unchecked(format!("release gate: {why}")),
            Err(e) => return fail(e),
        }
        crate::diag::Finding::sort(&mut findings);
    }
    notes.extend(gate_left);
    let mut summary = Summary::new("validate", subject(&suite));
    summary.notes = notes;
    emit(&diag::render(&findings, a.format, color, &summary));
    if a.format == Format::Github {
        write_step_summary(&diag::markdown_summary(&findings, &summary));
    }
    // The process exits next: freeing the loaded suite node by node (a tenth of the run on a
    // large suite) would be wasted work.
    std::mem::forget(suite);
    exit(diag::has_errors(&findings))
}

/// Append to `$GITHUB_STEP_SUMMARY` when it is set.
pub(super) fn write_step_summary(markdown: &str) {
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY") {
        let written = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(Path::new(&path))
            .and_then(|mut f| f.write_all(markdown.as_bytes()));
        if let Err(e) = written {
            note!("bqsuite: warning: cannot write the job summary: {e}");
        }
    }
}

fn ids(a: &IdsArgs) -> ExitCode {
    let suite = match a.suite.load() {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    if let Err(why) = suite.manifest_or_why() {
        return fail(why);
    }
    let sections: Vec<_> =
        suite.sections().into_iter().filter(|s| a.section.as_deref().is_none_or(|n| n == s.name)).collect();
    if let (Some(name), true) = (&a.section, sections.is_empty()) {
        return fail(format!("the manifest has no section {name:?}"));
    }
    let text = match a.format {
        IdsFormat::Human => sections
            .iter()
            .flat_map(|s| {
                s.cases().into_iter().map(move |c| format!("{}\t{}\n", terminal_safe(s.name), terminal_safe(&c.id)))
            })
            .collect::<String>(),
        IdsFormat::Json => {
            let mut m = serde_json::Map::new();
            for s in &sections {
                let ids: Vec<_> = s.cases().into_iter().map(|c| c.id).collect();
                m.insert(s.name.to_owned(), serde_json::json!({"scope": s.scope.map(|x| x.as_str()), "ids": ids}));
            }
            let doc = serde_json::json!({"conformance_version": suite.version(), "sections": m});
            diag::json_text(&doc)
        }
    };
    emit(&text);
    ExitCode::SUCCESS
}

fn run(a: &RunArgs) -> ExitCode {
    // The adapter's process starts first, so that it starts (a runtime loads) while the suite
    // loads; anything wrong with it is reported where it was before, after the suite's checks.
    let early = a.sdk.as_deref().map(|cmd| launch_adapter(a, cmd));
    let suite = match a.suite.load() {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    if let Err(why) = suite.manifest_or_why() {
        return fail(why);
    }
    for name in &a.sections {
        if suite.section(name).is_none() {
            return fail(format!("the manifest has no section {name:?}"));
        }
    }
    // Fail before running every case, not after.
    if let Some(Err(e)) = out_file(&a.out).map(crate::fsutil::check_writable) {
        return fail(e);
    }
    if let Err(e) = crate::results::source_date_epoch() {
        return fail(e);
    }
    let known = match a.known_failing.as_deref().map(KnownFailing::read).transpose() {
        Ok(k) => k,
        Err(e) => return fail(format!("--known-failing: {e}")),
    };
    let (redis_url, require_redis) = match a.redis.resolve() {
        Ok(given) => given,
        Err(e) => return fail(e),
    };
    let options = RunOptions {
        only: a.sections.clone(),
        cases: a.cases.clone(),
        redis_url: redis_url.clone(),
        require_redis,
        redis_timeout: Some(a.redis.timeout()),
    };
    let (
        conformance::Run {
            results,
            invalid,
            not_carried,
            unmatched,
            refused_by_the_run,
            never_sent,
            lacking,
            not_run,
            need_redis,
        },
        adapter,
    ) = match (&a.sdk, early) {
        (Some(cmd), Some(launched)) => match run_adapter(cmd, launched, &suite, &options) {
            Ok((run, summary)) => (run, Some(summary)),
            Err(code) => return code,
        },
        _ => (conformance::run(&suite, &options), None),
    };
    if !not_carried.is_empty() {
        let declared = if results.bindings.is_empty() { "none".to_owned() } else { results.bindings.join(", ") };
        let asked: Vec<String> = not_carried
            .iter()
            .map(|(name, scope)| match scope {
                Some(scope) => format!("{name:?} (scope {scope})"),
                None => format!("{name:?} (no known scope)"),
            })
            .collect();
        return fail(terminal_safe(&format!(
            "--section {}: not in the scope of {}, whose bindings are {declared}; nothing was run (a section is \
             run only for an SDK that carries its scope)",
            asked.join(", "),
            results.sdk
        )));
    }
    if !unmatched.is_empty() {
        let within = if a.sections.is_empty() {
            format!("any section {} runs", results.sdk)
        } else {
            format!("the sections asked for ({})", a.sections.join(", "))
        };
        // A block's name without its `/` is the likeliest slip: say which pattern was meant.
        let shown: Vec<String> = unmatched
            .iter()
            .map(|(p, meant)| match meant {
                Some(block) => format!("{p:?} (the block is {block:?})"),
                None => format!("{p:?}"),
            })
            .collect();
        return fail(terminal_safe(&format!(
            "--case {}: selects no case of {within}; nothing was run (`bqsuite ids` lists the case ids; a block's \
             prefix ends in `/`)",
            shown.join(", ")
        )));
    }
    // Grouped by scope as the docs list them (core, then each binding, then otel), in manifest
    // order within one; the results file keeps the run's order.
    let mut names: Vec<&String> = results.sections.keys().collect();
    names.sort_by_key(|n| {
        let scope = suite.scope_of(n);
        (scope.is_none(), scope)
    });
    for name in names {
        let c = results.counts(Some(name));
        note!("{:<24} {:>4} pass {:>4} fail {:>4} skip", terminal_safe(name), c.pass, c.fail, c.skip);
    }
    let digest = Digest {
        out: out_file(&a.out),
        suite: &suite,
        refused_by_the_run: &refused_by_the_run,
        never_sent: &never_sent,
        not_run: &not_run,
        incidents: adapter.iter().flat_map(|s| &s.incidents).map(|i| (i.section.as_str(), i.case.as_str())).collect(),
    };
    let first_failed = note_failures(&results, &digest);
    // Where to look next, for an adapter: the exchange of one failing case; when every failure
    // is an operation never sent, what the reference core is sent and answers for one of them.
    let word = |w: &str| terminal_safe(&crate::diag::shell_word(w)).into_owned();
    // A case that needs Redis, rerun without one, is skipped and shows nothing: the command
    // names a Redis, as a placeholder (the run's own URL may carry a password). A command the
    // hint extends that named one with the flag has it already.
    let needs_redis = |section: &str, id: &str| need_redis.iter().any(|(s, i)| s == section && i == id);
    let redis_word = |section: &str, id: &str, extends: bool| {
        if needs_redis(section, id) && !(extends && a.redis.redis_url.is_some()) { " --redis-url URL" } else { "" }
    };
    match (&adapter, first_failed, a.trace) {
        (Some(summary), Some((section, id)), false) => note!(
            "to see what one case sent the adapter and got back: add `--section {} --case {} --trace{}` (the exchange goes to {})",
            word(section),
            word(id),
            redis_word(section, id, true),
            terminal_safe(&summary.log.display().to_string())
        ),
        // The reference adapter shows a case that needs an operation the adapter lacks; a case
        // nothing reached for another cause (a Redis that could not be reached) it would not.
        (Some(_), None, _) if let Some((section, id)) = lacking.first() => note!(
            "no failed case was sent to the adapter (an operation its hello lacks, or nothing reached it); to see what an SDK is sent for one that needs an operation it lacks, and what the reference core answers: `{} run{} --sdk {} --section {} --case {}{} --trace --adapter-log reference.log --out -`",
            terminal_safe(&this_binary()),
            terminal_safe(&suite.suite_option()),
            terminal_safe(&crate::diag::shell_word(&format!("{} adapter", this_binary()))),
            word(section),
            word(id),
            redis_word(section, id, false)
        ),
        _ => {}
    }
    // The rule the first failure broke, in words, from the suite itself (a vendored copy
    // carries no docs; `explain` prints what the section's page says of the case).
    if let Some((section, id)) = first_failed {
        note!(
            "what that case holds an SDK to: `{} explain{} {}`",
            terminal_safe(&this_binary()),
            terminal_safe(&suite.suite_option()),
            word(&format!("{section}/{id}"))
        );
    }
    let total = results.counts(None);
    let known_holds =
        known.as_ref().map(|k| note_known(k, &suite, &results, !a.sections.is_empty() || !a.cases.is_empty()));
    // A narrowed run ends without a verdict (its results leave out cases): say so, not nothing.
    let partial = if a.sections.is_empty() && a.cases.is_empty() {
        ""
    } else {
        "; a partial run (--section / --case), so no verdict"
    };
    note!("run: {total} ({}){partial}", subject(&suite));
    if let Some(summary) = adapter {
        note_inline!("{summary}");
        if !summary.incidents.is_empty() {
            note_log_tail(&summary.log);
        }
    }
    let json = results.to_json();
    match out_file(&a.out) {
        Some(path) => {
            if let Err(e) = crate::fsutil::write_atomic(path, json.as_bytes()) {
                return fail(format!("cannot write {}: {e}", path.display()));
            }
        }
        None => emit(&json),
    }
    if a.sections.is_empty() && a.cases.is_empty() && invalid.is_empty() {
        note_verdict(&suite, out_file(&a.out), json.into_bytes());
    }
    // A run narrowed to cases that all need Redis, given none, judged nothing: as a `--case`
    // that selects no case, exit 2, not a pass (user study: `--case X` of a Redis case exited 0
    // with only the general note). A Redis given by BQ_REDIS_URL that did not answer is the
    // runner contract's skip (ADR-0033), said plainly but kept exit 0; a required one failed
    // the cases (exit 1).
    let narrowed = !a.sections.is_empty() || !a.cases.is_empty();
    let all_skipped_for_redis = narrowed
        && total.pass == 0
        && total.fail == 0
        && !need_redis.is_empty()
        && need_redis.len() == results.sections.values().filter_map(|c| c.as_object()).map(|c| c.len()).sum::<usize>();
    let redis_skipped = || {
        format!(
            "every case you selected ({}) needs Redis and was skipped",
            match need_redis.as_slice() {
                [(s, id)] => terminal_safe(&format!("{s} / {id}")).into_owned(),
                all => format!("{} cases", all.len()),
            }
        )
    };
    if all_skipped_for_redis && invalid.is_empty() {
        if redis_url.is_none() {
            return fail(format!(
                "{}, so nothing was judged: pass --redis-url URL or set BQ_REDIS_URL",
                redis_skipped()
            ));
        }
        note!(
            "bqsuite: {}: the Redis of BQ_REDIS_URL did not answer (said above), which the runner contract allows \
             (ADR-0033); set BQ_REQUIRE_REDIS to make that a failure",
            redis_skipped()
        );
    }
    if !invalid.is_empty() {
        // The suite is broken, not the SDK: exit 2 (toml-test's "bug in the test").
        note!(
            "bqsuite: error: {} case(s) of the suite do not read cleanly, so the SDK was not judged on them; run {}:",
            invalid.len(),
            suite.validate_command()
        );
        let listed = crate::diag::shown(invalid.len(), MAX_LISTED);
        for c in &invalid[..listed] {
            note!("  {}/{}: {}", c.section, c.id, c.problems.join("; "));
        }
        if invalid.len() > listed {
            note!("  … and {} more", invalid.len() - listed);
        }
        return ExitCode::from(2);
    }
    exit(known_holds.map_or(total.fail > 0, |holds| !holds))
}

/// What a known-failing list makes of a run's results, on stderr; whether it holds (every
/// failure listed, every entry judged still failing). A narrowed run judges only the entries
/// of the cases it ran.
fn note_known(k: &KnownFailing, suite: &Suite, results: &crate::results::ResultsFile, narrowed: bool) -> bool {
    let on = k.check_run(results, &crate::results::known::suite_cases(suite), narrowed);
    // A narrowed run judges only the entries of the cases it ran: say of how many.
    let of = if narrowed && on.judged.judged != k.entries.len() {
        format!(" of the cases run ({} in the list)", k.entries.len())
    } else {
        String::new()
    };
    let mut line = format!(
        "known failures ({}): {} listed{of}, {} still failing",
        terminal_safe(&k.file),
        on.judged.judged,
        on.judged.still_failing
    );
    if !on.judged.stale.is_empty() {
        line.push_str(&format!(", {} stale", on.judged.stale.len()));
    }
    if let Some((section, id)) = on.unlisted.first() {
        line.push_str(&format!(
            "; {} failure(s) it does not name (the first: {} / {})",
            on.unlisted.len(),
            terminal_safe(section),
            terminal_safe(id)
        ));
    }
    if on.holds() {
        line.push_str("; the list holds");
    }
    note!("{line}");
    let listed = crate::diag::shown(on.judged.stale.len(), MAX_LISTED);
    for (entry, why) in &on.judged.stale[..listed] {
        let f = k.finding(entry, *why, "this run");
        note!("  {}:{}: {}", terminal_safe(&k.file), entry.line, f.message);
    }
    if on.judged.stale.len() > listed {
        note!("  … and {} more", on.judged.stale.len() - listed);
    }
    on.holds()
}

/// What the failure digest of a run refers to besides its results.
struct Digest<'a> {
    /// Where the results file was written (`None`: stdout).
    out: Option<&'a Path>,
    suite: &'a Suite,
    /// Skips the whole run refused ([`conformance::Run::refused_by_the_run`]).
    refused_by_the_run: &'a [(String, String)],
    /// Failed cases no call of which reached the adapter ([`conformance::Run::never_sent`]).
    never_sent: &'a [(String, String)],
    /// Failed cases a call of which was not sent for what happened before them, with why
    /// ([`conformance::Run::not_run`]).
    not_run: &'a [(String, String, String)],
    /// The cases the adapter's incidents hit (a crash, a hang, a reply out of the protocol).
    incidents: Vec<(&'a str, &'a str)>,
}

/// How many reasons the failure digest of a run lists, and how much of each it shows.
const DIGEST_REASONS: usize = 10;
const DIGEST_REASON_CHARS: usize = 200;
const DIGEST_SECTIONS: usize = 4;

/// How many cases of each section `cases` holds, in their order: `trim 16, job_type 10, 2 more
/// sections` (at most [`DIGEST_SECTIONS`] named, unless one more would be all:
/// [`crate::diag::shown`]).
fn per_section<'c>(cases: impl IntoIterator<Item = &'c str>) -> (usize, String) {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for s in cases {
        match counts.last_mut() {
            Some((last, n)) if *last == s => *n += 1,
            _ => counts.push((s, 1)),
        }
    }
    let named = crate::diag::shown(counts.len(), DIGEST_SECTIONS);
    let mut each: Vec<String> = counts[..named].iter().map(|(s, k)| format!("{s} {k}")).collect();
    if counts.len() > named {
        each.push(format!("{} more sections", counts.len() - named));
    }
    (counts.len(), each.join(", "))
}

/// The cases of one reason as the digest names them: the first, and how many more (how many of
/// each section, when they come from several); two are both named, the second by its id alone
/// when it is of the first's section (`cases / a and b`, `cases / a and trim / b`), since "and
/// 1 more" could have named it.
fn cases_named(cases: &[(&str, &str)]) -> String {
    let Some(&(section, id)) = cases.first() else { return String::new() };
    let more = match (cases, per_section(cases.iter().map(|&(s, _)| s))) {
        ([_], _) => String::new(),
        ([_, (s, id)], _) if *s == section => format!(" and {id}"),
        ([_, (s, id)], _) => format!(" and {s} / {id}"),
        (all, (1, _)) => format!(" and {} more", all.len() - 1),
        (all, (_, each)) => format!(" and {} more (all {}: {each})", all.len() - 1, all.len()),
    };
    format!("{section} / {id}{more}")
}

/// The failed cases of a run grouped by reason, so that whoever runs an SDK sees at once what
/// to fix (`accepts is not implemented` for 80 cases) without opening the results file: the
/// reasons of the adapter's incidents first (a crash or a hang costs the cases after it), then
/// the most common; last, folded into one line per cause, the cases the adapter was never sent
/// a call for because of an earlier incident (its restarts used up, an operation retired),
/// which say nothing of their own (user study: 219 such lines came before the one crash that
/// caused them). Every case and its whole reason stay in the file, which `results check` lists.
/// The case the hint reruns, from the first reason listed.
fn note_failures<'r>(results: &'r crate::results::ResultsFile, digest: &Digest<'_>) -> Option<(&'r str, &'r str)> {
    let mut groups = results.failures_by_reason();
    if groups.is_empty() {
        return None;
    }
    let listed = |list: &[(String, String)], s: &str, id: &str| list.iter().any(|(ls, lid)| ls == s && lid == id);
    // The index of the first incident that hit a case (`None`: none did).
    let incident_at = |s: &str, id: &str| digest.incidents.iter().position(|&(is, iid)| is == s && iid == id);
    let incident = |s: &str, id: &str| incident_at(s, id).is_some();
    let not_run = |s: &str, id: &str| {
        digest.not_run.iter().find(|(ns, nid, _)| ns == s && nid == id && !incident(s, id)).map(|(_, _, why)| why)
    };
    // The cases not run, by why, in the file's order; out of their reasons' groups.
    let mut folded: Vec<(&str, Vec<&str>)> = Vec::new();
    for g in &mut groups {
        g.cases.retain(|&(s, id)| match not_run(s, id) {
            Some(why) => {
                match folded.iter_mut().find(|(w, _)| *w == why.as_str()) {
                    Some((_, sections)) => sections.push(s),
                    None => folded.push((why.as_str(), vec![s])),
                }
                false
            }
            None => true,
        });
        // The first case's reason stands for a group of one: it may be another case's now.
        if let Some(&(s, id)) = g.cases.first() {
            g.first = results.sections.get(s).and_then(|c| c.get(id)).and_then(|o| o.get("reason")?.as_str());
        }
    }
    groups.retain(|g| !g.cases.is_empty());
    // The incidents' reasons in the order they happened, then the rest, the most common first
    // (a stable sort keeps that order).
    // (Said only where there is an order to say: more than one reason.)
    let with_incidents = groups.len() > 1 && groups.iter().any(|g| g.cases.iter().any(|&(s, id)| incident(s, id)));
    groups.sort_by_key(|g| g.cases.iter().filter_map(|&(s, id)| incident_at(s, id)).min().unwrap_or(usize::MAX));
    // The case the hint reruns: the first listed that a run narrowed to it fails again (a skip
    // the whole run's other cases refused stands in a narrowed run) and whose trace shows an
    // exchange (a case whose operation was never sent shows none, nor does one not run).
    let first = groups
        .iter()
        .flat_map(|g| g.cases.iter().copied())
        .find(|(s, id)| !listed(digest.refused_by_the_run, s, id) && !listed(digest.never_sent, s, id));
    let failed =
        groups.iter().map(|g| g.cases.len()).sum::<usize>() + folded.iter().map(|(_, c)| c.len()).sum::<usize>();
    let order =
        if with_incidents { "the adapter's incidents first, then the most common" } else { "the most common first" };
    let not_sent: usize = folded.iter().map(|(_, c)| c.len()).sum();
    match not_sent {
        0 => note!("failed: {failed} case(s), {} reason(s), {order}:", groups.len()),
        n => note!(
            "failed: {failed} case(s), {} reason(s), {order}; then {n} not run after the adapter failed:",
            groups.len()
        ),
    }
    let listed = crate::diag::shown(groups.len(), DIGEST_REASONS);
    for g in &groups[..listed] {
        // One case: its reason as written, its call's number and all.
        let reason = match g.cases.len() {
            1 => g.first,
            _ => g.reason.as_deref(),
        };
        let reason = reason.unwrap_or("(no reason given)");
        let shown: String = reason.chars().take(DIGEST_REASON_CHARS).collect();
        let cut = if shown.len() < reason.len() { " …" } else { "" };
        note!("  {:>4}× {}: {}{cut}", g.cases.len(), terminal_safe(&cases_named(&g.cases)), terminal_safe(&shown));
    }
    if groups.len() > listed {
        let file = digest.out.map_or_else(|| "FILE".to_owned(), |p| crate::diag::path_word(&p.display().to_string()));
        note!(
            "  … and {} more reason(s); `bqsuite results check {}{}` lists every case",
            groups.len() - listed,
            terminal_safe(&file),
            terminal_safe(&digest.suite.suite_option())
        );
    }
    for (why, sections) in &folded {
        let (_, each) = per_section(sections.iter().copied());
        note!("  {:>4}× not run ({}): {}", sections.len(), terminal_safe(&each), terminal_safe(why));
    }
    first
}

/// An `--out FILE` that may be `-`, the convention for stdout: the file, or `None` for stdout.
/// The verdict `results check` gives the results file a whole run just wrote, as its last line
/// on stderr, so that an SDK maintainer sees at once what CI will say (a binding its family's
/// exception excludes, say) and not only the counts. When the suite cannot check results, the
/// line says so and why (validate says more): no verdict is never shown as a silent pass.
fn note_verdict(suite: &Suite, out: Option<&Path>, bytes: Vec<u8>) {
    let checker = match crate::results::Checker::new(suite) {
        Ok(checker) => checker,
        Err(why) => {
            note!("results check: not judged: {why}");
            return;
        }
    };
    let file = out.map_or_else(|| "results.json (stdout)".to_owned(), |p| p.display().to_string());
    let check = checker.check(&crate::results::Source { file, bytes });
    note!("results check: {}", crate::results::verdict_line(&check));
}

/// This binary as a suggested command names it: `bqsuite`, or the path it was started by when
/// that holds a `/` (`./target/release/bqsuite`, `/tmp/bin/bqsuite`), which need not be on
/// `PATH`; a shell word either way.
fn this_binary() -> String {
    match std::env::args_os().next().map(|a| a.to_string_lossy().into_owned()) {
        Some(path) if path.contains('/') => crate::diag::path_word(&path),
        _ => "bqsuite".to_owned(),
    }
}

pub(super) fn out_file(out: &Option<PathBuf>) -> Option<&Path> {
    out.as_deref().filter(|p| p.as_os_str() != "-")
}

/// `run --sdk CMD`, first step: split the command, empty the log, start the process (the
/// error, if any, is reported by [`run_adapter`]).
fn launch_adapter(a: &RunArgs, cmd: &str) -> Result<(crate::adapter::Launched, PathBuf), String> {
    let command = crate::adapter::split_command(cmd).map_err(|e| format!("--sdk: {e}"))?;
    let log = match (&a.adapter_log, out_file(&a.out)) {
        (Some(log), _) => log.clone(),
        (None, Some(out)) => out.with_file_name("adapter.log"),
        (None, None) => std::env::temp_dir().join(format!("bqsuite-adapter-{}.log", std::process::id())),
    };
    // The log is never written through a symlink (the adapter's appends refuse one too): one at
    // the default place (beside --out, or the temp dir's pid-named file, which anyone can plant)
    // is replaced; one named by --adapter-log is refused.
    if std::fs::symlink_metadata(&log).is_ok_and(|m| m.file_type().is_symlink()) {
        if a.adapter_log.is_some() {
            return Err(format!("the adapter log {} is a symlink; name the file itself", log.display()));
        }
        std::fs::remove_file(&log).map_err(|e| format!("cannot replace the symlink {}: {e}", log.display()))?;
    }
    crate::fsutil::create_no_follow(&log)
        .map_err(|e| format!("cannot write the adapter log {}: {e}", log.display()))?;
    let adapter = crate::adapter::AdapterOptions {
        command,
        timeout: a.timeout,
        max_restarts: a.max_restarts,
        log: log.clone(),
        conformance_version: String::new(),
        trace: a.trace,
    };
    Ok((crate::adapter::Adapter::launch(adapter), log))
}

/// `run --sdk CMD`: greet the adapter started by [`launch_adapter`] and run it.
fn run_adapter(
    cmd: &str,
    launched: Result<(crate::adapter::Launched, PathBuf), String>,
    suite: &Suite,
    options: &RunOptions,
) -> Result<(conformance::Run, crate::adapter::Summary), ExitCode> {
    let (launched, log) = launched.map_err(fail)?;
    note!("adapter: {cmd}; its stderr goes to {}", log.display());
    let rules = conformance::adapter::skip_rules(suite);
    match conformance::adapter::run_launched(suite, options, launched, &rules) {
        Ok(done) => Ok(done),
        Err(trouble) => {
            // The trouble may quote the adapter's hello, which is the adapter's text: escaped,
            // and cut.
            let mut trouble = trouble.to_string();
            if trouble.chars().count() > 500 {
                trouble = trouble.chars().take(500).chain(" …".chars()).collect();
            }
            let why = format!("the adapter {trouble}, so no case could be run (its stderr: {})", log.display());
            let code = fail(terminal_safe(&why));
            note_log_tail(&log);
            Err(code)
        }
    }
}

/// How much of the end of an adapter's log `run` shows when something went wrong with it.
const LOG_TAIL_BYTES: u64 = 4096;
const LOG_TAIL_LINES: usize = 20;

/// The end of the adapter's log (its stderr, and bqsuite's lines about it) on stderr, so that
/// why it failed is in front of whoever ran it (a CI log, where the file is out of reach): the
/// last lines of at most the last 4 KiB, each terminal-safe, since they are the adapter's words.
/// A tab, which indents the frames of a stack trace, is four spaces (escaped, every frame read
/// `\u0009at …`).
fn note_log_tail(log: &Path) {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut file) = std::fs::File::open(log) else { return };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let from = len.saturating_sub(LOG_TAIL_BYTES);
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(from)).is_err() || file.read_to_end(&mut bytes).is_err() || bytes.is_empty() {
        return;
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<&str> = text.lines().collect();
    if from > 0 && !lines.is_empty() {
        // The first line read is cut at its start.
        lines.remove(0);
    }
    let shown = &lines[lines.len().saturating_sub(LOG_TAIL_LINES)..];
    note!("the end of the adapter's log ({}):", log.display());
    for line in shown {
        note!("  | {}", terminal_safe(&line.replace('\t', "    ")));
    }
}

/// How many invalid cases `run` lists on stderr before it counts the rest.
const MAX_LISTED: usize = 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    /// A reason of two cases names both: "and 1 more" left the reader to open the results file
    /// for the one case it could have named.
    #[test]
    fn the_digest_names_both_cases_of_a_reason_of_two() {
        assert_eq!(cases_named(&[("cases", "a")]), "cases / a");
        assert_eq!(cases_named(&[("cases", "a"), ("cases", "b")]), "cases / a and b");
        assert_eq!(cases_named(&[("cases", "a"), ("trim", "b")]), "cases / a and trim / b");
        assert_eq!(cases_named(&[("cases", "a"), ("cases", "b"), ("cases", "c")]), "cases / a and 2 more");
        assert_eq!(
            cases_named(&[("cases", "a"), ("cases", "b"), ("trim", "c")]),
            "cases / a and 2 more (all 3: cases 2, trim 1)"
        );
    }

    /// The sections of a digest line: four named and the rest counted, but never "1 more
    /// sections", which could have been named.
    #[test]
    fn per_section_names_a_fifth_section_rather_than_count_it() {
        let five = ["a", "b", "c", "d", "e"];
        assert_eq!(per_section(five), (5, "a 1, b 1, c 1, d 1, e 1".to_owned()));
        assert_eq!(per_section(["a", "b", "c", "d", "e", "f"]), (6, "a 1, b 1, c 1, d 1, 2 more sections".to_owned()));
    }
}
