//! Writing files without ever leaving a partial one behind.
//!
//! Invariants: every file a command writes is first written in full to a staging file beside
//! the destination ([`crate::staging`], kind `tmp`), flushed to disk, then renamed over the
//! destination inside one critical step, so a reader sees either the old file or the complete
//! new one, and a failure or an interruption leaves the destination untouched and no staging
//! file behind. The file ends up with mode 0644. Errors name the destination, never the
//! staging file.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use crate::staging::{self, Kind, Staged};

/// `path` relative to `root`, with `/` separators (the suite's path spelling on every OS).
pub fn slash_relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// Write `bytes` to `path` atomically (staging file beside it, then rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    refuse_directory(path)?;
    staging::critical(|| {
        let tmp = Staged::register(staging::sibling(path, Kind::Tmp));
        let mut f = fs::OpenOptions::new().write(true).create_new(true).open(tmp.path())?;
        f.write_all(bytes)?;
        staging::set_mode(tmp.path(), 0o644)?;
        f.sync_all()?;
        drop(f);
        fs::rename(tmp.path(), path)?;
        tmp.disarm();
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
