//! Known failures (`--known-failing FILE` of `run` and `results check`): the cases an SDK's CI
//! expects to fail for now, so that an SDK on its way to Compatible can hold what it has
//! reached (a new failure turns the job red) before it passes everything, as protobuf's
//! failure lists, Connect's `--known-failing` and toml-test's `-skip` do.
//!
//! Invariants:
//! - The list never changes a verdict or a results file: a file with a failing case is Not
//!   compatible whatever the list says, its findings stay errors (each listed one says it is
//!   known), and `report` never reads a list. Only the exit code of the command given the list
//!   changes: it counts the failures the list does not name. A listed failure is shown as a
//!   warning (a green CI job carries no error annotation for what it was told to expect); the
//!   findings the verdict is computed from keep it an error.
//! - Every entry must still fail, so the list only shrinks: an entry whose case passed, was
//!   skipped, was not reported, or that the suite does not have, is stale (BQ621, at its line)
//!   and fails the exit code like a new failure. A `run` narrowed by `--section` or `--case`
//!   judges only the entries of cases it ran and did not skip (a skip under an all-or-none rule
//!   is refused only by the other cases of a whole run).
//! - The format is `bqsuite ids`' own: one case per line, its section, white space, its id (to
//!   the end of the line, trimmed; a section name holds no white space), so `bqsuite ids | grep`
//!   writes one. The form every message prints a case in, `section / id` (BQ612, `run`'s
//!   failure digest), is read as the same case: after the section, a `/` standing alone (white
//!   space after it) separates the id. That reading is unambiguous, since no case id of a suite
//!   validate accepts starts with `/` (an id is a kebab-case name, `<section>#<n>`, or a
//!   declared block's name with `/<name>` or `/<n>` after it: BQ306, BQ512, BQ514). A line
//!   starting with `#` is a comment, blank lines are ignored. A line with a section and no id,
//!   or a case listed twice (in either form), is an error naming the file and the line: the
//!   command does not run (exit 2), since a list that says something else than it seems to would
//!   hide failures.
//! - The file is read as every user input is: a regular file, at most [`CAP`] bytes, UTF-8.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::FileCheck;
use super::model::{ResultsFile, Status};
use crate::diag::{Code, Finding, Severity, Span, terminal_safe};
use crate::suite::pointer;

/// The largest list read (a list of every case of a suite a hundred times larger is 2 MB; a list
/// far beyond that is no list of known failures, and judging it per results file costs).
pub const CAP: u64 = 4 << 20;

/// One listed case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub section: String,
    pub id: String,
    /// Its 1-based line in the file.
    pub line: usize,
}

/// A known-failing list, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownFailing {
    /// The path as the user named it.
    pub file: String,
    pub entries: Vec<Entry>,
    /// (section, id) → index into `entries`.
    index: HashMap<(String, String), usize>,
}

/// Why a listed case is stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stale {
    Passed,
    Skipped,
    /// The results leave it out (its section was not run, or the case was not reported).
    NotReported,
    /// The suite has no such case.
    NoSuchCase,
    /// The suite has no such section (so no such case either).
    NoSuchSection,
}

impl Stale {
    fn says(self) -> &'static str {
        match self {
            Stale::Passed => "passed",
            Stale::Skipped => "was skipped",
            Stale::NotReported => "was not reported",
            Stale::NoSuchCase | Stale::NoSuchSection => "is not a case of the suite",
        }
    }
}

/// What a list says of one set of results.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judged<'k> {
    /// Entries judged (the rest belong to cases a narrowed run did not run).
    pub judged: usize,
    /// Entries whose case failed, as listed.
    pub still_failing: usize,
    /// Entries that no longer hold, with why, in the list's order.
    pub stale: Vec<(&'k Entry, Stale)>,
}

impl KnownFailing {
    /// Read the list at `path`; `Err` names the file and says what is wrong.
    pub fn read(path: &Path) -> Result<KnownFailing, String> {
        let shown = || terminal_safe(&path.display().to_string()).into_owned();
        let bytes = crate::fsutil::read_bounded(path, CAP).map_err(|e| format!("cannot read {}: {e}", shown()))?;
        let text = String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", shown()))?;
        KnownFailing::parse(&path.display().to_string(), &text)
    }

    /// Parse a list's `text`; `file` names it in errors and findings.
    pub fn parse(file: &str, text: &str) -> Result<KnownFailing, String> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut index = HashMap::new();
        // A byte-order mark some editors write is no part of the first entry.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (n, raw) in text.lines().enumerate() {
            let line = n + 1;
            let trimmed = raw.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let at = || format!("{}:{line}", terminal_safe(file));
            let Some((section, id)) = trimmed.split_once(char::is_whitespace) else {
                return Err(format!(
                    "{}: {:?} names no case: a line is a section and a case id, as `bqsuite ids` prints them",
                    at(),
                    cut(trimmed)
                ));
            };
            let id = id.trim();
            // `section / id`, as messages print a case: the `/` standing alone is no part of it.
            let id = match id.strip_prefix('/') {
                Some(rest) if rest.is_empty() || rest.starts_with(char::is_whitespace) => rest.trim_start(),
                _ => id,
            };
            if id.is_empty() {
                return Err(format!(
                    "{}: {:?} names no case: a line is a section and a case id, as `bqsuite ids` prints them",
                    at(),
                    cut(trimmed)
                ));
            }
            let (section, id) = (section.to_owned(), id.to_owned());
            if let Some(&first) = index.get(&(section.clone(), id.clone())) {
                let first: &Entry = &entries[first];
                return Err(format!(
                    "{}: {} / {} is listed already on line {}",
                    at(),
                    terminal_safe(&section),
                    terminal_safe(&cut(&id)),
                    first.line
                ));
            }
            index.insert((section.clone(), id.clone()), entries.len());
            entries.push(Entry { section, id, line });
        }
        Ok(KnownFailing { file: file.to_owned(), entries, index })
    }

    /// The entry listing `section`'s case `id`, if any.
    pub fn lists(&self, section: &str, id: &str) -> Option<&Entry> {
        self.index.get(&(section.to_owned(), id.to_owned())).map(|&i| &self.entries[i])
    }

    /// Judge every entry against a set of results: `status` gives a case's reported status
    /// (`None`: not reported), `judges` whether an entry is judged at all (a narrowed run judges
    /// only what it ran), `exists` whether the suite has the case, `has_section` whether it has
    /// the section.
    pub fn judge(
        &self,
        status: impl Fn(&str, &str) -> Option<Status>,
        judges: impl Fn(&str, &str) -> bool,
        exists: impl Fn(&str, &str) -> bool,
        has_section: impl Fn(&str) -> bool,
    ) -> Judged<'_> {
        let mut out = Judged::default();
        for e in &self.entries {
            if exists(&e.section, &e.id) && !judges(&e.section, &e.id) {
                continue;
            }
            out.judged += 1;
            let stale = if !exists(&e.section, &e.id) {
                Some(if has_section(&e.section) { Stale::NoSuchCase } else { Stale::NoSuchSection })
            } else {
                match status(&e.section, &e.id) {
                    Some(Status::Fail) => None,
                    Some(Status::Pass) => Some(Stale::Passed),
                    Some(Status::Skip) => Some(Stale::Skipped),
                    None => Some(Stale::NotReported),
                }
            };
            match stale {
                None => out.still_failing += 1,
                Some(why) => out.stale.push((e, why)),
            }
        }
        out
    }

    /// The BQ621 finding of a stale entry (`results`: the results file it was judged against).
    pub fn finding(&self, entry: &Entry, why: Stale, results: &str) -> Finding {
        let cut_id = cut(&entry.id);
        let (section, id) = (terminal_safe(&entry.section), terminal_safe(&cut_id));
        // As every message names a case (BQ612's `section / id`), so the entry reads as the
        // failure it is meant to match, and shows where the line's section ends.
        let case = format!("{section} / {id}");
        let message = match why {
            // Most often a typo, or a note written after the id: say how to find the real one.
            Stale::NoSuchCase | Stale::NoSuchSection => {
                let note = if entry.id.contains(" #") || entry.id.contains("\t#") {
                    " (a `#` starts a comment only at the start of a line, so a note after an id is part of it)"
                } else {
                    ""
                };
                // `ids --section S` refuses a section the suite lacks: then all ids.
                let ids = if why == Stale::NoSuchCase {
                    format!("`bqsuite ids --section {section}` lists them")
                } else {
                    "the suite has no such section; `bqsuite ids` lists every case".to_owned()
                };
                format!(
                    "{case} is listed as a known failure, but the suite has no such case{note}: correct the id \
                     ({ids}; a line is the section, white space and the id, or `section / id` as messages print a \
                     case) or take its line out of the list"
                )
            }
            _ => format!(
                "{case} is listed as a known failure, but it {} in {}: take its line out of the list",
                why.says(),
                terminal_safe(results)
            ),
        };
        Finding::error(Code::KNOWN_FAILING_STALE, message)
            .in_file(self.file.clone())
            .with_span(Some(Span { line: entry.line, column: 1 }))
    }
}

/// What a list makes of one checked results file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OnFile {
    /// Entries judged (every one, unless the file could not be read as JSON at all).
    pub listed: usize,
    /// Entries whose case failed, as listed.
    pub still_failing: usize,
    /// A BQ621 finding per stale entry.
    pub stale: Vec<Finding>,
    /// Error findings of the file the list does not name (anything but a listed BQ612).
    pub unlisted: usize,
    /// The BQ612s the list names: each one's index in the file's findings, and the list's line
    /// that names it.
    pub known: Vec<(usize, usize)>,
}

impl OnFile {
    /// Whether the list holds for the file: nothing it does not name, nothing stale.
    pub fn holds(&self) -> bool {
        self.unlisted == 0 && self.stale.is_empty()
    }
}

impl KnownFailing {
    /// Judge the checked file `fc` by every entry (`cases`: every case of the suite, by
    /// section and id): each BQ612 of a listed case says so in its message (it stays an
    /// error, and the verdict stands), each stale entry is a BQ621 finding of the list.
    pub fn check_file(&self, fc: &mut FileCheck, cases: &HashSet<(String, String)>) -> OnFile {
        let mut on = OnFile::default();
        for (i, f) in fc.findings.iter_mut().enumerate().filter(|(_, f)| f.severity == Severity::Error) {
            let listed = (f.code == Code::RESULTS_CASE_FAILED)
                .then(|| f.pointer.as_deref().and_then(|p| pointer::parse(p).ok()))
                .flatten()
                .and_then(|tokens| match tokens.as_slice() {
                    // A case the suite lacks is no known failure: its entry is stale (BQ621),
                    // and a mark would say the opposite (red team L1).
                    [_, section, id] if cases.contains(&(section.clone(), id.clone())) => self.lists(section, id),
                    _ => None,
                });
            match listed {
                Some(entry) => {
                    f.message.push_str(&format!(
                        " (a known failure: {} line {})",
                        terminal_safe(&self.file),
                        entry.line
                    ));
                    on.known.push((i, entry.line));
                }
                None => on.unlisted += 1,
            }
        }
        let Some(results) = &fc.results else { return on };
        let reported: HashMap<(&str, &str), Option<Status>> = results
            .sections
            .iter()
            .flat_map(|s| s.cases().iter().map(move |c| ((s.name.as_str(), c.id.as_str()), c.status)))
            .collect();
        let judged = self.judge(
            |s, id| reported.get(&(s, id)).copied().flatten(),
            |_, _| true,
            |s, id| cases.contains(&(s.to_owned(), id.to_owned())),
            |s| cases.iter().any(|(section, _)| section == s),
        );
        on.listed = judged.judged;
        on.still_failing = judged.still_failing;
        on.stale = judged.stale.iter().map(|(e, why)| self.finding(e, *why, &fc.file)).collect();
        on
    }
}

/// What a list makes of a run's results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnRun<'k, 'r> {
    pub judged: Judged<'k>,
    /// The failed cases the list does not name (section, id), in the results' order.
    pub unlisted: Vec<(&'r str, &'r str)>,
}

impl OnRun<'_, '_> {
    /// Whether the list holds for the run: every failure listed, every judged entry failing.
    pub fn holds(&self) -> bool {
        self.unlisted.is_empty() && self.judged.stale.is_empty()
    }
}

impl KnownFailing {
    /// Judge a run's `results` (`cases`: every case of the suite). A `narrowed` run (by
    /// section or case) judges only the entries of the cases it reports.
    pub fn check_run<'r>(
        &self,
        results: &'r ResultsFile,
        cases: &HashSet<(String, String)>,
        narrowed: bool,
    ) -> OnRun<'_, 'r> {
        let status =
            |s: &str, id: &str| results.sections.get(s)?.get(id)?.get("status")?.as_str().and_then(Status::parse);
        // A narrowed run judges what it ran, and not a skip: a skip under an all-or-none rule is
        // refused only by the other cases of a whole run, so in a narrowed one it may stand
        // where the whole run fails the case.
        let judged = self.judge(
            status,
            |s, id| !narrowed || matches!(status(s, id), Some(Status::Pass | Status::Fail)),
            |s, id| cases.contains(&(s.to_owned(), id.to_owned())),
            |s| cases.iter().any(|(section, _)| section == s),
        );
        let unlisted = results
            .sections
            .iter()
            .flat_map(|(s, c)| c.as_object().into_iter().flatten().map(move |(id, o)| (s.as_str(), id.as_str(), o)))
            .filter(|(s, id, o)| {
                o.get("status").and_then(serde_json::Value::as_str) == Some("fail") && self.lists(s, id).is_none()
            })
            .map(|(s, id, _)| (s, id))
            .collect();
        OnRun { judged, unlisted }
    }
}

/// Every case of `suite`, by section and id (what a list's entries are judged against).
pub fn suite_cases(suite: &crate::suite::Suite) -> HashSet<(String, String)> {
    suite.sections().into_iter().flat_map(|s| s.cases().into_iter().map(move |c| (s.name.to_owned(), c.id))).collect()
}

/// The known-failing list of `results` as a file to start from (`results check
/// --print-known-failing`, as toml-test's `-print-skip`): two comment lines saying whose run it
/// is, then every case the suite has that the file reports failed, in the manifest's order, in
/// the list's own format ([`KnownFailing::parse`] reads it back to the same cases).
pub fn list_of(suite: &crate::suite::Suite, results: &super::view::Results) -> String {
    let failed: HashSet<(&str, &str)> = results
        .sections
        .iter()
        .flat_map(|s| {
            s.cases().iter().filter(|c| c.status == Some(Status::Fail)).map(move |c| (s.name.as_str(), c.id.as_str()))
        })
        .collect();
    // The adapter's names, on one comment line whatever they hold.
    let name = |v: &Option<String>| {
        v.as_deref().map_or_else(|| "?".to_owned(), |v| cut(&v.replace(|c: char| c.is_control(), " ")))
    };
    let mut out = format!(
        "# Known failures of {} {} against suite {} (bqsuite results check --print-known-failing).\n\
         # One case per line, as `bqsuite ids` prints them; take a line out when its case passes.\n",
        terminal_safe(&name(&results.sdk)),
        terminal_safe(&name(&results.version)),
        terminal_safe(&name(&results.conformance_version)),
    );
    for section in suite.sections() {
        for case in section.cases() {
            if failed.contains(&(section.name, case.id.as_str())) {
                out.push_str(&format!("{}\t{}\n", section.name, case.id));
            }
        }
    }
    out
}

/// A name from the list as a message repeats it: at most 200 characters.
fn cut(s: &str) -> String {
    match s.char_indices().nth(200) {
        None => s.to_owned(),
        Some((i, _)) => format!("{}…", &s[..i]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(text: &str) -> KnownFailing {
        KnownFailing::parse("known.txt", text).unwrap()
    }

    #[test]
    fn a_list_is_ids_lines_with_comments_and_blank_lines() {
        let k = list("# waiting for the Kafka client\ncases\torder-created\n\n  idempotency   sequences/a b  \n");
        let got: Vec<_> = k.entries.iter().map(|e| (e.section.as_str(), e.id.as_str(), e.line)).collect();
        assert_eq!(got, [("cases", "order-created", 2), ("idempotency", "sequences/a b", 4)]);
        assert!(k.lists("idempotency", "sequences/a b").is_some());
        assert!(k.lists("cases", "urn-alias").is_none());
        // `#` inside an id (an unnamed case's `<section>#<index>`) is no comment.
        assert_eq!(list("cases cases#3").entries[0].id, "cases#3");
    }

    #[test]
    fn a_line_without_an_id_or_a_case_listed_twice_is_an_error_at_its_line() {
        let e = KnownFailing::parse("k.txt", "cases a\norder-created\n").unwrap_err();
        assert_eq!(
            e,
            "k.txt:2: \"order-created\" names no case: a line is a section and a case id, as `bqsuite ids` prints them"
        );
        let e = KnownFailing::parse("k.txt", "cases a\n# again\ncases   a\n").unwrap_err();
        assert_eq!(e, "k.txt:3: cases / a is listed already on line 1");
    }

    /// User study: a list line written as every message prints a case (`cases /
    /// duplicate-keys-last-wins`, BQ612's form) was read as the id `/ duplicate-keys-last-wins`,
    /// and BQ621 said the suite has no such case beside a BQ612 naming the very string. The
    /// `/` standing alone after the section separates the id; the two forms are one case.
    #[test]
    fn the_form_messages_print_a_case_in_is_the_same_case() {
        let k =
            list("cases / duplicate-keys-last-wins\nidempotency  /  sequences/a b\nsqs\t/\tschema_version_gate/3\n");
        let got: Vec<_> = k.entries.iter().map(|e| (e.section.as_str(), e.id.as_str())).collect();
        assert_eq!(
            got,
            [("cases", "duplicate-keys-last-wins"), ("idempotency", "sequences/a b"), ("sqs", "schema_version_gate/3")]
        );
        // A block's id keeps its `/`: only one standing alone after the section separates.
        assert_eq!(list("idempotency sequences/a").entries[0].id, "sequences/a");
        assert_eq!(list("cases /x").entries[0].id, "/x");
        // One case in either form is one case.
        let e = KnownFailing::parse("k.txt", "cases a\ncases / a\n").unwrap_err();
        assert_eq!(e, "k.txt:2: cases / a is listed already on line 1");
        // A `/` and no id names no case.
        let e = KnownFailing::parse("k.txt", "cases /\n").unwrap_err();
        assert!(e.starts_with("k.txt:1: \"cases /\" names no case"), "{e}");
    }

    /// Red team F1 and F7: a repeated entry's error is terminal-safe (it went to stderr raw, a
    /// carriage return and a workflow command with it); an editor's byte-order mark is no part
    /// of the first entry.
    #[test]
    fn a_repeated_entry_is_told_safely_and_a_byte_order_mark_is_ignored() {
        let e = KnownFailing::parse("k.txt", "cases x\r::error::forged\ncases x\r::error::forged\n").unwrap_err();
        assert!(!e.contains('\r') && e.contains("\\u000d::error::forged"), "{e}");
        let k = list("\u{feff}# a comment\ncases order-created\n");
        assert_eq!(k.entries.len(), 1);
        assert_eq!(list("\u{feff}cases order-created\n").entries[0].section, "cases");
    }

    /// Red team F2: a narrowed run cannot refuse an all-or-none skip, so a listed case it skips
    /// is not judged stale (the whole run fails it); one it passes is.
    #[test]
    fn a_narrowed_run_judges_a_pass_but_not_a_skip() {
        let sections = serde_json::json!({
            "sqs": {"a": {"status": "skip", "reason": "ADR-0032"}, "b": {"status": "pass"}},
        });
        let results = ResultsFile::of_sections(sections);
        let cases: HashSet<(String, String)> =
            [("sqs", "a"), ("sqs", "b")].iter().map(|(s, i)| ((*s).into(), (*i).into())).collect();
        let k = list("sqs a\nsqs b\n");
        let narrowed = k.check_run(&results, &cases, true);
        let stale: Vec<_> = narrowed.judged.stale.iter().map(|(e, why)| (e.id.as_str(), *why)).collect();
        assert_eq!((narrowed.judged.judged, stale), (1, vec![("b", Stale::Passed)]));
        let whole = k.check_run(&results, &cases, false);
        assert_eq!(whole.judged.stale.len(), 2, "a whole run judges the skip too");
    }

    #[test]
    fn every_entry_must_still_fail() {
        let k = list("s failing\ns passing\ns skipped\ns absent\ns ghost\nother not-run\n");
        let status = |_: &str, id: &str| match id {
            "failing" => Some(Status::Fail),
            "passing" => Some(Status::Pass),
            "skipped" => Some(Status::Skip),
            _ => None,
        };
        let exists = |_: &str, id: &str| id != "ghost";
        let judged = k.judge(status, |s, _| s == "s", exists, |s| s == "s");
        assert_eq!(judged.judged, 5, "the entry of a section not run is not judged");
        assert_eq!(judged.still_failing, 1);
        let stale: Vec<_> = judged.stale.iter().map(|(e, why)| (e.id.as_str(), *why)).collect();
        assert_eq!(
            stale,
            [
                ("passing", Stale::Passed),
                ("skipped", Stale::Skipped),
                ("absent", Stale::NotReported),
                ("ghost", Stale::NoSuchCase)
            ]
        );
        let f = k.finding(judged.stale[0].0, Stale::Passed, "results.json");
        assert_eq!(f.code, Code::KNOWN_FAILING_STALE);
        assert_eq!((f.file.as_deref(), f.span.map(|s| s.line)), (Some("known.txt"), Some(2)));
        assert_eq!(
            f.message,
            "s / passing is listed as a known failure, but it passed in results.json: take its line out of the list"
        );
    }

    /// `run --known-failing`: the run holds only when every failure is listed and every entry
    /// judged still fails; the failures the list does not name are told in the results' order;
    /// an entry of a case the suite lacks is told apart from one of a section it lacks.
    #[test]
    fn a_run_holds_only_with_every_failure_listed_and_every_entry_failing() {
        let sections = serde_json::json!({
            "sqs": {"b": {"status": "fail", "reason": "x"}, "a": {"status": "fail", "reason": "y"}, "c": {"status": "pass"}},
            "cases": {"d": {"status": "skip", "reason": "ADR-0032"}, "e": {"status": "fail", "reason": "z"}},
        });
        let results = ResultsFile::of_sections(sections);
        let cases: HashSet<(String, String)> =
            [("sqs", "a"), ("sqs", "b"), ("sqs", "c"), ("cases", "d"), ("cases", "e")]
                .iter()
                .map(|(s, i)| ((*s).into(), (*i).into()))
                .collect();
        let all = list("sqs a\nsqs b\ncases e\n");
        let on = all.check_run(&results, &cases, false);
        assert!(on.unlisted.is_empty() && on.judged.stale.is_empty() && on.holds(), "{on:?}");
        assert_eq!((on.judged.judged, on.judged.still_failing), (3, 3));

        let some = list("sqs a\n");
        let on = some.check_run(&results, &cases, false);
        assert_eq!(on.unlisted, [("sqs", "b"), ("cases", "e")], "a pass or a skip is no failure");
        assert!(!on.holds(), "an unlisted failure");

        let stale = list("sqs a\nsqs b\ncases e\nsqs c\nsqs ghost\nkafka ghost\n");
        let on = stale.check_run(&results, &cases, false);
        assert!(on.unlisted.is_empty());
        let why: Vec<_> = on.judged.stale.iter().map(|(e, why)| (e.section.as_str(), e.id.as_str(), *why)).collect();
        assert_eq!(
            why,
            [
                ("sqs", "c", Stale::Passed),
                ("sqs", "ghost", Stale::NoSuchCase),
                ("kafka", "ghost", Stale::NoSuchSection)
            ]
        );
        assert!(!on.holds(), "a stale entry");
    }
}
