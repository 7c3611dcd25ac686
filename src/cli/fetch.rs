//! `bqsuite fetch`: parse, fetch through [`crate::fetch`], report, exit.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::Args;

use super::{emit, exit, fail};
use crate::diag::{self, Format, Summary};
use crate::fetch::{self, Failure, FetchError, Request};

/// `fetch` options.
#[derive(Debug, Args)]
pub struct FetchArgs {
    /// Compare the vendored copy DIR with the release instead of unpacking (exit 1 on any
    /// difference; LICENSE is ignored).
    #[arg(long, conflicts_with = "update")]
    pub check: bool,
    /// With --check: leave the unified diff of each modified file out of the report (the
    /// findings still name every file).
    #[arg(long, requires = "check")]
    pub no_diff: bool,
    /// Replace the vendored copy DIR in place, atomically, with the release's copy files
    /// (exactly what sync vendors; LICENSE is left as it is), and print what changed.
    #[arg(long)]
    pub update: bool,
    /// With --update: replace a copy whose version is newer than VERSION.
    #[arg(long, requires = "update")]
    pub allow_downgrade: bool,
    /// With --update: replace a copy that holds uncommitted changes in its git work tree
    /// (modified, staged, deleted or untracked files), which --update otherwise refuses: those
    /// changes are lost.
    #[arg(long, requires = "update")]
    pub allow_dirty: bool,
    /// With --update: once the copy is at VERSION (written, or already exact), rewrite every
    /// CI pin of its git repository's workflows (--branch vX.Y.Z, uses:
    /// BabelQueue/conformance@vX.Y.Z, actions/checkout's ref:) to vVERSION, only the tag's
    /// text, so the copy and its pin land in one commit. A pin by commit SHA is left and named
    /// (its commit cannot be known here); nothing is bumped when the update is refused or fails.
    #[arg(long, requires = "update")]
    pub bump_pins: bool,
    /// The suite version (SemVer, without a leading v).
    pub version: String,
    /// Where to unpack the release (must be empty or absent); with --check or --update, the
    /// vendored copy.
    #[arg(value_name = "DEST|DIR")]
    pub dir: PathBuf,
    /// Where the assets live: a file://, http:// or https:// URL, `{version}` in it replaced by
    /// VERSION [default: https://github.com/BabelQueue/conformance/releases/download/v<VERSION>].
    #[arg(long, env = "BQ_CONFORMANCE_BASE_URL", value_name = "URL", hide_env_values = true)]
    pub base_url: Option<String>,
    /// The expected sha256 of the asset, for authenticity; SHA256SUMS is then not consulted.
    #[arg(long, value_name = "HEX", value_parser = fetch::parse_sha256)]
    pub sha256: Option<String>,
    /// Give up on a download after this many seconds (1 to 86400).
    #[arg(long, value_name = "SECS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout: u64,
    /// Output format of the --check report, and of what --update changed (json: one document).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Is a progress line half drawn on stderr?
static PROGRESS_OPEN: AtomicBool = AtomicBool::new(false);

/// Draw the download progress line on stderr.
fn progress(name: &str, got: u64, total: Option<u64>, done: bool) {
    let total = total.map(|t| format!(" / {} KiB", t.div_ceil(1024))).unwrap_or_default();
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "\rdownloading {name}: {} KiB{total}{}", got.div_ceil(1024), if done { "\n" } else { "" });
    let _ = err.flush();
    PROGRESS_OPEN.store(!done, Ordering::SeqCst);
}

/// End a half-drawn progress line, so that a message starts on a line of its own.
fn end_progress() {
    if PROGRESS_OPEN.swap(false, Ordering::SeqCst) {
        note!();
    }
}

/// Report a fetch that failed; under `--format github` a verification failure or a refusal is
/// an error annotation too (it has no findings to annotate: a CI page would show nothing).
fn failed(e: &FetchError, format: Format, title: &str) -> ExitCode {
    end_progress();
    let (what, code) = match e.failure {
        Failure::CouldNotRun => return fail(e),
        Failure::Verification => ("verification failed", true),
        Failure::Refused => ("refused", true),
    };
    note!("bqsuite: {what}: {e}");
    if format == Format::Github {
        emit(&diag::github_error(title, &format!("{what}: {e}")));
    }
    exit(code)
}

/// Run `fetch`.
pub fn run(a: &FetchArgs, color: bool) -> ExitCode {
    // An annotation's title names the copy checked: a job may check several.
    let title = if a.check { format!("bqsuite fetch --check {}", a.dir.display()) } else { "bqsuite fetch".to_owned() };
    let mut req = match Request::new(&a.version, a.base_url.as_deref(), a.sha256.as_deref()) {
        Ok(r) => r,
        Err(e) => return failed(&e, a.format, &title),
    };
    req.timeout = Duration::from_secs(a.timeout);
    if std::io::stderr().is_terminal() {
        req.progress = Some(progress);
    }
    if a.update {
        return update(a, &req);
    }
    if !a.check {
        return match fetch::unpack(&req, &a.dir) {
            Ok(u) => {
                end_progress();
                note!(
                    "fetched {} (sha256 {}, verified against {}): {} files into {}",
                    u.verified.name,
                    u.verified.sha256,
                    u.verified.against,
                    u.files,
                    u.dest.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => failed(&e, a.format, &title),
        };
    }
    let fetch::Checked { verified, compared, foreign, local_edits } = match fetch::check(&req, &a.dir) {
        Ok(r) => r,
        Err(e) => return failed(&e, a.format, &title),
    };
    end_progress();
    let drift = &compared.drift;
    let mut findings = fetch::drift::findings(drift, &a.dir);
    let mut summary = Summary::new(
        "fetch --check",
        format!("{} against release {} (sha256 {})", a.dir.display(), a.version, verified.sha256),
    );
    // Quoted for a shell, then escaped for the terminal: a directory named with an escape
    // sequence must not drive it (red team M4).
    let dir_word = diag::path_word(&a.dir.display().to_string());
    let theirs = compared
        .copy_version
        .as_deref()
        .filter(|v| *v != a.version && semver::Version::parse(v).is_ok_and(|p| p.to_string() == *v));
    // The one remedy, wherever it is said: a newer copy is moved back only when asked (fetch
    // --update refuses a downgrade otherwise).
    let newer = theirs
        .and_then(|t| semver::Version::parse(t).ok())
        .zip(semver::Version::parse(&a.version).ok())
        .is_some_and(|(t, v)| t > v);
    let downgrade = if newer { " --allow-downgrade" } else { "" };
    let update = format!("bqsuite fetch --update {} {dir_word}{downgrade}", a.version);
    findings
        .extend(local_edits.as_ref().and_then(|e| fetch::drift::local_edits_finding(e, &a.dir, &a.version, &update)));
    // `--update` refuses a directory whose top level holds what a copy never holds: those go
    // first, or the remedy would be refused.
    let first = if foreign.is_empty() {
        String::new()
    } else {
        format!(
            "remove {} from {} (a vendored copy never holds {}, and fetch --update refuses a directory that does), \
             then ",
            foreign.join(", "),
            a.dir.display(),
            if foreign.len() == 1 { "it" } else { "them" }
        )
    };
    // A copy of another release differs in its version files, which read like edits: said
    // first (before the diff; under the job summary's heading), once, by the copy's own word.
    if let Some(theirs) = theirs {
        // What the copy holds against its own release, when that was told (BQ723/BQ724 say the
        // rest).
        let own = fetch::drift::own_release_clause(local_edits.as_ref());
        // Once told, the check against its own release is not suggested again.
        let own_check =
            if own.is_empty() { format!(", or check it against its own release, {theirs}") } else { String::new() };
        let note = format!(
            "your copy is {theirs}, checked against {}: the differences are those between the two releases{own}; `{}` \
             moves the copy to {}{own_check}",
            a.version,
            diag::terminal_safe(&update),
            a.version
        );
        if a.format == Format::Human {
            note!("fetch --check: {note}");
        }
        summary.notes.push(note);
    }
    // The diff in the log under `--format github` too, as `sync --check` prints it there: an
    // annotation says which file drifted, the diff how. (A runner trims a line's leading space
    // before it looks for `::` and reads `##[` anywhere: terminal_safe_lines makes every line
    // inert, diag::workflow_inert.)
    if a.format != Format::Json && !a.no_diff {
        emit(&diag::terminal_safe_lines(&drift.iter().filter_map(|d| d.diff.as_deref()).collect::<String>()));
    }
    emit(&diag::render(&findings, a.format, color, &summary));
    if a.format == Format::Github {
        // The remedy where the job's page shows the drift, not only in the log.
        let remedy = if findings.is_empty() {
            String::new()
        } else {
            format!(
                "To make the copy exactly release {}: {}{} (with the same --base-url or --sha256, if any), and \
                 commit it together with the CI pin.\n",
                diag::markdown_text(&a.version),
                diag::markdown_text(&first),
                diag::markdown_code(&update)
            )
        };
        super::write_step_summary(&diag::markdown_summary_with(&findings, &summary, &remedy));
    }
    if !findings.is_empty() {
        note!(
            "fetch --check: {}`{}` (with the same --base-url or --sha256, if any) makes the copy the release",
            diag::terminal_safe(&first),
            diag::terminal_safe(&update)
        );
    }
    exit(!findings.is_empty())
}

/// `fetch --update`: the changes on stdout (a JSON document under `--format json`), the pin
/// reminder on stderr. Paths are shown as given, or relative to the current directory.
fn update(a: &FetchArgs, req: &Request) -> ExitCode {
    // Read first: the update may replace the directory the command runs in.
    let cwd = crate::fsutil::current_dir();
    let u = match fetch::update(req, &a.dir, a.allow_downgrade, a.allow_dirty, a.bump_pins) {
        Ok(u) => u,
        Err(e) => return failed(&e, a.format, "bqsuite fetch --update"),
    };
    end_progress();
    let dir = a.dir.display();
    let from = u.from.as_deref().unwrap_or("no version");
    let repo = u.repo.as_deref().map(|r| crate::fsutil::shown_from(cwd.as_deref(), r));
    let pin_at = |p: &crate::sync::Pin| format!("{}/{}", repo.as_deref().unwrap_or("."), p.file);
    if a.format == Format::Json {
        let doc = serde_json::json!({
            "command": "fetch --update",
            "dir": a.dir.display().to_string(),
            "from": u.from,
            "to": a.version,
            "action": if u.changed() { "updated" } else { "unchanged" },
            "added": u.added,
            "removed": u.removed,
            "modified": u.modified,
            "asset": u.verified.name,
            "sha256": u.verified.sha256,
            "verified_against": u.verified.against,
            "repo": repo,
            "pinned": u.pinned,
            "old_kept": u.old_kept,
            "stale_pins": u.stale_pins.iter().map(|p| serde_json::json!({
                "tag": p.tag, "file": pin_at(p), "line": p.span.line, "column": p.span.column, "by_sha": p.by_sha,
            })).collect::<Vec<_>>(),
        });
        let mut doc = doc;
        if let Some(b) = &u.bumps {
            doc["pin_bumps"] = serde_json::json!({
                "to": format!("v{}", a.version),
                "bumped": b.bumped.iter().map(|x| serde_json::json!({
                    "file": format!("{}/{}", repo.as_deref().unwrap_or("."), x.file),
                    "line": x.span.line, "column": x.span.column, "from": x.from, "to": x.to,
                })).collect::<Vec<_>>(),
                "left": b.left.iter().map(|l| serde_json::json!({
                    "file": pin_at(&l.pin), "line": l.pin.span.line, "column": l.pin.span.column,
                    "tag": l.pin.tag, "by_sha": l.pin.by_sha, "reason": l.reason,
                })).collect::<Vec<_>>(),
                "failed": b.failed.iter().map(|(f, why)| serde_json::json!({
                    "file": format!("{}/{}", repo.as_deref().unwrap_or("."), f), "reason": why,
                })).collect::<Vec<_>>(),
                "counts": {"bumped": b.bumped.len(), "left": b.left.len()},
            });
        }
        let failed = u.old_kept.is_some() || u.bumps.as_ref().is_some_and(|b| !b.failed.is_empty());
        emit(&diag::json_text(&doc));
        return exit(failed);
    }
    let mut out = String::new();
    for (word, list) in [("added", &u.added), ("removed", &u.removed), ("modified", &u.modified)] {
        for path in list {
            out.push_str(&format!("{word:<9} {path}\n"));
        }
    }
    let verdict = if u.changed() {
        format!("{} added, {} removed, {} modified", u.added.len(), u.removed.len(), u.modified.len())
    } else {
        "already exact, nothing written".into()
    };
    out.push_str(&format!(
        "fetch --update: {dir}: {from} -> {} ({verdict}; {} sha256 {}, verified against {})\n",
        a.version, u.verified.name, u.verified.sha256, u.verified.against
    ));
    if let Some(b) = &u.bumps {
        for x in &b.bumped {
            let at = format!("{}/{}:{}:{}", repo.as_deref().unwrap_or("."), x.file, x.span.line, x.span.column);
            out.push_str(&format!("bumped    {} {} → {}\n", diag::terminal_safe(&at), x.from, x.to));
        }
        for l in &b.left {
            let at = format!("{}:{}:{}", pin_at(&l.pin), l.pin.span.line, l.pin.span.column);
            out.push_str(&format!(
                "pin left  {} {} ({})\n",
                diag::terminal_safe(&at),
                l.pin.tag,
                diag::terminal_safe(&l.reason)
            ));
        }
        out.push_str(&format!(
            "fetch --update: pins: {} bumped to v{}, {} left alone\n",
            b.bumped.len(),
            a.version,
            b.left.len()
        ));
    } else if a.bump_pins {
        out.push_str("fetch --update: pins: none bumped (the copy is in no git repository)\n");
    }
    emit(&out);
    if let Some(b) = &u.bumps {
        for (file, why) in &b.failed {
            note!(
                "bqsuite: error: {}/{file}: cannot bump the pins in this workflow: {}; it was left as it was",
                repo.as_deref().unwrap_or("."),
                diag::terminal_safe(why)
            );
        }
    }
    // With --bump-pins, the pins left are listed above with their reasons.
    for p in u.stale_pins.iter().filter(|_| u.bumps.is_none()) {
        // A SHA pin moves with its SHA: the comment only names the tag.
        let how = if p.by_sha {
            format!(
                "by the commit SHA its comment names; point the SHA at v{v}'s commit and the comment at v{v} \
                 (Dependabot and Renovate do both)",
                v = a.version
            )
        } else {
            format!("; bump it to v{}", a.version)
        };
        note!(
            "bqsuite: reminder: {}:{}:{} pins {}{}{how} in the same commit as the copy",
            pin_at(p),
            p.span.line,
            p.span.column,
            p.tag,
            if p.by_sha { " " } else { "" }
        );
    }
    if let (Some(repo), false) = (repo, u.pinned) {
        note!(
            "bqsuite: note: no workflow in {repo}/{} pins a suite tag (a clone of the suite with --branch v{v}, or \
             uses: BabelQueue/conformance@v{v}), so CI does not check this copy",
            crate::sync::pin::WORKFLOWS,
            v = a.version
        );
    }
    if let Some(why) = &u.old_kept {
        note!("bqsuite: error: {}: {}", dir, diag::terminal_safe(why));
    }
    exit(u.old_kept.is_some() || u.bumps.as_ref().is_some_and(|b| !b.failed.is_empty()))
}
