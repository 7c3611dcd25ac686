//! The `bqsuite` binary: everything lives in the library; this only hands over the exit code.
//!
//! It also picks the process's allocator (mimalloc: a large suite's load and checks are mostly
//! small allocations and frees, which it serves in a fraction of glibc's instructions); the
//! library does not depend on which allocator runs it.

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    bqsuite::cli::main()
}
