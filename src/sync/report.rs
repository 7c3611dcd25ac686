//! A sync report as findings and as text: human and GitHub output are a per-target status table
//! followed by the findings rendered by [`crate::diag`]; JSON is `diag`'s document with the
//! per-target details added under `targets`.
//!
//! Findings come each copy's own verdict first (refused, missing, edited, uncommitted, its pins,
//! in the targets' order), then every file's drift (BQ708–BQ710), then the pin bumps that
//! failed: the table lists each drifted file already, and GitHub's ten annotations per severity
//! should name the copies that need a decision rather than one copy's files.
//!
//! Invariants: rendering never touches the disk; every problem is a finding with a stable code,
//! so all three formats and the exit status agree; target paths are shown relative to the sync
//! root (the root itself appears once, in the subject line).

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::diag::{self, Code, Finding, Format, Summary, style};
use crate::vendored::edits::Verdict;

use super::pin::{Pin, PinStatus, WORKFLOWS};
use super::{Action, Leftover, Mode, Recovered, Report, State, TargetReport};
use crate::staging::Kind;
use crate::vendored;

impl Report {
    /// The command, as `diag` headers show it.
    fn command(&self) -> &'static str {
        match self.mode {
            Mode::Check => "sync --check",
            Mode::Sync => "sync",
            Mode::DryRun => "sync --dry-run",
        }
    }

    /// The header and summary-line data for `diag`.
    pub fn summary(&self) -> Summary {
        let n = self.targets.len();
        Summary {
            command: self.command().into(),
            subject: format!(
                "suite {}, {n} target{} under {}",
                self.version,
                if n == 1 { "" } else { "s" },
                self.root.display()
            ),
            files_base: Some(self.root.clone()),
            notes: Vec::new(),
        }
    }

    /// Every problem, target by target; a pin finding comes once per repository, at its first
    /// target, naming every target of that repository it applies to.
    pub fn findings(&self) -> Vec<Finding> {
        let key = |t: &TargetReport| (t.target.repo.clone(), t.pin_status, t.copy_version.clone(), t.pins.clone());
        let mut out = Vec::new();
        let mut reported = Vec::new();
        for t in &self.targets {
            out.extend(self.target_findings(t));
            let Some(status) = t.pin_status else { continue };
            if reported.contains(&key(t)) {
                continue;
            }
            reported.push(key(t));
            let group: Vec<&TargetReport> = self.targets.iter().filter(|o| key(o) == key(t)).collect();
            out.extend(self.pin_finding(&group, status));
        }
        // Each copy's own verdict (refused, missing, edited, a pin, …) before any file's drift,
        // which the table above lists already: GitHub annotates ten findings per severity, and
        // a fleet of drifted copies would spend them on one copy's files (a stable sort keeps
        // the targets' order within each kind).
        out.sort_by_key(|f| {
            [Code::SYNC_FILE_ADDED, Code::SYNC_FILE_REMOVED, Code::SYNC_FILE_MODIFIED].contains(&f.code)
        });
        for (repo, outcome) in self.bumps.iter().flatten() {
            for (file, why) in &outcome.failed {
                out.push(
                    Finding::error(
                        Code::SYNC_IO_FAILED,
                        format!("cannot bump the pins in this workflow: {why}; it was left as it was"),
                    )
                    .in_file(format!("{repo}/{file}")),
                );
            }
        }
        out
    }

    /// `--bump-pins`: one line per pin rewritten (`file:line:col vOLD → vNEW`, paths from the
    /// sync root) and per stale pin left with its reason, then the counts.
    fn bump_lines(&self) -> String {
        let Some(bumps) = &self.bumps else { return String::new() };
        let verb = if self.mode == Mode::DryRun { "would bump" } else { "bumped" };
        let mut out = String::new();
        let (mut bumped, mut left) = (0, 0);
        for (repo, o) in bumps {
            for b in &o.bumped {
                let sha = b.sha.as_ref().map_or(String::new(), |(old, new)| format!(" (commit {old} → {new})"));
                let at = format!("{repo}/{}:{}:{}", b.file, b.span.line, b.span.column);
                let _ = writeln!(out, "{verb:<12}  {} {} → {}{sha}", diag::terminal_safe(&at), b.from, b.to);
            }
            for l in &o.left {
                let at = format!("{repo}/{}:{}:{}", l.pin.file, l.pin.span.line, l.pin.span.column);
                let _ = writeln!(
                    out,
                    "{:<12}  {} {} ({})",
                    "pin left",
                    diag::terminal_safe(&at),
                    l.pin.tag,
                    diag::terminal_safe(&l.reason)
                );
            }
            bumped += o.bumped.len();
            left += o.left.len();
        }
        let _ = writeln!(
            out,
            "pins: {bumped} {verb} to v{}, {left} left alone{}",
            self.version,
            if left > 0 { " (reasons above)" } else { "" }
        );
        out
    }

    /// The status words counted, in the order the summary line gives them: every target has
    /// one ([`Self::label`]), and each word appears even at 0 so runs compare line by line.
    fn counted(&self) -> &'static [&'static str] {
        match self.mode {
            Mode::Check => &["in-sync", "drifted", "missing", "refused", "failed", "skipped"],
            Mode::Sync => &["unchanged", "updated", "created", "refused", "failed", "skipped"],
            Mode::DryRun => &["unchanged", "would update", "would create", "refused", "failed", "skipped"],
        }
    }

    /// How many targets have each status word, in [`Self::counted`] order.
    pub fn counts(&self) -> Vec<(&'static str, usize)> {
        self.counted().iter().map(|w| (*w, self.targets.iter().filter(|t| self.label(t) == *w).count())).collect()
    }

    /// `targets: in sync 21, drifted 3, missing 1, refused 1, failed 0, skipped 0`.
    fn counts_line(&self) -> String {
        let parts: Vec<String> = self.counts().iter().map(|(w, n)| format!("{} {n}", w.replace('-', " "))).collect();
        format!("targets: {}\n", parts.join(", "))
    }

    fn bumps_json(&self) -> Value {
        let Some(bumps) = &self.bumps else { return Value::Null };
        let mut bumped = Vec::new();
        let mut left = Vec::new();
        for (repo, o) in bumps {
            bumped.extend(o.bumped.iter().map(|b| {
                json!({
                    "repo": repo, "file": b.file, "line": b.span.line, "column": b.span.column,
                    "from": b.from, "to": b.to,
                    "sha": b.sha.as_ref().map(|(old, new)| json!({"from": old, "to": new})),
                })
            }));
            left.extend(o.left.iter().map(|l| {
                json!({
                    "repo": repo, "file": l.pin.file, "line": l.pin.span.line, "column": l.pin.span.column,
                    "tag": l.pin.tag, "by_sha": l.pin.by_sha, "reason": l.reason,
                })
            }));
        }
        json!({
            "dry_run": self.mode == Mode::DryRun,
            "to": format!("v{}", self.version),
            "bumped": bumped,
            "left": left,
            "counts": {"bumped": bumped.len(), "left": left.len()},
        })
    }

    /// Does the command fail (exit 1)?
    pub fn failed(&self) -> bool {
        diag::has_errors(&self.findings())
    }

    fn target_findings(&self, t: &TargetReport) -> Vec<Finding> {
        let id = t.target.id();
        let mut out = Vec::new();
        match &t.state {
            State::Skipped => {
                let msg = format!("repository {} is not under the sync root: {id} skipped", t.target.repo);
                let f = if self.strict {
                    Finding::error(Code::SYNC_REPO_MISSING, msg)
                } else {
                    Finding::warning(Code::SYNC_REPO_MISSING, msg)
                };
                out.push(f.in_file(t.target.repo.clone()));
            }
            State::Refused(why) => {
                out.push(Finding::error(Code::SYNC_UNSAFE_TARGET, format!("refused: {why}")).in_file(id.clone()))
            }
            State::Failed(why) => out.push(Finding::error(Code::SYNC_IO_FAILED, why.clone()).in_file(id.clone())),
            State::Missing if self.mode == Mode::Check => out.push(
                Finding::error(Code::SYNC_COPY_MISSING, "no vendored copy here; `bqsuite sync` creates it")
                    .in_file(id.clone()),
            ),
            State::Drifted(d) if self.mode == Mode::Check => {
                let file = |rel: &str| format!("{id}/{rel}");
                for rel in &d.added {
                    out.push(
                        Finding::error(Code::SYNC_FILE_ADDED, format!("{rel} is not part of the canonical suite"))
                            .in_file(file(rel)),
                    );
                }
                for rel in &d.removed {
                    out.push(
                        Finding::error(
                            Code::SYNC_FILE_REMOVED,
                            format!("the canonical {rel} is missing from the copy"),
                        )
                        .in_file(file(rel)),
                    );
                }
                for m in d.modified.iter().filter(|m| !m.crlf) {
                    let message = format!("{} differs from the canonical file", m.file);
                    out.push(Finding::error(Code::SYNC_FILE_MODIFIED, message).in_file(file(&m.file)));
                }
                // A CR LF checkout changes every text file at once: one finding for the copy,
                // naming how many, not one per file.
                let crlf: Vec<String> = d.modified.iter().filter(|m| m.crlf).map(|m| m.file.clone()).collect();
                if !crlf.is_empty() {
                    let message = format!(
                        "{} differ{} from the canonical files only in line endings ({}): {}",
                        if crlf.len() == 1 { "1 file" } else { "files" },
                        if crlf.len() == 1 { "s" } else { "" },
                        crate::diag::listed(&crlf),
                        vendored::crlf_note(Some(&t.target.path), &rewrite(t))
                    );
                    out.push(Finding::error(Code::SYNC_FILE_MODIFIED, message).in_file(id.clone()));
                }
            }
            State::Missing | State::InSync | State::Drifted(_) => {}
        }
        if self.mode == Mode::Check && !t.elsewhere.is_empty() {
            out.push(
                Finding::warning(
                    Code::SYNC_COPY_ELSEWHERE,
                    format!(
                        "no copy at {}, but {} keeps one at {}: the target's path in the targets file may be \
                         stale (sync refuses to create a second copy)",
                        t.target.path,
                        t.target.repo,
                        t.elsewhere.join(", ")
                    ),
                )
                .in_file(id.clone()),
            );
        }
        if !t.ci_vendored.is_empty() && !t.ci_vendored.contains(&t.target.path) {
            out.push(
                Finding::warning(
                    Code::SYNC_COPY_ELSEWHERE,
                    format!(
                        "the repository's workflows check `vendored: {}`, not this target's path {}: one of the two \
                         is stale",
                        t.ci_vendored.join(", "),
                        t.target.path
                    ),
                )
                .in_file(id.clone()),
            );
        }
        if let Some(other) = &t.shared_with {
            out.push(
                Finding::warning(
                    Code::SYNC_TARGET_SHARED,
                    format!(
                        "{id} and {other} are one directory (a symlink inside {} leads one to the other): one copy \
                         counted as two; remove one of the two targets from the targets file, or make it a copy of \
                         its own",
                        t.target.repo
                    ),
                )
                .in_file(id.clone()),
            );
        }
        out.extend(self.local_edits_finding(t));
        for (left, fate) in &t.leftovers {
            out.push(self.leftover_finding(t, left, fate));
        }
        match &t.action {
            Action::RefusedDowngrade(v) => out.push(
                Finding::error(
                    Code::SYNC_DOWNGRADE,
                    format!(
                        "the copy is {v}, newer than the canonical {}: not downgraded (update this suite checkout)",
                        self.version
                    ),
                )
                .in_file(id.clone()),
            ),
            Action::RefusedUncommitted(paths) => {
                let eol = matches!(&t.state, State::Drifted(d) if vendored::line_endings_only(paths, d));
                let message = vendored::kept_uncommitted("the copy", paths, eol, &rewrite(t));
                out.push(Finding::error(Code::SYNC_COPY_UNCOMMITTED, message).in_file(id.clone()));
            }
            Action::Failed(why) => out.push(Finding::error(Code::SYNC_IO_FAILED, why.clone()).in_file(id.clone())),
            Action::RefusedElsewhere(paths) => out.push(
                Finding::error(
                    Code::SYNC_COPY_ELSEWHERE,
                    format!(
                        "not created: {} already keeps a copy at {}; a second copy here would be tested by nothing \
                         while that one stays old: fix this target's path in the targets file (or remove that \
                         copy, then sync)",
                        t.target.repo,
                        paths.join(", ")
                    ),
                )
                .in_file(id.clone()),
            ),
            Action::RefusedOldCopies(names) => out.push(
                Finding::error(
                    Code::SYNC_STAGING_LEFTOVER,
                    format!(
                        "not created: {id} is missing and {} old copies that interrupted runs moved aside lie \
                         beside it ({}); nothing tells which one to keep: move it back to {} (or remove them all) \
                         and sync again",
                        names.len(),
                        names.join(", "),
                        t.target.path
                    ),
                )
                .in_file(id.clone()),
            ),
            Action::WrittenOldKept { name, why } => {
                let dir = t.target.path.rsplit_once('/').map_or(String::new(), |(d, _)| format!("{d}/"));
                out.push(
                    Finding::error(
                        Code::SYNC_IO_FAILED,
                        format!(
                            "{id} is now the canonical copy, but the old copy, moved aside beside it, could not be \
                             removed ({why}); make that entry removable and run `bqsuite sync --only {}` again, or \
                             remove the old copy by hand",
                            t.target.repo
                        ),
                    )
                    .in_file(format!("{}/{dir}{name}", t.target.repo)),
                );
            }
            Action::None | Action::Written | Action::WouldWrite => {}
        }
        out
    }

    /// BQ723 (the copy states an older release and holds local edits against it) or BQ724
    /// (whether it does could not be told). An error under `--check`, where the edits are
    /// news; a warning from a sync, which reports what it did (or would do) to them.
    fn local_edits_finding(&self, t: &TargetReport) -> Option<Finding> {
        let edits = t.local_edits.as_ref()?;
        let (id, v, canonical) = (t.target.id(), &edits.version, &self.version);
        let sync = rewrite(t);
        let keep = format!(
            "to keep them, record them upstream first (a pull request or an issue on the suite, so that a release \
             carries them), since the copy can only be a release; to discard them, `{sync}` moves the copy to \
             {canonical}"
        );
        let f = match &edits.verdict {
            Verdict::Exact => return None,
            Verdict::Edited(_) => {
                let said = edits.edits_said();
                let history = if t.in_git {
                    format!(
                        "they are gone from the copy; their committed state stays in {}'s git history (`git log -p -- \
                         {}`)",
                        t.target.repo,
                        diag::shell_word(&t.target.path)
                    )
                } else {
                    "they are gone: the copy is in no git repository, so nothing keeps them".to_owned()
                };
                match (&t.action, self.mode) {
                    (_, Mode::Check) => Finding::error(
                        Code::COPY_EDITED,
                        format!(
                            "{id} states {v} but is release {v} with {said}: syncing it to {canonical} discards them; {keep}"
                        ),
                    ),
                    (Action::Written | Action::WrittenOldKept { .. }, _) => Finding::warning(
                        Code::COPY_EDITED,
                        format!(
                            "{id} stated {v} and was release {v} with {said}: replaced by {canonical}, so {history}; \
                             record them upstream (a pull request or an issue on the suite) if they were meant"
                        ),
                    ),
                    (Action::WouldWrite, _) => Finding::warning(
                        Code::COPY_EDITED,
                        format!("{id} states {v} but is release {v} with {said}: the sync would discard them; {keep}"),
                    ),
                    _ => Finding::warning(
                        Code::COPY_EDITED,
                        format!(
                            "{id} states {v} but is release {v} with {said}: a sync to {canonical} discards them; {keep}"
                        ),
                    ),
                }
            }
            Verdict::Unknown(why) => {
                let dir = self.root.join(&t.target.repo).join(&t.target.path);
                Finding::warning(
                    Code::COPY_EDITS_UNKNOWN,
                    format!(
                        "cannot tell whether {id}, which states {v}, is exactly release {v} or holds local edits: \
                         {why}; `bqsuite fetch --check {v} {}` tells it against the release asset",
                        diag::path_word(&dir.display().to_string())
                    ),
                )
            }
        };
        Some(f.in_file(id))
    }

    fn leftover_finding(&self, t: &TargetReport, left: &Leftover, fate: &Recovered) -> Finding {
        let dir = t.target.path.rsplit_once('/').map_or(String::new(), |(d, _)| format!("{d}/"));
        let file = format!("{}/{dir}{}", t.target.repo, left.name);
        let what = match left.kind {
            Kind::Old => {
                "the old copy, not removed (a sync moved it aside, then was interrupted or could not remove it)"
            }
            Kind::Stage => "the staging copy of an interrupted sync",
            Kind::Tmp | Kind::Fetch => "the staging area of an interrupted bqsuite command",
        };
        let sync_would = if t.olds_to_choose.contains(&left.name) {
            "a sync would keep it, since the copy is missing and nothing tells which old copy to restore: move the \
             one to keep back"
        } else {
            "a sync would remove it"
        };
        let f = match fate {
            Recovered::Found if self.mode == Mode::Check => Finding::error(
                Code::SYNC_STAGING_LEFTOVER,
                format!("{what} is left beside {}; `git add -A` would commit it; {sync_would}", t.target.id()),
            ),
            Recovered::Found => Finding::warning(
                Code::SYNC_STAGING_LEFTOVER,
                format!("{what} is left beside {}: {sync_would}", t.target.id()),
            ),
            Recovered::Removed => Finding::warning(Code::SYNC_STAGING_LEFTOVER, format!("removed {what}")),
            Recovered::Restored => Finding::warning(
                Code::SYNC_STAGING_LEFTOVER,
                format!("{} was missing: restored an old copy that an interrupted sync had moved aside", t.target.id()),
            ),
            Recovered::Kept => Finding::warning(
                Code::SYNC_STAGING_LEFTOVER,
                format!(
                    "kept the old copy an interrupted run moved aside: {} is missing and more than one lies beside it",
                    t.target.id()
                ),
            ),
            Recovered::Failed(e) => {
                let what = match left.kind {
                    Kind::Old => "the old copy left beside the copy",
                    Kind::Stage => "the staging copy of an interrupted sync",
                    Kind::Tmp | Kind::Fetch => "the staging area of an interrupted bqsuite command",
                };
                // `e` names the entry inside it that resists (staging::remove_tree).
                Finding::error(Code::SYNC_IO_FAILED, format!("cannot remove {what}: {e}"))
            }
        };
        f.in_file(file)
    }

    fn pin_finding(&self, group: &[&TargetReport], status: PinStatus) -> Option<Finding> {
        let t = group[0];
        let id = match group {
            [one] => one.target.id(),
            many => format!(
                "{} ({} targets: {})",
                t.target.repo,
                many.len(),
                many.iter().map(|g| g.target.path.as_str()).collect::<Vec<_>>().join(", ")
            ),
        };
        let copy = t.copy_version.as_deref().map_or("no copy".to_owned(), |v| format!("copy {v}"));
        // The version the pins should name: the canonical one, which every copy is synced to,
        // unless the copy is newer (sync leaves it: its version then). The pin a finding points
        // at is the first that names another (the one to move), else the first.
        // (A `-pre` version is never tagged: the pins name the release it becomes.)
        let copy_newer =
            t.copy_version.as_deref().and_then(|v| semver::Version::parse(v).ok()).is_some_and(|v| v > self.version);
        let version = if copy_newer { t.copy_version.clone().unwrap_or_default() } else { self.version.to_string() };
        // A -pre version's pins wait for its release's tag.
        let (target, once) = match untagged_release(&version) {
            Some(release) => (release.to_owned(), " once it is tagged (a -pre version is never tagged)"),
            None => (version.clone(), ""),
        };
        // How a pin is moved: a SHA pin by its SHA, its comment with it.
        let how = |by_sha: bool| {
            if by_sha {
                format!("the action's commit SHA pointed at v{target}'s commit, and its comment at v{target}")
            } else {
                format!("`--branch v{target}` or `uses: BabelQueue/conformance@v{target}`")
            }
        };
        let stale: Vec<&Pin> = t.pins.iter().filter(|p| p.version() != target).collect();
        let first = stale.first().copied().or(t.pins.first());
        let (code, msg) = match status {
            PinStatus::InSync => return None,
            // Behind the suite, so never newer: `target` is the suite's release.
            PinStatus::Behind => (
                Code::PIN_BEHIND,
                format!(
                    "{id}: {copy} and its CI pin agree, but the canonical suite is {}; sync it, and pin v{target}{once}",
                    self.version
                ),
            ),
            PinStatus::Ahead => (
                Code::PIN_AHEAD,
                format!(
                    "{id}: {copy} and its CI pin agree on a version newer than this suite ({}); update this checkout",
                    self.version
                ),
            ),
            PinStatus::Mismatch => (
                Code::PIN_MISMATCH,
                match t.copy_version.as_deref() {
                    // No copy, or one without its CONFORMANCE_VERSION: that is the finding
                    // (BQ707, BQ709), and the table line still says the pin and the mismatch.
                    None => return None,
                    Some(v) => {
                        let pinned = first.map_or("", |p| p.tag.as_str());
                        let by_sha = first.is_some_and(|p| p.by_sha);
                        if v == version && !once.is_empty() {
                            format!(
                                "{id}: CI pins {pinned} but the copy {} {v}, a suite not yet released (a -pre version \
                                 is never tagged); pin v{target} in the workflow once it is tagged ({})",
                                copy_is(t),
                                how(by_sha)
                            )
                        } else if v == version {
                            format!(
                                "{id}: CI pins {pinned} but the copy {} {v}; commit the copy together with the pin \
                                 v{target} in the workflow ({})",
                                copy_is(t),
                                how(by_sha)
                            )
                        } else if pinned == format!("v{target}") {
                            // The copy is off the suite's version, the pin on it: the copy moves.
                            format!(
                                "{id}: CI pins {pinned} but the copy {} {v}, not the suite's {version}; sync the copy \
                                 (the pin already names v{target})",
                                copy_is(t)
                            )
                        } else {
                            format!(
                                "{id}: CI pins {pinned} but the copy {} {v}, and the suite is {version}; sync the copy \
                                 and pin v{target}{once} ({})",
                                copy_is(t),
                                how(by_sha)
                            )
                        }
                    }
                },
            ),
            PinStatus::Conflict => {
                let mut msg = format!("{id}: the CI workflows pin different suite tags ({})", pin_list(t));
                if !stale.is_empty() {
                    let n = crate::diag::shown(stale.len(), 3);
                    let shown: Vec<String> =
                        stale.iter().take(n).map(|p| format!("{}:{} ({})", p.file, p.span.line, p.tag)).collect();
                    let more = if stale.len() > n { format!(" and {} more", stale.len() - n) } else { String::new() };
                    let whose = if copy_newer { "the copy" } else { "the suite" };
                    msg.push_str(&format!(
                        "; {whose} is {version}, so move {}{more} to v{target}{once}",
                        shown.join(", ")
                    ));
                    if stale.iter().any(|p| p.by_sha) {
                        msg.push_str(&format!(" (a pin by commit SHA: {})", how(true)));
                    }
                }
                (Code::PIN_CONFLICT, msg)
            }
            PinStatus::Unpinned => (
                Code::PIN_MISSING,
                format!(
                    "{id}: no workflow in {WORKFLOWS} pins a suite tag (a clone of the suite with --branch vX.Y.Z, \
                     uses: BabelQueue/conformance@vX.Y.Z, or @<sha> # vX.Y.Z), so CI cannot check the copy"
                ),
            ),
        };
        let f = Finding::warning(code, msg);
        Some(match first.filter(|_| status != PinStatus::Unpinned) {
            Some(p) => f.in_file(format!("{}/{}", t.target.repo, p.file)).with_span(Some(p.span)),
            None => f.in_file(format!("{}/{WORKFLOWS}", t.target.repo)),
        })
    }

    /// Render in `format` (`color` only affects human output).
    pub fn render(&self, format: Format, color: bool, diffs: bool) -> String {
        let findings = self.findings();
        let summary = self.summary();
        match format {
            Format::Json => {
                let mut doc: Value = serde_json::from_str(&diag::render(&findings, Format::Json, false, &summary))
                    .expect("diag renders valid JSON");
                doc["root"] = json!(self.root.display().to_string());
                doc["canonical_version"] = json!(self.version.to_string());
                doc["targets"] = self.targets.iter().map(|t| self.target_json(t)).collect();
                doc["counts"] = self.counts().into_iter().map(|(w, n)| (w.replace(' ', "-"), json!(n))).collect();
                if self.bumps.is_some() {
                    doc["pin_bumps"] = self.bumps_json();
                }
                crate::diag::json_text(&doc)
            }
            Format::Human | Format::Github => {
                let color = color && format == Format::Human;
                let mut out = self.table(color, diffs);
                out.push_str(&self.counts_line());
                out.push_str(&self.bump_lines());
                out.push('\n');
                out.push_str(&diag::render(&findings, format, color, &summary));
                out
            }
        }
    }

    /// The status word of a target.
    fn label(&self, t: &TargetReport) -> &'static str {
        match (&t.state, &t.action) {
            (State::Skipped, _) => "skipped",
            (State::Refused(_), _)
            | (
                _,
                Action::RefusedDowngrade(_)
                | Action::RefusedUncommitted(_)
                | Action::RefusedElsewhere(_)
                | Action::RefusedOldCopies(_),
            ) => "refused",
            (State::Failed(_), _) | (_, Action::Failed(_)) => "failed",
            (State::InSync, _) if self.mode == Mode::Check => "in-sync",
            (State::InSync, _) => "unchanged",
            (State::Missing, Action::Written | Action::WrittenOldKept { .. }) => "created",
            (State::Missing, Action::WouldWrite) => "would create",
            (State::Missing, _) => "missing",
            (State::Drifted(_), Action::Written | Action::WrittenOldKept { .. }) => "updated",
            (State::Drifted(_), Action::WouldWrite) => "would update",
            (State::Drifted(_), _) => "drifted",
        }
    }

    fn table(&self, color: bool, diffs: bool) -> String {
        let paint = |style, text: &str| style::paint(style, text, color);
        let mut out = String::new();
        for t in &self.targets {
            let label = self.label(t);
            let colour = match label {
                "in-sync" | "unchanged" | "created" | "updated" => style::GOOD,
                "skipped" | "would create" | "would update" => style::CAUTION,
                _ => style::BAD,
            };
            let (id, detail) = (t.target.id(), detail(t));
            let _ = writeln!(
                out,
                "{}  {}  ({})",
                paint(colour, &format!("{label:<12}")),
                diag::terminal_safe(&id),
                diag::terminal_safe(&detail)
            );
            let State::Drifted(d) = &t.state else { continue };
            // `--check` says what the copy holds against the suite (a file only in the copy is
            // added there); a sync says what it does to the copy (that file is removed), as
            // `fetch --update` does.
            let (extra, lacking) = if self.mode == Mode::Check { ("added", "removed") } else { ("removed", "added") };
            for rel in &d.added {
                let _ = writeln!(out, "{:14}{extra:<10}{}", "", diag::terminal_safe(rel));
            }
            for rel in &d.removed {
                let _ = writeln!(out, "{:14}{lacking:<10}{}", "", diag::terminal_safe(rel));
            }
            for m in &d.modified {
                let eol = if m.crlf { "  (line endings only)" } else { "" };
                let _ = writeln!(out, "{:14}modified  {}{eol}", "", diag::terminal_safe(&m.file));
                if self.mode != Mode::Check || !diffs || m.crlf {
                    continue;
                }
                match &m.diff {
                    Some(diff) => diff.lines().for_each(|line| {
                        let _ = writeln!(out, "{:16}{}", "", diag::terminal_safe(line));
                    }),
                    None => {
                        let _ = writeln!(out, "{:16}(not UTF-8 text on both sides: no diff)", "");
                    }
                }
            }
            // Once per copy, in every mode (a sync that rewrites a CR LF checkout says why its
            // files changed and how to keep them so).
            let crlf = d.modified.iter().filter(|m| m.crlf).count();
            if crlf > 0 {
                let note = vendored::crlf_note(Some(&t.target.path), &rewrite(t));
                let files = if crlf == 1 { "1 file".to_owned() } else { format!("{crlf} files") };
                let _ = writeln!(out, "{:14}({files}: {})", "", diag::terminal_safe(&note));
            }
        }
        out
    }

    fn target_json(&self, t: &TargetReport) -> Value {
        let (status, reason, drift) = match &t.state {
            State::Skipped => ("skipped", None, None),
            State::Refused(why) => ("refused", Some(why.as_str()), None),
            State::Failed(why) => ("failed", Some(why.as_str()), None),
            State::Missing => ("missing", None, None),
            State::InSync => ("in-sync", None, None),
            State::Drifted(d) => ("drifted", None, Some(d)),
        };
        let action = match (&t.action, self.mode) {
            (_, Mode::Check) => Value::Null,
            (Action::None, _) => json!(if matches!(t.state, State::InSync) { "unchanged" } else { "none" }),
            // The human label's words: a copy created or updated (or, dry, would be).
            (Action::Written | Action::WrittenOldKept { .. }, _) if t.state == State::Missing => json!("created"),
            (Action::Written | Action::WrittenOldKept { .. }, _) => json!("updated"),
            (Action::WouldWrite, _) if t.state == State::Missing => json!("would-create"),
            (Action::WouldWrite, _) => json!("would-update"),
            (Action::RefusedDowngrade(_), _) => json!("refused-downgrade"),
            (Action::RefusedUncommitted(_), _) => json!("refused-uncommitted"),
            (Action::RefusedElsewhere(_), _) => json!("refused-elsewhere"),
            (Action::RefusedOldCopies(_), _) => json!("refused-old-copies"),
            (Action::Failed(_), _) => json!("failed"),
        };
        let reason = match &t.action {
            Action::Failed(why) => Some(why.clone()),
            Action::WrittenOldKept { name, why } => {
                Some(format!("the old copy, moved aside as {name}, could not be removed ({why})"))
            }
            Action::RefusedDowngrade(v) => Some(format!("the copy is {v}, newer than {}", self.version)),
            Action::RefusedUncommitted(paths) => {
                Some(format!("the copy holds uncommitted changes ({})", crate::diag::listed(paths)))
            }
            Action::RefusedElsewhere(paths) => Some(format!("the repository keeps a copy at {}", paths.join(", "))),
            Action::RefusedOldCopies(names) => {
                Some(format!("the copy is missing and {} old copies lie beside it ({})", names.len(), names.join(", ")))
            }
            _ => reason.map(str::to_owned),
        };
        let mut doc = json!({
            "repo": t.target.repo,
            "path": t.target.path,
            "status": status,
            "action": action,
            "reason": reason,
            "added": drift.map(|d| d.added.clone()).unwrap_or_default(),
            "removed": drift.map(|d| d.removed.clone()).unwrap_or_default(),
            "modified": drift.map(|d| d.modified.iter().map(|m| json!({"file": m.file, "diff": m.diff, "line_endings_only": m.crlf})).collect::<Vec<_>>()).unwrap_or_default(),
            "copy_version": t.copy_version,
            "pins": t.pins.iter().map(|p| json!({"tag": p.tag, "file": p.file, "line": p.span.line, "column": p.span.column})).collect::<Vec<_>>(),
            "pin_status": t.pin_status.map(PinStatus::as_str),
            "uncommitted": match &t.action {
                Action::RefusedUncommitted(paths) => paths.clone(),
                _ => Vec::new(),
            },
            "copies_elsewhere": t.elsewhere,
            "local_edits": t.local_edits.as_ref().map(|e| {
                let d = match &e.verdict { Verdict::Edited(d) => Some(d), _ => None };
                json!({
                    "version": e.version,
                    "status": e.verdict.as_str(),
                    "added": d.map(|d| d.added.clone()).unwrap_or_default(),
                    "removed": d.map(|d| d.removed.clone()).unwrap_or_default(),
                    "modified": d.map(|d| d.modified.iter().map(|m| json!({"file": m.file, "line_endings_only": m.crlf})).collect::<Vec<_>>()).unwrap_or_default(),
                    "reason": match &e.verdict { Verdict::Unknown(why) => Some(why.as_str()), _ => None },
                })
            }),
            "leftovers": t.leftovers.iter().map(|(l, fate)| json!({
                "name": l.name,
                "kind": l.kind.as_str(),
                "fate": match fate {
                    Recovered::Found => "found",
                    Recovered::Removed => "removed",
                    Recovered::Restored => "restored",
                    Recovered::Kept => "kept",
                    Recovered::Failed(_) => "failed",
                },
            })).collect::<Vec<_>>(),
        });
        // `uncommitted` is what kept a sync from replacing the copy; `--check` asks git nothing,
        // so it has no such list to give (an empty one would say the copy is clean).
        if self.mode == Mode::Check {
            doc.as_object_mut().expect("an object").remove("uncommitted");
        }
        doc
    }
}

/// The whole command that rewrites the copy of `t` (as a BQ720 or a line-endings note says it).
fn rewrite(t: &TargetReport) -> String {
    format!("bqsuite sync --only {}", diag::shell_word(&t.target.id()))
}

/// The release a `-pre` version becomes (`1.7.0-pre` → `1.7.0`): the release workflow never
/// tags a -pre version (`scripts/release.sh check-tag`), so no CI can pin it. `None` for any
/// other version.
fn untagged_release(version: &str) -> Option<&str> {
    version.strip_suffix("-pre").filter(|release| semver::Version::parse(release).is_ok())
}

fn pin_list(t: &TargetReport) -> String {
    let mut tags: Vec<&str> = Vec::new();
    for p in &t.pins {
        if !tags.contains(&p.tag.as_str()) {
            tags.push(&p.tag);
        }
    }
    tags.join(", ")
}

/// How the copy's version is told: "would be" where it is the one a dry run would write, not
/// the one the copy holds, else "is".
fn copy_is(t: &TargetReport) -> &'static str {
    if matches!(t.action, Action::WouldWrite) { "would be" } else { "is" }
}

/// `copy 1.6.0, pin v1.6.0` and the pin relation, as far as known.
fn detail(t: &TargetReport) -> String {
    if t.pin_status.is_none() {
        return match t.state {
            State::Skipped => "repository not found".into(),
            _ => "not touched".into(),
        };
    }
    let copy = t.copy_version.as_deref().map_or("no copy".to_owned(), |v| match copy_is(t) {
        "is" => format!("copy {v}"),
        verb => format!("copy {verb} {v}"),
    });
    let pin = match t.pins.first() {
        None => "unpinned".to_owned(),
        Some(_) if t.pin_status == Some(PinStatus::Conflict) => format!("pins {}", pin_list(t)),
        Some(p) => format!("pin {}", p.tag),
    };
    let line = match t.pin_status {
        Some(PinStatus::Behind) => format!("{copy}, {pin}: behind"),
        Some(PinStatus::Ahead) => format!("{copy}, {pin}: ahead"),
        Some(PinStatus::Mismatch) => format!("{copy}, {pin}: pin/copy mismatch"),
        Some(PinStatus::Conflict) => format!("{copy}, {pin}: conflicting pins"),
        _ => format!("{copy}, {pin}"),
    };
    // What the copy of an older release held against that release (before a write).
    match &t.local_edits {
        None => line,
        Some(e) if matches!(t.action, Action::Written | Action::WrittenOldKept { .. }) => match e.verdict {
            Verdict::Unknown(_) => format!("{line}; whether the old copy held local edits is not told"),
            _ => format!("{line}; was {}", e.words()),
        },
        Some(e) => format!("{line}; {}", e.words()),
    }
}

#[cfg(test)]
mod tests {
    use semver::Version;

    use super::super::{Drift, Target};
    use super::*;

    fn report(mode: Mode, state: State, action: Action) -> Report {
        let target = Target { repo: "sdk".into(), path: "c".into() };
        Report {
            mode,
            strict: false,
            root: "/r".into(),
            version: Version::new(1, 6, 0),
            targets: vec![TargetReport { state, action, ..TargetReport::skipped(&target) }],
            bumps: None,
        }
    }

    /// What `--format json` says became of a copy is the human table's word for it (a copy
    /// created is not one updated, in a dry run too), and an old copy that could not be removed
    /// after the write is named with why.
    #[test]
    fn a_target_s_action_and_reason_in_json_are_the_table_s() {
        let drifted = || State::Drifted(Drift::default());
        let kept = Action::WrittenOldKept { name: "c.bqsuite-old".into(), why: "busy".into() };
        let kept_why = Some("the old copy, moved aside as c.bqsuite-old, could not be removed (busy)");
        let cases = [
            (Mode::Sync, State::Missing, Action::Written, "created", None),
            (Mode::Sync, drifted(), Action::Written, "updated", None),
            (Mode::DryRun, State::Missing, Action::WouldWrite, "would-create", None),
            (Mode::DryRun, drifted(), Action::WouldWrite, "would-update", None),
            (Mode::Sync, State::Missing, kept.clone(), "created", kept_why),
            (Mode::Sync, drifted(), kept, "updated", kept_why),
        ];
        for (mode, state, action, word, reason) in cases {
            let r = report(mode, state, action);
            let doc: Value = serde_json::from_str(&r.render(Format::Json, false, false)).unwrap();
            let t = &doc["targets"][0];
            assert_eq!((t["action"].as_str(), t["reason"].as_str()), (Some(word), reason), "{t:#}");
            let human = r.render(Format::Human, false, false);
            assert!(human.starts_with(&format!("{:<12}  sdk/c  (", word.replace('-', " "))), "{human}");
        }
        // A copy left as it was: the refusal's kind, and the reason in words.
        let refusals = [
            (
                State::Missing,
                Action::RefusedOldCopies(vec!["c.old".into(), "c.older".into()]),
                "refused-old-copies",
                "the copy is missing and 2 old copies lie beside it (c.old, c.older)",
            ),
            (
                drifted(),
                Action::RefusedDowngrade("1.7.0".into()),
                "refused-downgrade",
                "the copy is 1.7.0, newer than 1.6.0",
            ),
            (
                drifted(),
                Action::RefusedUncommitted(vec!["fixtures/a.json".into()]),
                "refused-uncommitted",
                "the copy holds uncommitted changes (1 file: fixtures/a.json)",
            ),
            (
                drifted(),
                Action::RefusedElsewhere(vec!["x/conformance".into(), "y".into()]),
                "refused-elsewhere",
                "the repository keeps a copy at x/conformance, y",
            ),
            (drifted(), Action::Failed("disk full".into()), "failed", "disk full"),
        ];
        for (state, action, word, reason) in refusals {
            let doc: Value =
                serde_json::from_str(&report(Mode::Sync, state, action).render(Format::Json, false, false)).unwrap();
            let t = &doc["targets"][0];
            assert_eq!((t["action"].as_str(), t["reason"].as_str()), (Some(word), Some(reason)), "{t:#}");
        }
    }
}
