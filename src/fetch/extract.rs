//! Pass two: write a checked tree into a fresh staging directory beside DEST, then rename it
//! to DEST (rules 1 and 11 of the module doc of [`crate::fetch`]).

use std::fs;
use std::io::Write;
use std::path::Path;

use super::{FetchError, Node, Tree};
use crate::staging::{self, Kind, Staged};

/// DEST must be absent or an empty directory (not a symlink), with an existing parent.
pub(super) fn check_dest(dest: &Path) -> Result<(), FetchError> {
    let shown = dest.display();
    match fs::symlink_metadata(dest) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let parent = parent_of(dest);
            if !parent.is_dir() {
                // The parent is not made here (a typo in DEST would otherwise create a tree where
                // none was meant): the message says how.
                return Err(FetchError::could_not_run(format!(
                    "{shown}: its parent directory {} does not exist (fetch creates DEST, not its parents): \
                     `mkdir -p {}` first",
                    parent.display(),
                    crate::diag::terminal_safe(&crate::diag::path_word(&parent.display().to_string()))
                )));
            }
            Ok(())
        }
        Err(e) => Err(FetchError::could_not_run(format!("{shown}: {e}"))),
        Ok(m) if m.file_type().is_symlink() => {
            Err(FetchError::could_not_run(format!("{shown}: is a symlink; give a real directory")))
        }
        Ok(m) if !m.is_dir() => Err(FetchError::could_not_run(format!("{shown}: exists and is not a directory"))),
        Ok(_) => match fs::read_dir(dest).map(|mut d| d.next().is_none()) {
            Ok(true) => Ok(()),
            Ok(false) => Err(FetchError::could_not_run(format!(
                "{shown}: not empty (fetch unpacks only into an empty or new directory)"
            ))),
            Err(e) => Err(FetchError::could_not_run(format!("{shown}: {e}"))),
        },
    }
}

fn parent_of(dest: &Path) -> &Path {
    match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Write `tree` into a staging directory beside `dest`, then rename it to `dest`, in one
/// critical step ([`crate::staging`]). Returns the number of files written. On failure the
/// staging directory is removed and `dest` is as it was; messages name paths under `dest`.
pub(super) fn write_tree(tree: &Tree, dest: &Path) -> Result<usize, FetchError> {
    check_dest(dest)?;
    let real = staging::real_dest(dest);
    staging::critical(|| {
        let tmp = Staged::dir(&real, Kind::Fetch)
            .map_err(|e| FetchError::could_not_run(format!("cannot create {}: {e}", dest.display())))?;
        let files = fill(tree, tmp.path(), dest)?;
        if let Err(e) = fs::rename(tmp.path(), &real) {
            return Err(FetchError::could_not_run(format!(
                "cannot move the unpacked suite to {}: {e}",
                dest.display()
            )));
        }
        tmp.disarm();
        Ok(files)
    })
}

/// Write `tree` under `base`; messages show the paths as they will be under `shown`.
pub(crate) fn fill(tree: &Tree, base: &Path, shown: &Path) -> Result<usize, FetchError> {
    let io = |rel: &str, e: std::io::Error| {
        FetchError::could_not_run(format!("cannot write {}: {e}", shown.join(rel).display()))
    };
    let mut files = 0;
    for (rel, node) in &tree.entries {
        let path = base.join(rel);
        match node {
            Node::Dir => make_dirs(base, rel).map_err(|e| io(rel, e))?,
            Node::File(bytes) => {
                if let Some((dir, _)) = rel.rsplit_once('/') {
                    make_dirs(base, dir).map_err(|e| io(rel, e))?;
                }
                let mut f = fs::OpenOptions::new().write(true).create_new(true).open(&path).map_err(|e| io(rel, e))?;
                f.write_all(bytes).and_then(|()| f.sync_all()).map_err(|e| io(rel, e))?;
                staging::set_mode(&path, 0o644).map_err(|e| io(rel, e))?;
                files += 1;
            }
        }
    }
    Ok(files)
}

/// Create `rel` and its missing ancestors under `base`, each 0755. Only directories this
/// extraction created exist under `base`, so nothing followed can be a symlink.
fn make_dirs(base: &Path, rel: &str) -> std::io::Result<()> {
    let mut path = base.to_path_buf();
    for part in rel.split('/') {
        path.push(part);
        match fs::create_dir(&path) {
            Ok(()) => staging::set_mode(&path, 0o755)?,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && fs::symlink_metadata(&path)?.is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(dest: &Path) -> String {
        check_dest(dest).expect_err("refused").message
    }

    /// DEST is new or an empty directory under an existing parent; each other case is refused
    /// with its own words, and the advice to create the parent only where that would help.
    #[test]
    fn dest_is_new_or_empty_under_an_existing_parent() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        fs::write(&file, "x").unwrap();
        assert!(refused(&file).ends_with("exists and is not a directory"), "{}", refused(&file));
        // Under a file, the parent can never be made: the system's error, no `mkdir -p`.
        let under = refused(&file.join("dest"));
        assert!(!under.contains("mkdir") && under.contains("dest"), "{under}");
        let absent = refused(&dir.path().join("no/dest"));
        assert!(absent.contains("`mkdir -p "), "{absent}");
        fs::create_dir(dir.path().join("full")).unwrap();
        fs::write(dir.path().join("full/x"), "x").unwrap();
        assert!(refused(&dir.path().join("full")).contains("not empty"));
        fs::create_dir(dir.path().join("empty")).unwrap();
        assert!(check_dest(&dir.path().join("empty")).is_ok());
        assert!(check_dest(&dir.path().join("new")).is_ok());
        // A bare name lies in the current directory, which exists.
        assert_eq!(parent_of(Path::new("dest")), Path::new("."));
        assert_eq!(parent_of(Path::new("a/dest")), Path::new("a"));
    }
}
