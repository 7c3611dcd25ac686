//! SIGINT and SIGTERM: remove the staging area in progress, kill the adapter processes
//! running (`run --sdk`), say which vendored copies were already written in full (a `sync`
//! prints its report only at the end), then exit 130 / 143.
//!
//! The signals are received on a thread of their own (signal-hook), never in a signal handler,
//! so the thread may lock and remove files: it calls [`crate::staging::freeze`], which waits for
//! the critical step in progress (a swap, a rename), removes every registered staging path and
//! holds the lock until the process is gone. The exit status is 128 + the signal number, as a
//! shell reports a process the signal killed. Where there are no Unix signals (Windows), the
//! default Ctrl-C behaviour stays, and `sync` cleans up what an interruption left on its next
//! run.

/// The directory the report names paths from (a sync's root), when it is not the current one.
static BASE: std::sync::Mutex<Option<std::path::PathBuf>> = std::sync::Mutex::new(None);

/// Name the copies written before an interruption relative to `base` (its real path), as the
/// command's report names them: a sync's targets are `<repo>/<path>` under its root.
pub fn name_from(base: &std::path::Path) {
    let real = base.canonicalize().unwrap_or_else(|_| base.to_path_buf());
    *BASE.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(real);
}

/// `dest` as the report would name it: under the base [`name_from`] set, relative to it;
/// otherwise relative to the current directory when under it; otherwise as it is.
fn shown(dest: &std::path::Path) -> String {
    let base = BASE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    match base.as_deref().and_then(|b| dest.strip_prefix(b).ok()) {
        Some(rel) => crate::fsutil::slash_relative(std::path::Path::new(""), rel),
        None => crate::fsutil::shown_from_cwd(dest),
    }
}

/// Start receiving SIGINT and SIGTERM (a no-op where there are none, or when that fails).
pub fn install() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else { return };
        let _ = std::thread::Builder::new().name("signals".into()).spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let (_held, _) = crate::staging::freeze();
                // The adapters run in process groups of their own, which neither the terminal's
                // SIGINT nor this exit reaches: stop them (and start none after).
                let _adapters = crate::adapter::stop_all();
                let name = if signal == SIGINT { "SIGINT" } else { "SIGTERM" };
                // A newline first ends a progress line that may be half drawn.
                note!("\nbqsuite: interrupted by {name}; nothing half-written is left behind");
                // What a sync had already replaced: the report it would have printed at the end
                // never comes, and these working trees did change.
                for dest in crate::staging::take_completed() {
                    let shown = shown(&dest);
                    note!("  written in full before it: {}", crate::diag::terminal_safe(&shown));
                }
                std::process::exit(128 + signal);
            }
        });
    }
}
