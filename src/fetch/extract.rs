//! Pass two: write a checked tree into a fresh temporary directory beside DEST, then rename it
//! to DEST (rules 1 and 10 of the module doc of [`crate::fetch`]).

use std::fs;
use std::io::Write;
use std::path::Path;

use super::{FetchError, Node, Tree};

/// DEST must be absent or an empty directory (not a symlink), with an existing parent.
pub(super) fn check_dest(dest: &Path) -> Result<(), FetchError> {
    let shown = dest.display();
    match fs::symlink_metadata(dest) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let parent = parent_of(dest);
            if !parent.is_dir() {
                return Err(FetchError::could_not_run(format!(
                    "{shown}: its parent directory {} does not exist",
                    parent.display()
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

/// Write `tree` into a temporary directory beside `dest`, then rename it to `dest`. Returns the
/// number of files written. On failure the temporary directory is removed and `dest` is as it
/// was.
pub(super) fn write_tree(tree: &Tree, dest: &Path) -> Result<usize, FetchError> {
    check_dest(dest)?;
    let parent = parent_of(dest);
    let tmp = tempfile::Builder::new().prefix(".bqsuite-fetch-").tempdir_in(parent).map_err(|e| {
        FetchError::could_not_run(format!("cannot create a temporary directory in {}: {e}", parent.display()))
    })?;
    let io =
        |what: &Path, e: std::io::Error| FetchError::could_not_run(format!("cannot write {}: {e}", what.display()));
    let mut files = 0;
    for (rel, node) in &tree.entries {
        let path = tmp.path().join(rel);
        match node {
            Node::Dir => make_dirs(tmp.path(), rel).map_err(|e| io(&path, e))?,
            Node::File(bytes) => {
                if let Some((dir, _)) = rel.rsplit_once('/') {
                    make_dirs(tmp.path(), dir).map_err(|e| io(&path, e))?;
                }
                let mut f =
                    fs::OpenOptions::new().write(true).create_new(true).open(&path).map_err(|e| io(&path, e))?;
                f.write_all(bytes).and_then(|()| f.sync_all()).map_err(|e| io(&path, e))?;
                set_mode(&path, 0o644).map_err(|e| io(&path, e))?;
                files += 1;
            }
        }
    }
    set_mode(tmp.path(), 0o755).map_err(|e| io(tmp.path(), e))?;
    let staged = tmp.keep();
    if let Err(e) = fs::rename(&staged, dest) {
        let _ = fs::remove_dir_all(&staged);
        return Err(FetchError::could_not_run(format!("cannot move the unpacked suite to {}: {e}", dest.display())));
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
            Ok(()) => set_mode(&path, 0o755)?,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && fs::symlink_metadata(&path)?.is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Give `path` exactly `mode` (whatever the umask); a no-op where modes do not exist.
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = (path, mode);
    Ok(())
}
