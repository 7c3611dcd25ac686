//! `bqsuite dev`: hidden developer tools, not part of the supported interface.
//!
//! `dev scale --factor K --out DIR` writes the suite with every `cases` array multiplied K
//! times ([`crate::synth`]), for the benchmarks (`benches/`, `bench/compare.sh`).
//!
//! `dev kill-matrix` runs the reference core through the suite once per broken variant of the
//! catalogue and prints the matrix (variants × sections, failing cases per cell) as Markdown;
//! exit 1 when a variant is caught by no case or the reference itself fails a case.

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
    /// Print the kill matrix: every broken variant of the reference core × every section, as
    /// Markdown (the Redis blocks need a live Redis at BQ_REDIS_URL, else they are skipped).
    KillMatrix {
        #[command(flatten)]
        suite: SuiteArg,
        /// A live Redis for the redis behavioural blocks.
        #[arg(long, env = "BQ_REDIS_URL", value_name = "URL")]
        redis_url: Option<String>,
    },
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
            eprintln!("wrote {} ({} files, cases ×{factor})", out.display(), files.len());
            ExitCode::SUCCESS
        }
        DevCommand::KillMatrix { suite, redis_url } => {
            let suite = match suite.load() {
                Ok(s) => s,
                Err(e) => return fail(e),
            };
            let options = crate::conformance::RunOptions {
                only: Vec::new(),
                redis_url: redis_url.clone(),
                require_redis: super::require_redis_from_env(),
                redis_timeout: None,
            };
            let matrix = crate::conformance::kill::kill_matrix(&suite, &options);
            super::emit(&matrix.markdown());
            let reference_fails = matrix.reference.failing.values().any(|ids| !ids.is_empty());
            super::exit(reference_fails || matrix.rows.iter().any(|r| !r.caught()))
        }
    }
}
