//! `bqsuite adapter`: the reference core served over the adapter protocol on stdin and stdout
//! (the model implementation of `docs/adapter-protocol.md`), optionally with one broken variant
//! of the catalogue switched on; `--schema` prints the protocol's JSON Schema instead. It reads
//! its calls from a buffered stdin one after the other, so it declares `pipeline` unless told
//! `--sequential`.

use std::process::ExitCode;

use clap::Args;

use super::{emit, fail};
use crate::adapter::{protocol, serve};
use crate::sdk::reference::{Broken, ReferenceSdk, with_broken};

/// `adapter` options.
#[derive(Debug, Args)]
pub struct AdapterArgs {
    /// Serve the reference core with this broken variant of the catalogue switched on (for the
    /// kill matrix across the process boundary).
    #[arg(long, value_name = "NAME", value_parser = parse_broken)]
    pub broken: Option<Broken>,
    /// Declare `"pipeline": false` in the hello, so bqsuite writes one call at a time (the
    /// sequential conversation, to compare a pipelined run with).
    #[arg(long)]
    pub sequential: bool,
    /// Print the JSON Schema of every protocol message and exit.
    #[arg(long, conflicts_with = "broken")]
    pub schema: bool,
}

fn parse_broken(name: &str) -> Result<Broken, String> {
    Broken::parse(name).ok_or_else(|| {
        let names: Vec<&str> = Broken::ALL.iter().map(|b| b.name()).collect();
        format!("not a broken variant of the catalogue; one of: {}", names.join(", "))
    })
}

/// Run `adapter`.
pub fn run(a: &AdapterArgs) -> ExitCode {
    if a.schema {
        emit(&protocol::schema_text());
        return ExitCode::SUCCESS;
    }
    let mut sdk = ReferenceSdk::new();
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    let pipeline = !a.sequential;
    let served = match a.broken {
        Some(b) => with_broken(b, || serve::serve(&mut sdk, stdin, stdout, pipeline)),
        None => serve::serve(&mut sdk, stdin, stdout, pipeline),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(format!("adapter: {e}")),
    }
}
