//! Staging areas: the temporary siblings every writer fills before one rename puts them in
//! place, their one naming scheme, and what becomes of them when the process is interrupted.
//!
//! Invariants:
//! - **One name.** Every temporary a command creates sits beside its destination `<name>` and
//!   is called `.<name>.bqsuite-<kind>-<32 lowercase hex>` ([`sibling`]); [`parse`] is the one
//!   reader of that spelling, so `sync` and `sync --check` can recognise what an interrupted
//!   run left behind (a kill that no handler can catch, or a bqsuite older than this one).
//! - **Registered while it exists.** A [`Staged`] path is in the process-wide registry from its
//!   creation until it is renamed into place ([`Staged::disarm`]) or removed (its `Drop`, also
//!   on an error or a panic), so at any moment the registry lists exactly the staging areas
//!   that would be left behind.
//! - **Critical steps are never cut in half.** Writers run each step that moves things into
//!   place (filling a stage, the swap of an old copy for a new one, a rename over a file)
//!   inside [`critical`]. [`freeze`], which the CLI's SIGINT/SIGTERM handler calls, first waits
//!   for the step in progress to end, then removes every registered path and keeps the lock
//!   until the process exits, so no writer starts another step. Hence an interrupted command
//!   leaves every destination entirely old or entirely new, and no staging area behind.
//! - Messages never name a staging path: a failed write is reported against its destination.

use std::cell::Cell;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// What a staging area is for (the `<kind>` of its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A new copy of a directory being filled (sync, fetch --update).
    Stage,
    /// An old copy moved aside during a two-rename swap (where the atomic exchange is missing).
    Old,
    /// A file being written (every single-file writer).
    Tmp,
    /// A release being unpacked by `fetch`.
    Fetch,
}

impl Kind {
    const ALL: [Kind; 4] = [Kind::Stage, Kind::Old, Kind::Tmp, Kind::Fetch];

    /// The word in the name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Stage => "stage",
            Kind::Old => "old",
            Kind::Tmp => "tmp",
            Kind::Fetch => "fetch",
        }
    }
}

const MARK: &str = ".bqsuite-";

/// The staging path of `kind` beside `dest` (a fresh random name).
pub fn sibling(dest: &Path, kind: Kind) -> PathBuf {
    let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    parent.join(format!(".{name}{MARK}{}-{}", kind.as_str(), uuid::Uuid::new_v4().simple()))
}

/// Where `dest` really is, for a staging sibling and the rename that puts it in place: an
/// existing directory (not a symlink) by its canonical path, since `.` or a path ending in `/.`
/// names it but is no place a rename can replace (EBUSY), and anything else with its `.`
/// components dropped. Messages keep showing `dest` as the user wrote it.
pub fn real_dest(dest: &Path) -> PathBuf {
    match fs::symlink_metadata(dest) {
        Ok(m) if m.is_dir() => fs::canonicalize(dest).unwrap_or_else(|_| dest.to_path_buf()),
        _ => dest.components().collect(),
    }
}

/// Read a staging name: the destination's name and the kind, or `None` for any other name.
pub fn parse(file_name: &str) -> Option<(&str, Kind)> {
    let rest = file_name.strip_prefix('.')?;
    let at = rest.rfind(MARK)?;
    let (dest, tail) = (&rest[..at], &rest[at + MARK.len()..]);
    let (kind, hex) = tail.split_once('-')?;
    let kind = Kind::ALL.into_iter().find(|k| k.as_str() == kind)?;
    let hex_ok = hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    (hex_ok && !dest.is_empty()).then_some((dest, kind))
}

static CRITICAL: Mutex<()> = Mutex::new(());
static REGISTRY: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

thread_local! {
    static IN_CRITICAL: Cell<bool> = const { Cell::new(false) };
}

fn lock<T>(m: &'static Mutex<T>) -> MutexGuard<'static, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Run `step` so that an interruption waits for it to end (see the module invariants).
/// Nested calls on one thread run inside the outer one.
pub fn critical<T>(step: impl FnOnce() -> T) -> T {
    if IN_CRITICAL.with(Cell::get) {
        return step();
    }
    let _held = lock(&CRITICAL);
    IN_CRITICAL.with(|c| c.set(true));
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            IN_CRITICAL.with(|c| c.set(false));
        }
    }
    let _reset = Reset;
    step()
}

/// For a signal handler: wait for the critical step in progress, remove every registered
/// staging path, and return the lock, which the caller keeps until the process exits. Returns
/// how many paths were removed.
pub fn freeze() -> (MutexGuard<'static, ()>, usize) {
    let held = lock(&CRITICAL);
    let paths = std::mem::take(&mut *lock(&REGISTRY));
    let removed = paths.iter().filter(|p| remove(p).is_ok()).count();
    (held, removed)
}

/// Destinations made entirely new so far, each recorded inside the critical step that did it
/// ([`completed`]), so that an interruption, which waits for that step, can say exactly what
/// it leaves written ([`take_completed`]).
static COMPLETED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Record `dest` as entirely new (call inside [`critical`], right after the step that made it so).
pub fn completed(dest: &Path) {
    lock(&COMPLETED).push(dest.to_path_buf());
}

/// The destinations recorded by [`completed`], in order (for the interruption's message).
pub fn take_completed() -> Vec<PathBuf> {
    std::mem::take(&mut *lock(&COMPLETED))
}

/// The registered staging paths (for tests).
pub fn registered() -> Vec<PathBuf> {
    lock(&REGISTRY).clone()
}

fn remove(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => remove_tree(path),
        Ok(_) => fs::remove_file(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

thread_local! {
    static UNREMOVABLE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Make [`remove_tree`] fail on this thread, as on a file `chattr +i` made immutable, at every
/// entry named `name` (`None`: no more), so tests can run a removal that fails anywhere, as
/// root too.
pub fn pretend_unremovable(name: Option<&str>) {
    UNREMOVABLE.with(|u| *u.borrow_mut() = name.map(str::to_owned));
}

/// Remove the directory tree at `dir` (following no symlink), and where an entry resists, say
/// which: the error names it relative to `dir` (`fixtures/a.json: Operation not permitted`), so
/// the one file to fix is known (`remove_dir_all` says only the error).
pub fn remove_tree(dir: &Path) -> io::Result<()> {
    fn walk(root: &Path, dir: &Path) -> io::Result<()> {
        let named = |path: &Path, e: io::Error| {
            let rel = path.strip_prefix(root).unwrap_or(path);
            io::Error::new(e.kind(), format!("{}: {e}", rel.display()))
        };
        let blocked = |path: &Path| {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            UNREMOVABLE.with(|u| u.borrow().is_some() && *u.borrow() == name)
        };
        for entry in fs::read_dir(dir).map_err(|e| named(dir, e))? {
            let path = entry.map_err(|e| named(dir, e))?.path();
            let kind = fs::symlink_metadata(&path).map_err(|e| named(&path, e))?.file_type();
            if kind.is_dir() {
                walk(root, &path)?;
            } else if blocked(&path) {
                return Err(named(&path, io::Error::from_raw_os_error(1)));
            } else {
                fs::remove_file(&path).map_err(|e| named(&path, e))?;
            }
        }
        if dir != root && blocked(dir) {
            return Err(named(dir, io::Error::from_raw_os_error(1)));
        }
        fs::remove_dir(dir).map_err(|e| if dir == root { e } else { named(dir, e) })
    }
    walk(dir, dir)
}

/// A registered staging path, removed on drop unless disarmed.
#[derive(Debug)]
pub struct Staged {
    path: PathBuf,
    armed: bool,
}

impl Staged {
    /// Register `path` (about to be created, or just created by the caller).
    pub fn register(path: PathBuf) -> Self {
        lock(&REGISTRY).push(path.clone());
        Self { path, armed: true }
    }

    /// Create a fresh staging directory of `kind` beside `dest` (mode 0755 on Unix).
    pub fn dir(dest: &Path, kind: Kind) -> io::Result<Self> {
        let staged = Self::register(sibling(dest, kind));
        fs::create_dir(&staged.path)?;
        set_mode(&staged.path, 0o755)?;
        Ok(staged)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path now holds something that must stay (it was renamed into place, or a rename
    /// moved its contents away): forget it.
    pub fn disarm(mut self) {
        self.armed = false;
        unregister(&self.path);
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if self.armed {
            let _ = remove(&self.path);
            unregister(&self.path);
        }
    }
}

fn unregister(path: &Path) {
    let mut reg = lock(&REGISTRY);
    if let Some(i) = reg.iter().position(|p| p == path) {
        reg.swap_remove(i);
    }
}

/// Give `path` exactly `mode` (whatever the umask); a no-op where modes do not exist.
pub fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = (path, mode);
    Ok(())
}

thread_local! {
    static NO_EXCHANGE: Cell<bool> = const { Cell::new(false) };
}

/// Make [`exchange`] report "not available" on this thread (`true`), as on a platform without
/// it, so tests can run the two-rename fallback anywhere.
pub fn pretend_no_exchange(on: bool) {
    NO_EXCHANGE.with(|c| c.set(on));
}

/// Swap the directories `a` and `b` atomically where the platform can (Linux
/// `renameat2(RENAME_EXCHANGE)`). `Ok(false)`: no atomic exchange here (another OS, or a file
/// system without it); nothing was changed and the caller falls back to two renames.
pub fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    if NO_EXCHANGE.with(Cell::get) {
        return Ok(false);
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
            Ok(()) => Ok(true),
            Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => Ok(false),
            Err(e) => Err(io::Error::from(e)),
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = (a, b);
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_nothing_else_parses() {
        let p = sibling(Path::new("/x/tests/conformance"), Kind::Stage);
        let name = p.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with(".conformance.bqsuite-stage-"), "{name}");
        assert_eq!(parse(name), Some(("conformance", Kind::Stage)));
        let old = sibling(Path::new("a.b.bqsuite-x"), Kind::Old);
        assert_eq!(parse(old.file_name().unwrap().to_str().unwrap()), Some(("a.b.bqsuite-x", Kind::Old)));
        let hex = "0123456789abcdef0123456789abcdef";
        for bad in [
            format!("conformance.bqsuite-stage-{hex}"),
            format!(".conformance.bqsuite-stag-{hex}"),
            format!(".conformance.bqsuite-stage-{}", &hex[1..]),
            format!(".conformance.bqsuite-stage-{}", hex.to_uppercase()),
            format!("..bqsuite-stage-{hex}"),
            ".conformance".to_owned(),
        ] {
            assert_eq!(parse(&bad), None, "{bad}");
        }
    }

    #[test]
    fn staged_paths_are_registered_until_disarmed_or_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("copy");
        let kept = Staged::dir(&dest, Kind::Stage).unwrap();
        let dropped = Staged::dir(&dest, Kind::Stage).unwrap();
        let (k, d) = (kept.path().to_path_buf(), dropped.path().to_path_buf());
        assert!(registered().contains(&k) && registered().contains(&d));
        fs::write(d.join("f"), "x").unwrap();
        drop(dropped);
        assert!(!d.exists() && !registered().contains(&d));
        fs::rename(&k, &dest).unwrap();
        kept.disarm();
        assert!(dest.is_dir() && !registered().contains(&k));
        assert_eq!(critical(|| critical(|| 7)), 7, "nested critical steps do not deadlock");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn exchange_swaps_two_directories() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        fs::create_dir(&a).unwrap();
        fs::create_dir(&b).unwrap();
        fs::write(a.join("from-a"), "").unwrap();
        if exchange(&a, &b).unwrap() {
            assert!(b.join("from-a").exists() && !a.join("from-a").exists());
        }
    }
}
