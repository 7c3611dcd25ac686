//! `bqsuite release`: parse, build through [`crate::release`], report, exit.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::diff::{Previous, Released, RemoteArgs, gate_run, released_run};
use super::{SuiteArg, emit, exit, fail, subject};
use crate::diag::{self, Format, Summary};
use crate::release::{self, ReleaseError};

/// `release` options.
#[derive(Debug, Args)]
pub struct ReleaseArgs {
    #[command(flatten)]
    pub suite: SuiteArg,
    /// Write the asset and SHA256SUMS here [default: dist/ in the suite directory].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write nothing: rebuild in a temporary directory and compare byte for byte with the asset
    /// and SHA256SUMS already in the output directory (exit 1 when they differ). The release
    /// gate does not run: nothing new is published.
    #[arg(long)]
    pub verify: bool,
    /// Compare with this previous release instead of the highest v* release tag (not a
    /// pre-release) below CONFORMANCE_VERSION in the suite's repository.
    #[arg(long, value_name = "DIR|ASSET|VERSION|git:REV", conflicts_with = "no_previous")]
    pub previous: Option<String>,
    /// The very first release: there is no previous one to compare with (the gate is skipped).
    /// Refused where the suite's repository has an earlier release tag of it.
    #[arg(long)]
    pub no_previous: bool,
    /// Build even where release files differ from the commit at HEAD (BQ959: checked where no
    /// tag of CONFORMANCE_VERSION vouches for them), for an experiment nobody publishes: the
    /// asset then holds bytes no checkout reproduces, and release lists the files. BQ956 (a
    /// released version never changes) still applies.
    #[arg(long)]
    pub allow_dirty: bool,
    /// Raise the per-file cap the asset must stay within (rule 8; default: `fetch`'s, 16 MiB)
    /// to BYTES for this build. For benchmarks on synthetic suites (`bench/compare.sh` builds
    /// the ×100 suite, whose manifest is 20 MB, with it): a default `bqsuite fetch` still
    /// refuses such an asset, so a real release never uses it.
    #[arg(long, value_name = "BYTES")]
    pub file_cap: Option<u64>,
    #[command(flatten)]
    pub redis: super::RedisArgs,
    #[command(flatten)]
    pub remote: RemoteArgs,
}

/// Run `release`.
pub fn run(a: &ReleaseArgs, color: bool) -> ExitCode {
    let suite = match a.suite.load() {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    // --no-previous is the very first release; where the repository has released this suite
    // before, it would skip the whole gate (second red team, stop 49). Outside a repository,
    // or in a clone that cannot tell, the flag is taken at its word.
    if a.no_previous && !a.verify {
        let previous = suite.version().and_then(|v| crate::diff::gate::previous_tag(&suite.root, v).ok().flatten());
        if let Some(tag) = previous {
            note!(
                "bqsuite: refusing to build the release: --no-previous is for the very first release, but {tag} \
                 released this suite before; drop it (the release gate then compares with {tag}) or name the \
                 release to compare with (--previous)"
            );
            return exit(true);
        }
    }
    let out = a.out.clone().unwrap_or_else(|| suite.root.join("dist"));
    // The default is the repository's own `dist`: a link committed there (`dist -> /elsewhere`)
    // would carry the asset out of it. An `--out` is the caller's to choose, link or not.
    if a.out.is_none() && std::fs::symlink_metadata(&out).is_ok_and(|m| m.file_type().is_symlink()) {
        return fail(format!(
            "{} is a symbolic link: the default output of `bqsuite release` is a real directory of the \
             suite's repository, never written through a link; delete it, or give --out DIR",
            out.display()
        ));
    }
    // Into schema/ or fixtures/, the asset would become a file of the suite (--verify writes nothing).
    if !a.verify
        && let Err(e) = release::check_out(&suite, &out)
    {
        return fail(e);
    }
    let mut limits = release::Limits::default();
    if let Some(cap) = a.file_cap {
        limits.max_file = cap;
    }
    let (options, no_redis) = match a.redis.for_validate() {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    let (built, redis) = release::build_gated(&suite, &limits, &options);
    // Before anything is written: a gate that could not run what it was asked to is no gate.
    if let Err(e) = a.redis.covered("release", redis) {
        return fail(e);
    }
    super::note_redis_coverage("release", redis, no_redis.as_deref(), options.redis.is_some());
    let asset = match built {
        Ok(asset) => asset,
        Err(ReleaseError::Findings(findings)) => {
            let summary = Summary::new("release", subject(&suite));
            emit(&diag::render(&findings, Format::Human, color, &summary));
            note!("bqsuite: refusing to build the release: {} has findings", suite.validate_command());
            return exit(true);
        }
        Err(e @ ReleaseError::Unreleasable(_)) => {
            note!("bqsuite: refusing to build the release: {e}");
            return exit(true);
        }
        Err(e @ ReleaseError::Io(_)) => return fail(e),
    };
    if !a.verify {
        // A released version never changes (BQ956), first release or not.
        match released_run(&suite, &a.remote) {
            Ok(Released::Checked(tag, changed)) if !changed.is_empty() => {
                let summary = Summary::new("release gate", subject(&suite));
                emit(&diag::render(&changed, Format::Human, color, &summary));
                note!("bqsuite: refusing to build the release: {tag} already released this version with other files");
                return exit(true);
            }
            Ok(Released::Checked(..)) => {}
            Ok(unchecked) => {
                if let Released::Unchecked(why) = unchecked {
                    note!("release: {why}");
                }
                // No tag vouches for the release files: HEAD must (BQ959).
                if let Some(code) = committed(&suite, a.allow_dirty, color) {
                    return code;
                }
            }
            Err(e) => return fail(e),
        }
    }
    if !a.verify && !a.no_previous {
        let previous = a.previous.clone().map_or(Previous::Tag, Previous::Given);
        // The build got here only with no validate finding: no case is left out.
        let (findings, compared, _) =
            match gate_run(&suite, &previous, &a.remote, redis.run == redis.cases, &Default::default()) {
                Ok(f) => f,
                Err(e) => return fail(e),
            };
        let summary = Summary::new("release gate", subject(&suite));
        if diag::has_errors(&findings) {
            emit(&diag::render(&findings, Format::Human, color, &summary));
            note!(
                "bqsuite: refusing to build the release: the release gate has findings (`bqsuite diff` shows the changes)"
            );
            return exit(true);
        }
        if !findings.is_empty() {
            note_inline!("{}", diag::render(&findings, Format::Human, false, &summary));
        }
        if let Ok(compared) = compared {
            note!("release gate: compared with {compared}");
        }
    } else if a.no_previous && !a.verify {
        note!("release: --no-previous: not compared with a previous release");
    }
    if a.verify {
        return match release::verify(&asset, &out) {
            Ok(differences) if differences.is_empty() => {
                note!("release --verify: {} and SHA256SUMS in {} rebuild byte for byte", asset.name, out.display());
                ExitCode::SUCCESS
            }
            Ok(differences) => {
                for d in &differences {
                    note!("bqsuite: differs: {d}");
                }
                note!("release --verify: {} file(s) in {} do not match this tree", differences.len(), out.display());
                exit(true)
            }
            Err(e) => fail(e),
        };
    }
    let dropped = release::dropped_sums_lines(&asset, &out);
    let code = match release::write(&asset, &out) {
        Ok([tarball, _]) => {
            for line in &dropped {
                note!(
                    "release: dropped from {}: {line} (it lists the asset alone)",
                    out.join(release::layout::SHA256SUMS).display()
                );
            }
            note!(
                "wrote {} ({} bytes) and {}",
                tarball.display(),
                asset.bytes.len(),
                out.join(release::layout::SHA256SUMS).display()
            );
            emit(&asset.sha256sums());
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    };
    // The process exits next: freeing the loaded suite node by node would be wasted work.
    std::mem::forget(suite);
    code
}

/// BQ959 where BQ956 was not checked: the release files against the commit at `HEAD`. Says
/// which commit the asset is built from, or that there is none; `Some` exit code: refused.
fn committed(suite: &crate::suite::Suite, allow_dirty: bool, color: bool) -> Option<ExitCode> {
    use crate::diff::gate::{self, Committed};
    let (commit, findings) = match gate::committed(suite) {
        Ok(Committed::Head(commit, findings)) => (commit, findings),
        Ok(Committed::NoRepository) => {
            note!(
                "release: no commit could be checked: {} is not in a git repository (an export such as `git archive`), \
                 so the asset holds the directory's bytes as they are; only its sha256 ties it to a release",
                suite.root.display()
            );
            return None;
        }
        Err(e) if allow_dirty => {
            note!("release: --allow-dirty: {e}; the asset holds the directory's bytes as they are");
            return None;
        }
        Err(e) => return Some(fail(format!("{e} (commit the suite first, or pass --allow-dirty)"))),
    };
    if findings.is_empty() {
        note!("release: built from commit {commit} (HEAD), whose release files it holds byte for byte");
        return None;
    }
    let files: Vec<String> = findings.iter().filter_map(|f| f.file.clone()).collect();
    if allow_dirty {
        note!(
            "release: --allow-dirty: built from uncommitted bytes, not those of commit {commit} (HEAD) ({})",
            crate::diag::listed(&files)
        );
        return None;
    }
    let summary = Summary::new("release", subject(suite));
    if diag::has_errors(&findings) {
        emit(&diag::render(&findings, Format::Human, color, &summary));
        note!(
            "bqsuite: refusing to build the release: the release files differ from commit {commit} (HEAD) ({}); \
             commit them, or pass --allow-dirty for a build nobody publishes",
            crate::diag::listed(&files)
        );
        return Some(exit(true));
    }
    note_inline!("{}", diag::render(&findings, Format::Human, false, &summary));
    note!("release: built from commit {commit} (HEAD) and uncommitted changes to {}", crate::diag::listed(&files));
    None
}
