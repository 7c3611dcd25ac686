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
mod fetch;
mod interrupt;
mod release;
mod report;
mod results;
mod run;
mod sync;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::diag::{self, Format, Summary, terminal_safe};
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
    Run(run::RunArgs),
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

/// `--out FILE`, unless it is `-` (stdout).
pub(super) fn out_file(out: &Option<PathBuf>) -> Option<&Path> {
    out.as_deref().filter(|p| p.as_os_str() != "-")
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
        Command::Run(a) => run::run(&a),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
