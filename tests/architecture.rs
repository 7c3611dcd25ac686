//! The design's one-way data flow, enforced: the reference core knows nothing of the suite
//! tooling, and the tooling's lower layers never reach up into the CLI.

use std::path::Path;

fn sources(dir: &Path) -> Vec<(String, String)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| (e.path().display().to_string(), std::fs::read_to_string(e.path()).unwrap()))
        .collect()
}

fn assert_no_use(dir: &str, forbidden: &[&str]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir);
    for (file, text) in sources(&root) {
        for f in forbidden {
            assert!(!text.contains(f), "{file} uses {f}: {dir} must not depend on it");
        }
    }
}

#[test]
fn the_reference_core_is_independent_of_the_tooling() {
    assert_no_use(
        "core",
        &[
            "crate::suite",
            "crate::validate",
            "crate::conformance",
            "crate::diag",
            "crate::cli",
            "crate::results",
            "crate::release",
            "crate::fetch",
            "crate::sync",
        ],
    );
}

#[test]
fn only_the_cli_knows_the_cli() {
    for dir in ["core", "suite", "diag", "validate", "conformance", "diff"] {
        assert_no_use(dir, &["crate::cli"]);
    }
}
