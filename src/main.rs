//! The `bqsuite` binary: everything lives in the library; this only hands over the exit code.

fn main() -> std::process::ExitCode {
    bqsuite::cli::main()
}
