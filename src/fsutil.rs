//! Writing files without ever leaving a partial one behind, and reading them within bounds.
//!
//! Invariants: every file a command writes is first written in full to a staging file beside
//! the destination ([`crate::staging`], kind `tmp`), flushed to disk, then renamed over the
//! destination inside one critical step, so a reader sees either the old file or the complete
//! new one, and a failure or an interruption leaves the destination untouched and no staging
//! file behind. The file ends up with mode 0644. Errors name the destination, never the
//! staging file.
//!
//! [`read_bounded`] reads only regular files (a symlink is followed to what it names): a FIFO,
//! socket or device is refused without being read, and the open itself never blocks (on Unix it
//! uses `O_NONBLOCK`, so a FIFO swapped in after the check is refused too); a file larger than
//! its cap is refused, also one that grows past the cap while it is read. [`read_own`] keeps
//! the same rules and never reads through a symbolic link: one at the path is refused, also one
//! swapped in after the check (the open does not follow it).

use std::fmt;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::staging::{self, Kind, Staged};

/// Why a bounded read refused a file.
#[derive(Debug)]
pub enum ReadError {
    /// Not a regular file: what it is instead ("a FIFO", "a directory", …).
    NotRegular(&'static str),
    /// Larger than the cap (bytes); `size` is what was seen, at least `cap + 1`.
    TooLarge {
        size: u64,
        cap: u64,
    },
    Io(std::io::Error),
}

/// What [`read_own`] calls a symbolic link it refused ([`ReadError::NotRegular`]).
const LINK: &str = "a symbolic link";

impl ReadError {
    /// Did [`read_own`] refuse a symbolic link?
    pub fn is_link(&self) -> bool {
        matches!(self, ReadError::NotRegular(what) if *what == LINK)
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotRegular(what) => write!(f, "not a regular file ({what}); only regular files are read"),
            ReadError::TooLarge { size, cap } => {
                write!(f, "too large: {size} bytes, more than the {} this file may have", human_size(*cap))
            }
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// What to add to "cannot read PATH: …" when PATH does not exist and holds a glob character
/// (`*`, `?`, `[`): a pattern a shell left unexpanded, or one written in a CI input, which
/// bqsuite never expands; or when it is `-`, which names no standard input here. Empty
/// otherwise.
pub fn glob_hint(path: &Path, e: &ReadError) -> &'static str {
    let missing = matches!(e, ReadError::Io(e) if e.kind() == io::ErrorKind::NotFound);
    if missing && path.as_os_str() == "-" {
        "; - is read as a file's name: standard input is not read, so write the results to a file and name it"
    } else if missing && path.to_string_lossy().contains(['*', '?', '[']) {
        "; the path holds *, ? or [, and globs are not expanded (each path is read as written): name each file"
    } else {
        ""
    }
}

/// A byte count for messages (`64 MiB`, `1.5 KiB`, `12 bytes`).
pub fn human_size(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let (mut v, mut unit) = (n as f64 / 1024.0, 0);
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if v.fract() == 0.0 { format!("{v:.0} {}", UNITS[unit]) } else { format!("{v:.1} {}", UNITS[unit]) }
}

/// What a non-regular file is, for messages.
fn kind_of(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    if t.is_dir() { "a directory" } else { "not a file" }
}

/// Read the regular file at `path` (following symlinks), refusing anything else and anything
/// larger than `cap` bytes.
pub fn read_bounded(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    read_regular(path, cap, Links::Follow)
}

/// Read the regular file at `path` itself, never through a symbolic link (a link there is
/// refused as [`ReadError::NotRegular`], "a symbolic link", also one swapped in after the
/// check: the open does not follow it), within `cap` bytes: for a repository's own file that a
/// pull request could commit as a link to a file outside it (`README.md -> ~/.netrc`).
pub fn read_own(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    read_regular(path, cap, Links::Refuse)
}

#[derive(Clone, Copy, PartialEq)]
enum Links {
    Follow,
    Refuse,
}

fn read_regular(path: &Path, cap: u64, links: Links) -> Result<Vec<u8>, ReadError> {
    let meta = match links {
        Links::Follow => std::fs::metadata(path),
        Links::Refuse => std::fs::symlink_metadata(path),
    }
    .map_err(ReadError::Io)?;
    if meta.file_type().is_symlink() {
        return Err(ReadError::NotRegular(LINK));
    }
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_of(meta.file_type())));
    }
    if meta.len() > cap {
        return Err(ReadError::TooLarge { size: meta.len(), cap });
    }
    let file = open(path, links)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_of(meta.file_type())));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(cap + 1).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooLarge { size: bytes.len() as u64, cap });
    }
    Ok(bytes)
}

/// Open `path` for reading without blocking (a FIFO swapped in after the check is not waited
/// on) and, under [`Links::Refuse`], without following a link (one swapped in after the check is
/// refused here, `ELOOP`).
fn open(path: &Path, links: Links) -> Result<std::fs::File, ReadError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        // One call: `custom_flags` replaces the flags an earlier call set.
        use std::os::unix::fs::OpenOptionsExt;
        let no_follow = if links == Links::Refuse { libc::O_NOFOLLOW } else { 0 };
        options.custom_flags(libc::O_NONBLOCK | no_follow);
    }
    options.open(path).map_err(|e| match e.raw_os_error() {
        #[cfg(unix)]
        Some(libc::ELOOP) if links == Links::Refuse => ReadError::NotRegular(LINK),
        _ => ReadError::Io(e),
    })
}

/// `path` relative to `root`, with `/` separators (the suite's path spelling on every OS).
pub fn slash_relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// How a path the program resolved (an absolute, often canonical path) is shown to the user:
/// relative to the current directory when it lies under it (`.` for the directory itself) or
/// above it (`..`, `../..`), as every path the user typed is shown; otherwise as it is.
pub fn shown_from_cwd(path: &Path) -> String {
    shown_from(current_dir().as_deref(), path)
}

/// The current directory, by its real path (`None` when it cannot be read: it was removed).
pub fn current_dir() -> Option<PathBuf> {
    std::env::current_dir().ok().map(|c| c.canonicalize().unwrap_or(c))
}

/// [`shown_from_cwd`] with the current directory `cwd` read earlier (a command that replaces
/// the directory it runs in reads it first).
pub fn shown_from(cwd: Option<&Path>, path: &Path) -> String {
    let Some(cwd) = cwd else { return path.display().to_string() };
    if let Ok(rel) = path.strip_prefix(cwd) {
        return if rel.as_os_str().is_empty() { ".".to_owned() } else { rel.display().to_string() };
    }
    // A directory above the current one (the repository holding it): `..` per level.
    match cwd.strip_prefix(path) {
        Ok(up) => vec![".."; up.components().count()].join("/"),
        Err(_) => path.display().to_string(),
    }
}

/// Write `bytes` to `path` atomically (staging file beside it, then rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_all(&[(path, bytes)]).map_err(|(_, e)| e)
}

/// Write several files as one: every staging file is written and synced beside its target
/// first, and only when all of them are there are they renamed into place, in order. A failure
/// while staging (a full disk, a directory that takes no file) leaves every target as it was;
/// only a rename failing between two renames (no space is needed for one) could leave some
/// renamed. Errors name the target they are about.
pub fn write_atomic_all(files: &[(&Path, &[u8])]) -> Result<(), (PathBuf, io::Error)> {
    for (path, _) in files {
        refuse_directory(path).map_err(|e| (path.to_path_buf(), e))?;
    }
    staging::critical(|| {
        let mut staged = Vec::with_capacity(files.len());
        for (path, bytes) in files {
            let stage = || -> io::Result<Staged> {
                let tmp = Staged::register(staging::sibling(path, Kind::Tmp));
                let mut f = fs::OpenOptions::new().write(true).create_new(true).open(tmp.path())?;
                f.write_all(bytes)?;
                staging::set_mode(tmp.path(), 0o644)?;
                f.sync_all()?;
                Ok(tmp)
            };
            staged.push(stage().map_err(|e| (path.to_path_buf(), e))?);
        }
        for ((path, _), tmp) in files.iter().zip(staged) {
            fs::rename(tmp.path(), path).map_err(|e| (path.to_path_buf(), e))?;
            tmp.disarm();
        }
        Ok(())
    })
}

/// A directory where a file should go is an error of its own (a rename would fail with a
/// less helpful one, or replace an empty directory).
fn refuse_directory(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => Err(io::Error::other("it is a directory")),
        _ => Ok(()),
    }
}

/// Can a file be written at `path` (atomically, as [`write_atomic`] will)? Checked before a
/// long run so it fails first, not last: the directory must exist and take a new file, and
/// `path` must not be a directory. Writes nothing that stays.
pub fn check_writable(path: &Path) -> Result<(), String> {
    let shown = path.display();
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(format!("cannot write {shown}: the directory {} does not exist", parent.display()));
    }
    refuse_directory(path).map_err(|e| format!("cannot write {shown}: {e}"))?;
    let probe = Staged::register(staging::sibling(path, Kind::Tmp));
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(probe.path())
        .map(drop)
        .map_err(|e| format!("cannot write {shown}: {e}"))
}

/// `options` set never to follow a symlink at the path it opens (on Unix a symlink there is an
/// error, `ELOOP`): for a file written beside user data, such as the adapter's log, where a
/// planted link must not redirect the write.
pub fn no_follow(options: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options
}

/// Create (or empty) the regular file at `path` without following a symlink there
/// ([`no_follow`]).
pub fn create_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    no_follow(std::fs::OpenOptions::new().write(true).create(true).truncate(true)).open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_glob_or_dash_says_why_it_was_not_read() {
        let missing = || ReadError::Io(io::Error::from(io::ErrorKind::NotFound));
        assert!(glob_hint(Path::new("build/*.json"), &missing()).contains("globs are not expanded"));
        assert!(glob_hint(Path::new("-"), &missing()).contains("standard input is not read"));
        assert_eq!(glob_hint(Path::new("r.json"), &missing()), "");
    }

    #[test]
    fn files_written_as_one_are_all_staged_before_any_is_renamed() {
        // The release's asset and SHA256SUMS: SHA256SUMS failing to be written (here: its
        // directory takes no file) left the new asset beside the old SHA256SUMS.
        let dir = tempfile::tempdir().unwrap();
        let (asset, sums) = (dir.path().join("a.tar.gz"), dir.path().join("gone/SHA256SUMS"));
        fs::write(&asset, b"old").unwrap();
        let (failed, _) = write_atomic_all(&[(&asset, b"new"), (&sums, b"sums")]).unwrap_err();
        assert_eq!(failed, sums, "the error names the file it is about");
        assert_eq!(fs::read(&asset).unwrap(), b"old", "nothing was renamed into place");
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, ["a.tar.gz"], "no staging file is left behind");
        // Both can be written: both are.
        let sums = dir.path().join("SHA256SUMS");
        write_atomic_all(&[(&asset, b"new"), (&sums, b"sums")]).unwrap();
        assert_eq!((fs::read(&asset).unwrap(), fs::read(&sums).unwrap()), (b"new".to_vec(), b"sums".to_vec()));
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temp_behind() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.json");
        std::fs::write(&p, b"old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o644);
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let e = write_atomic(&dir.path().join("missing/out.json"), b"x").unwrap_err();
        assert!(!e.to_string().contains("bqsuite-"), "{e}");
        assert!(write_atomic(dir.path(), b"x").unwrap_err().to_string().contains("is a directory"));
    }

    #[test]
    fn the_writability_probe_leaves_nothing_and_names_the_destination() {
        let dir = tempfile::tempdir().unwrap();
        check_writable(&dir.path().join("out.json")).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let e = check_writable(&dir.path().join("no/out.json")).unwrap_err();
        assert!(e.contains("does not exist"), "{e}");
        let e = check_writable(dir.path()).unwrap_err();
        assert!(e.contains("is a directory"), "{e}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let ro = dir.path().join("ro");
            std::fs::create_dir(&ro).unwrap();
            std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
            let probe = std::fs::write(ro.join("x"), "");
            if probe.is_err() {
                // Not root: the directory really is read-only.
                let e = check_writable(&ro.join("out.json")).unwrap_err();
                assert!(e.starts_with(&format!("cannot write {}", ro.join("out.json").display())), "{e}");
                assert!(!e.contains("bqsuite-"), "{e}");
            }
        }
    }

    #[test]
    fn bounded_reads_take_regular_files_within_the_cap_only() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.json");
        std::fs::write(&p, b"12345").unwrap();
        assert_eq!(read_bounded(&p, 5).unwrap(), b"12345");
        let e = read_bounded(&p, 4).unwrap_err();
        assert!(matches!(e, ReadError::TooLarge { size: 5, cap: 4 }), "{e:?}");
        assert_eq!(e.to_string(), "too large: 5 bytes, more than the 4 bytes this file may have");
        assert!(matches!(read_bounded(dir.path(), 10), Err(ReadError::NotRegular("a directory"))));
        assert!(matches!(read_bounded(&dir.path().join("none"), 10), Err(ReadError::Io(_))));
        #[cfg(unix)]
        {
            assert!(matches!(
                read_bounded(Path::new("/dev/zero"), 10),
                Err(ReadError::NotRegular("a character device"))
            ));
            let link = dir.path().join("zero.json");
            std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
            assert!(matches!(read_bounded(&link, 10), Err(ReadError::NotRegular("a character device"))));
            let fifo = dir.path().join("fifo.json");
            assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
            let e = read_bounded(&fifo, 10).unwrap_err();
            assert_eq!(e.to_string(), "not a regular file (a FIFO); only regular files are read");
        }
        assert_eq!(human_size(64 << 20), "64 MiB");
        assert_eq!(human_size(1536), "1.5 KiB");
    }

    #[cfg(unix)]
    #[test]
    fn own_reads_never_go_through_a_link_not_even_one_swapped_in_after_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let (file, link) = (dir.path().join("SHA256SUMS.real"), dir.path().join("SHA256SUMS"));
        std::fs::write(&file, b"secret").unwrap();
        assert_eq!(read_own(&file, 6).unwrap(), b"secret");
        assert!(matches!(read_own(&file, 5), Err(ReadError::TooLarge { size: 6, cap: 5 })));
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(read_bounded(&link, 6).unwrap(), b"secret", "a bounded read follows it");
        let e = read_own(&link, 6).unwrap_err();
        assert!(e.is_link(), "{e:?}");
        assert_eq!(e.to_string(), "not a regular file (a symbolic link); only regular files are read");
        assert!(matches!(read_own(dir.path(), 6), Err(ref e @ ReadError::NotRegular("a directory")) if !e.is_link()));
        // The open itself refuses a link, for one planted between the check and the open.
        assert!(open(&link, Links::Refuse).unwrap_err().is_link());
        assert!(open(&link, Links::Follow).is_ok());
        assert!(matches!(open(&dir.path().join("none"), Links::Refuse), Err(ReadError::Io(_))));
    }
}
