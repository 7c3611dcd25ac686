//! `bqsuite dev`: hidden developer tools, not part of the supported interface.
//!
//! `dev scale --factor K --out DIR` writes the suite with every `cases` array multiplied K
//! times ([`crate::synth`]), for the benchmarks (`benches/`, `bench/compare.sh`).

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
    }
}
