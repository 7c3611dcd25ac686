//! `bqsuite dev`: hidden developer tools, not part of the supported interface.
//!
//! `dev scale --factor K --out DIR` writes the suite with every `cases` array multiplied K
//! times ([`crate::synth`]), for the benchmarks (`benches/`, `bench/compare.sh`).
//!
//! `dev floor [--suite DIR]` reads and parses the suite's files once with serde_json, checking
//! nothing ([`crate::synth::floor`]): the floor `bench/compare.sh` times `validate` against.
//!
//! `dev changelog-entry VERSION [--file CHANGELOG.md]` prints the CHANGELOG entry the release
//! gate reads for VERSION ([`crate::diff::changelog::entry_text`]), the release notes
//! `scripts/release.sh notes` publishes, so the two never read the file differently.
//!
//! `dev kill-matrix` runs the reference core through the suite once per broken variant of the
//! catalogue and prints the matrix (variants × sections, failing cases per cell) as Markdown;
//! exit 1 when a variant is caught by no case or the reference itself fails a case. With
//! `--sdk CMD` each row runs through the reference adapter across the process boundary (`CMD
//! --broken NAME`), and any adapter trouble stops it (exit 2).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::{SuiteArg, fail};

/// `dev` options.
#[derive(Debug, Args)]
pub struct DevArgs {
    #[command(subcommand)]
    pub command: DevCommand,
}

/// The developer tools.
#[derive(Debug, Subcommand)]
pub enum DevCommand {
    /// Write a synthetic suite: every `cases` array multiplied, with unique names and copied
    /// fixtures (valid under `validate`).
    Scale {
        #[command(flatten)]
        suite: SuiteArg,
        /// How many times each case appears (1 copies the suite as it is).
        #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=10_000))]
        factor: u32,
        /// The new suite's directory (must not exist; written into a temp dir and renamed).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Read and parse every file of the suite once with serde_json, checking nothing: the
    /// floor benchmark `bench/compare.sh` times `validate` against.
    Floor {
        #[command(flatten)]
        suite: SuiteArg,
    },
    /// Print the CHANGELOG entry of VERSION as written, headings left out: the entry the release
    /// gate reads (`## VERSION` or `## [VERSION] - date`, every such heading; for a pre-release
    /// else the version it becomes), for the release notes (`scripts/release.sh notes`). Exit 1
    /// when it has none.
    ChangelogEntry {
        /// The version, e.g. 1.7.0 or 1.7.0-rc.1.
        #[arg(value_name = "VERSION")]
        version: String,
        /// The CHANGELOG to read.
        #[arg(long, value_name = "FILE", default_value = "CHANGELOG.md")]
        file: PathBuf,
    },
    /// Print the kill matrix: every broken variant of the reference core × every section, as
    /// Markdown (the Redis blocks need a live Redis at BQ_REDIS_URL, else they are skipped).
    KillMatrix {
        #[command(flatten)]
        suite: SuiteArg,
        /// A live Redis for the redis behavioural blocks.
        #[arg(long, env = "BQ_REDIS_URL", value_name = "URL", hide_env_values = true)]
        redis_url: Option<String>,
        /// Run each row through this reference adapter (e.g. "bqsuite adapter"), with
        /// `--broken NAME` appended for each variant: the kill matrix across the process
        /// boundary.
        #[arg(long, value_name = "CMD")]
        sdk: Option<String>,
        /// Also write the matrix's catches as the suite's recorded power (src/sections/power.json,
        /// which validate's BQ316 holds every suite to); refused unless every case ran, so it
        /// needs a live Redis.
        #[arg(long, value_name = "FILE")]
        record: Option<PathBuf>,
    },
}

/// Run `dev changelog-entry`.
fn changelog_entry(version: &str, file: &std::path::Path) -> ExitCode {
    let (shown, text) = match crate::diff::source::changelog_file(file, &crate::fetch::Limits::default()) {
        Ok(read) => read,
        Err(e) => return fail(e),
    };
    match crate::diff::changelog::entry_text(&text, version) {
        Some(entry) => {
            super::emit(&entry);
            ExitCode::SUCCESS
        }
        None => {
            let also = version
                .split_once('-')
                .map(|(release, _)| format!(" (nor \"## {release}\", the version it becomes)"))
                .unwrap_or_default();
            note!("bqsuite: error: {shown} has no entry \"## {version}\"{also}, or it is empty");
            ExitCode::from(1)
        }
    }
}

/// Run `dev`.
pub fn run(a: &DevArgs) -> ExitCode {
    match &a.command {
        DevCommand::Scale { suite, factor, out } => {
            let suite = match suite.load() {
                Ok(s) => s,
                Err(e) => return fail(e),
            };
            let files = match crate::synth::scale(&suite, *factor as usize) {
                Ok(f) => f,
                Err(e) => return fail(e),
            };
            if let Err(e) = crate::synth::write(&files, out) {
                return fail(format!("cannot write {}: {e}", out.display()));
            }
            note!("wrote {} ({} files, cases ×{factor})", out.display(), files.len());
            ExitCode::SUCCESS
        }
        DevCommand::ChangelogEntry { version, file } => changelog_entry(version, file),
        DevCommand::Floor { suite } => {
            let root = match suite.root() {
                Ok(r) => r,
                Err(e) => return fail(e),
            };
            match crate::synth::floor(&root) {
                Ok(f) => {
                    note!("floor: {} files, {} bytes, {} parsed as JSON", f.files, f.bytes, f.parsed);
                    ExitCode::SUCCESS
                }
                Err(e) => fail(format!("cannot read {}: {e}", root.display())),
            }
        }
        DevCommand::KillMatrix { suite, redis_url, sdk, record } => {
            let suite = match suite.load() {
                Ok(s) => s,
                Err(e) => return fail(e),
            };
            let options = crate::conformance::RunOptions {
                only: Vec::new(),
                cases: Vec::new(),
                redis_url: redis_url.clone(),
                require_redis: if super::require_redis_from_env() {
                    crate::sections::RedisRequired::ByEnv
                } else {
                    crate::sections::RedisRequired::No
                },
                redis_timeout: None,
            };
            let matrix = match sdk {
                None => crate::conformance::kill::kill_matrix(&suite, &options),
                Some(cmd) => {
                    let command = match crate::adapter::split_command(cmd) {
                        Ok(c) => c,
                        Err(e) => return fail(format!("--sdk: {e}")),
                    };
                    let log = std::env::temp_dir().join(format!("bqsuite-kill-matrix-{}.log", std::process::id()));
                    note!("adapter: {cmd}; its stderr goes to {}", log.display());
                    let adapter = crate::adapter::AdapterOptions {
                        command,
                        timeout: crate::adapter::process::DEFAULT_TIMEOUT,
                        max_restarts: 0,
                        log,
                        conformance_version: suite.version().unwrap_or_default().to_owned(),
                        trace: false,
                    };
                    let rules = crate::conformance::adapter::skip_rules(&suite);
                    match crate::conformance::adapter::kill_matrix_through(&suite, &options, &adapter, &rules) {
                        Ok(m) => m,
                        Err(t) => return fail(format!("the adapter {t}")),
                    }
                }
            };
            super::emit(&matrix.markdown());
            if let Some(path) = record {
                if matrix.skipped() > 0 {
                    return fail(format!(
                        "--record: {} case(s) were skipped for want of a Redis, so the matrix is not the suite's whole power; \
                         give --redis-url",
                        matrix.skipped()
                    ));
                }
                let pairs = matrix.pairs();
                let caught: std::collections::BTreeSet<(&str, &str)> =
                    pairs.iter().map(|p| (p.section.as_str(), p.id.as_str())).collect();
                let unprotected: Vec<(String, String)> = suite
                    .sections()
                    .into_iter()
                    .flat_map(|s| s.cases().into_iter().map(move |c| (s.name.to_owned(), c.id)))
                    .filter(|(s, id)| !caught.contains(&(s.as_str(), id.as_str())))
                    .collect();
                let Some(pins) = crate::suite::pins::Pins::of(&suite) else {
                    return fail("--record: the suite's CONFORMANCE_VERSION is no SemVer version".to_owned());
                };
                let text = crate::sections::power::render(&pairs, &unprotected, &pins);
                if let Err(e) = crate::fsutil::write_atomic(path, text.as_bytes()) {
                    return fail(format!("cannot write {}: {e}", path.display()));
                }
                note!(
                    "recorded {} catches, {} case(s) no variant fails, the content of {} case(s), of {} skip-policy \
                     rule(s) and of {} schema file(s) in {}",
                    pairs.len(),
                    unprotected.len(),
                    pins.content.len(),
                    pins.policy.len(),
                    pins.schemas.len(),
                    path.display()
                );
            }
            let reference_fails = matrix.reference.failing.values().any(|ids| !ids.is_empty());
            super::exit(reference_fails || matrix.rows.iter().any(|r| !r.caught()))
        }
    }
}
