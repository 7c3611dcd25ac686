//! `bqsuite diff`, and the release gate as `release` and `validate --against` use it: parse,
//! load both sides through [`crate::diff::source`], compare, render, exit.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::{emit, exit, fail};
use crate::diag::Finding;
use crate::diff::render::{self, View};
use crate::diff::source::{self, Options, Source};
use crate::diff::{Diff, gate};
use crate::fetch::Limits;
use crate::suite::{self, Scope, Suite};

/// `diff` output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    Human,
    Json,
    Markdown,
}

/// Where released versions come from.
#[derive(Debug, Clone, Args)]
pub struct RemoteArgs {
    /// Where released versions (a side written as VERSION) are downloaded from: a file://,
    /// http:// or https:// URL, as for `fetch` (`{version}` in it replaced by the side's version)
    /// [default: https://github.com/BabelQueue/conformance/releases/download/v<VERSION>].
    #[arg(long, env = "BQ_CONFORMANCE_BASE_URL", value_name = "URL", hide_env_values = true)]
    pub base_url: Option<String>,
}

/// `diff` options.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The old side: a suite DIR, a release ASSET (.tar.gz), a released VERSION, or git:REV.
    #[arg(value_name = "OLD")]
    pub old: String,
    /// The new side, written the same way (`.` for this checkout).
    #[arg(value_name = "NEW")]
    pub new: String,
    /// Output format (markdown: for a pull-request comment or upgrade notes).
    #[arg(long, value_enum, default_value_t = DiffFormat::Human)]
    pub format: DiffFormat,
    /// Show only the changes in sections of these scopes (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "SCOPE,...", value_parser = parse_scope)]
    pub scope: Vec<Scope>,
    /// Show only what an SDK carrying these bindings must implement: the core sections and the
    /// sections of each binding (comma-separated: sqs,kafka,...).
    #[arg(long, value_delimiter = ',', value_name = "BINDING,...", value_parser = parse_binding)]
    pub bindings: Vec<Scope>,
    /// Check corrections against this CHANGELOG instead of the new side's CHANGELOG.md (a
    /// release asset carries none).
    #[arg(long, value_name = "FILE")]
    pub changelog: Option<PathBuf>,
    /// Exit 1 when the diff shows any change.
    #[arg(long)]
    pub exit_code: bool,
    #[command(flatten)]
    pub remote: RemoteArgs,
}

fn parse_scope(s: &str) -> Result<Scope, String> {
    Scope::parse(s).ok_or_else(|| {
        let all: Vec<_> = Scope::ALL.iter().map(|s| s.as_str()).collect();
        format!("unknown scope {s:?} (one of {})", all.join(", "))
    })
}

fn parse_binding(s: &str) -> Result<Scope, String> {
    match parse_scope(s)? {
        Scope::Core => Err("core is not a binding (it is always included)".into()),
        b => Ok(b),
    }
}

fn options(repo: &Path, remote: &RemoteArgs) -> Options {
    Options { repo: repo.to_path_buf(), base_url: remote.base_url.clone(), limits: Limits::default() }
}

/// The directory whose repository `git:REV` reads when no suite is named: the nearest suite
/// upwards, else the current directory.
fn current_repo() -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    suite::discover(&cwd).unwrap_or(cwd)
}

/// Run `diff`.
pub fn run(a: &DiffArgs) -> ExitCode {
    let opts = options(&current_repo(), &a.remote);
    // A revision is read at the path of the other side when that is a directory of the same
    // work tree, else at the current suite directory's.
    let load = |arg: &str, other: &str| {
        let source = Source::parse(arg)?;
        let mut opts = opts.clone();
        if let (Source::Git(_), Ok(other)) = (&source, Source::parse(other)) {
            opts.repo = source::git_dir_for(&other, &opts.repo);
        }
        source::load(&source, &opts)
    };
    let (old, new) = match (load(&a.old, &a.new), load(&a.new, &a.old)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => return fail(e),
    };
    let changelog = match a.changelog.as_deref().map(|p| source::changelog_file(p, &opts.limits)).transpose() {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let diff = match Diff::new(&old, &new, changelog) {
        Ok(d) => d,
        Err(e) => return fail(e),
    };
    let filtered = !a.scope.is_empty() || !a.bindings.is_empty();
    let names = |v: &[Scope]| v.iter().map(|s| s.as_str().to_owned()).collect::<Vec<_>>();
    let view = View {
        scopes: filtered.then(|| crate::diff::scopes_for(&a.bindings, &a.scope)),
        bindings: names(&a.bindings),
        only: names(&a.scope),
    };
    // Case ids, names and values come from the two manifests: escaped for the terminal, line by
    // line (JSON escapes control characters itself).
    emit(&match a.format {
        DiffFormat::Human => crate::diag::terminal_safe_lines(&render::human(&diff, &view)),
        DiffFormat::Json => render::json(&diff, &view),
        DiffFormat::Markdown => crate::diag::terminal_safe_lines(&render::markdown(&diff, &view)),
    });
    let shown = match &view.scopes {
        Some(s) => !diff.only(s).is_empty(),
        None => !diff.changes.is_empty(),
    };
    exit(a.exit_code && shown)
}

/// What the released-version check (BQ956) found for `current`.
#[derive(Debug)]
pub enum Released {
    /// `CONFORMANCE_VERSION`'s own release tag, and the files that differ from it.
    Checked(String, Vec<Finding>),
    /// The version has no release tag of its own: nothing to check.
    Unreleased,
    /// The suite is not in a git repository: the check could not run, and the caller says so.
    Unchecked(String),
}

/// The released-version check (BQ956) for `current`. `Err`: the tag could not be read, or a
/// shallow clone cannot tell whether there is one (exit 2).
pub fn released_run(current: &Suite, remote: &RemoteArgs) -> Result<Released, String> {
    let Some(version) = current.version() else { return Ok(Released::Unreleased) };
    let tag = match gate::own_tag(&current.root, version)? {
        gate::OwnTag::Tag(tag) => tag,
        gate::OwnTag::Untagged => return Ok(Released::Unreleased),
        gate::OwnTag::NoRepository(why) => {
            return Ok(Released::Unchecked(format!(
                "{why}: whether {version} was released already (BQ956) was not checked"
            )));
        }
        gate::OwnTag::Elsewhere { tags, at } => {
            return Ok(Released::Unchecked(format!(
                "{}: not taken as this suite's release, so whether {version} was released already (BQ956) was not \
                 checked",
                gate::elsewhere(&tags, &at, version)
            )));
        }
    };
    let opts = options(&current.root, remote);
    let released = source::load(&Source::Git(tag.clone()), &opts).map_err(|e| format!("release tag {tag}: {e}"))?;
    let findings = gate::released_changed(current, &released.suite, &tag);
    Ok(Released::Checked(tag, findings))
}

/// What the release gate compares the suite with.
#[derive(Debug, Clone)]
pub enum Previous {
    /// The highest `v*` release tag below `CONFORMANCE_VERSION` in the suite's repository
    /// ([`gate::previous_tag`]); none is BQ955.
    Tag,
    /// The same, but none means nothing to compare with: no finding (`validate --gate`).
    TagIfAny,
    /// A side written as for `diff`.
    Given(String),
}

/// What [`gate_run`] found: the findings, what was compared (or why nothing was), and how many
/// changes it left to validate.
pub type GateRun = (Vec<Finding>, Result<String, String>, usize);

/// The release gate for `current` against `previous`: its findings (BQ950–BQ955, BQ957, and
/// BQ958 unless `redis_ran`: the reference core ran every case that needs a live Redis), the
/// changes of the cases at `broken` (manifest pointers of cases validate has errors at:
/// [`crate::validate::broken_cases`]) left out, so that a mistaken expectation reads as the
/// mistake validate names, not as a correction to bump MAJOR for;
/// located in the suite's files, and what the suite was compared with, as one line (`Ok`: the previous
/// version and where it came from, the changes and the bump they need; `Err`: why nothing was
/// compared), and how many changes it left out for `broken`. `Err` of the whole: the previous
/// release could not be loaded (exit 2).
pub fn gate_run(
    current: &Suite,
    previous: &Previous,
    remote: &RemoteArgs,
    redis_ran: bool,
    broken: &std::collections::BTreeSet<String>,
) -> Result<GateRun, String> {
    // A manifest that does not read is validate's finding (BQ001, BQ104, …), not a gate that
    // could not run: there is nothing of this suite to compare yet.
    if current.manifest().is_none() {
        return Ok((
            Vec::new(),
            Err(format!("{} does not read as a JSON object (validate says why)", suite::MANIFEST)),
            0,
        ));
    }
    let opts = options(&current.root, remote);
    let label = match previous {
        Previous::Given(arg) => arg.clone(),
        Previous::Tag | Previous::TagIfAny => {
            let Some(version) = current.version().filter(|v| semver::Version::parse(v).is_ok()) else {
                return Ok((Vec::new(), Err("CONFORMANCE_VERSION is not SemVer (validate says why)".to_owned()), 0));
            };
            let none = |why: String| {
                let findings =
                    if matches!(previous, Previous::Tag) { vec![gate::no_previous(current, &why)] } else { Vec::new() };
                Ok((findings, Err(why), 0))
            };
            match gate::previous_tag(&current.root, version) {
                Ok(Some(tag)) => format!("git:{tag}"),
                Ok(None) => {
                    if let Some(why) = gate::tags_unreliable(&current.root) {
                        return Err(format!(
                            "cannot find the previous release: {why}, or name it (validate --against, release \
                             --previous)"
                        ));
                    }
                    return none(format!(
                        "the repository has no release tag v<version> below {version} that holds this suite where \
                         it is now"
                    ));
                }
                Err(e) => return none(e),
            }
        }
    };
    let old = source::load(&Source::parse(&label)?, &opts)?;
    let changelog = source::changelog_of(current, &opts.limits)?;
    let shown = current.root.display().to_string();
    let mut diff = Diff::between((&old.suite, &old.label), (current, &shown), changelog)?;
    let before = diff.changes.len();
    diff.changes.retain(|c| {
        !(matches!(c.kind, crate::diff::Kind::CaseChanged | crate::diff::Kind::CaseAdded)
            && c.pointer.as_ref().is_some_and(|p| broken.contains(p)))
    });
    let left_out = before - diff.changes.len();
    let left = match left_out {
        0 => String::new(),
        n => format!(" ({n} more of cases that do not validate, left to validate's findings)"),
    };
    let compared = format!(
        "{} ({}): {} change(s), needing {}{left}",
        diff.old.version.as_deref().unwrap_or("?"),
        diff.old.source,
        diff.changes.len(),
        diff.needed().as_str()
    );
    let mut findings = gate::check(&diff, current)?;
    if !redis_ran {
        findings.extend(gate::unrun_redis(&diff, current));
    }
    Ok((findings, Ok(compared), left_out))
}
