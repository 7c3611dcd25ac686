//! The results model (ADR-0032): what one case gave, how outcomes are counted, and the
//! results file a run writes. The one home of these types: the run (`conformance`) writes
//! them, `results check` and `report` read them back through the lenient [`super::view`].
//!
//! Invariants: a status is one of `pass`, `fail`, `skip` and is spelled that way everywhere;
//! [`Counts`] is the only tally of outcomes (no `[usize; 3]` elsewhere); a [`ResultsFile`]
//! lists sections in the order they were recorded and every case once (a second record of the
//! same id replaces the first), each reason at most [`MAX_REASON`] bytes; `generated_at` is
//! RFC 3339 UTC with a four-digit year, from `SOURCE_DATE_EPOCH` when that is set, so a run can
//! be reproduced byte for byte.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A case's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Skip,
}

impl Status {
    /// Every status, in counting order.
    pub const ALL: [Status; 3] = [Status::Pass, Status::Fail, Status::Skip];

    /// The results-file spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skip => "skip",
        }
    }

    /// The status spelled `s`, if any.
    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// What running one case gave, as written to results.json.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
}

impl Outcome {
    /// The case passed.
    pub fn pass() -> Self {
        Self { status: Status::Pass, reason: None }
    }

    /// The case failed, and why. Every character a reader cannot see for what it is (a
    /// no-break or ideographic space, a zero-width space, a control) is written `\u{XXXX}`
    /// ([`crate::diag::visible`]): a reason often quotes two strings that differ only there.
    pub fn fail(reason: impl Into<String>) -> Self {
        let reason = reason.into();
        let reason = match crate::diag::visible(&reason) {
            std::borrow::Cow::Borrowed(_) => reason,
            std::borrow::Cow::Owned(shown) => shown,
        };
        Self { status: Status::Fail, reason: Some(reason) }
    }

    /// The case does not apply; `reason` must cite the ADR that says so (`ADR-NNNN`).
    pub fn skip(reason: impl Into<String>) -> Self {
        let reason = reason.into();
        debug_assert!(crate::suite::cites_adr(&reason), "a skip reason must cite an ADR: {reason}");
        Self { status: Status::Skip, reason: Some(reason) }
    }
}

/// How many cases passed, failed and were skipped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Counts {
    pub pass: usize,
    pub fail: usize,
    pub skip: usize,
}

impl Counts {
    /// Count one status.
    pub fn add(&mut self, status: Status) {
        match status {
            Status::Pass => self.pass += 1,
            Status::Fail => self.fail += 1,
            Status::Skip => self.skip += 1,
        }
    }

    /// Every counted case.
    pub fn total(&self) -> usize {
        self.pass + self.fail + self.skip
    }
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.pass += o.pass;
        self.fail += o.fail;
        self.skip += o.skip;
    }
}

impl FromIterator<Status> for Counts {
    fn from_iter<I: IntoIterator<Item = Status>>(iter: I) -> Self {
        let mut c = Counts::default();
        iter.into_iter().for_each(|s| c.add(s));
        c
    }
}

impl Counts {
    /// `N pass, N fail, N skip` plus, when there are skips, how many of them the skip policy
    /// allows, or (`None`) that the policy was not applied: a file of another suite version is
    /// judged by none of this suite's rules, so "0 allowed" would say something untrue.
    pub fn text(&self, policy_skips: Option<usize>) -> String {
        let mut t = self.to_string();
        match (self.skip, policy_skips) {
            (0, _) => {}
            (_, Some(n)) => t.push_str(&format!(" ({n} allowed by the skip policy)")),
            (_, None) => t.push_str(" (the skip policy was not applied: the file ran another suite version)"),
        }
        t
    }
}

impl fmt::Display for Counts {
    /// `N pass, N fail, N skip`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} pass, {} fail, {} skip", self.pass, self.fail, self.skip)
    }
}

/// A results.json document, as a run writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultsFile {
    pub sdk: String,
    pub version: String,
    pub conformance_version: String,
    pub generated_at: String,
    pub bindings: Vec<String>,
    /// section → case id → outcome, in the order recorded.
    pub sections: Map<String, Value>,
}

/// The longest reason a results file records, in bytes: a reason is the judge's sentence, but it
/// may quote what the SDK said (an error's message, a skip's reason, a value it returned), and
/// an adapter can say megabytes, which would make a file `results check` refuses to read
/// ([`super::RESULTS_CAP`]). The judge's own reasons stay well below it.
pub const MAX_REASON: usize = 4096;

/// `reason` as a results file records it: cut at a character boundary to at most
/// [`MAX_REASON`] bytes, saying so, when it is longer (and so unchanged when cut again).
pub fn bounded_reason(reason: &str) -> Cow<'_, str> {
    if reason.len() <= MAX_REASON {
        return Cow::Borrowed(reason);
    }
    let note = format!("… (cut: {} bytes in all)", reason.len());
    let mut end = MAX_REASON - note.len();
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    // A cut must not make a citation the reason does not have: `ADR-00321` cut after its fourth
    // digit would read `ADR-0032…` (red team M2 of stop 44: a skip citing nothing allowed).
    // Such a token is dropped whole.
    let kept = &reason[..end];
    if let Some(start) = kept.len().checked_sub(8).filter(|s| kept.is_char_boundary(*s))
        && crate::suite::adr_citations(kept).last().is_some_and(|c| c.as_ptr() == kept[start..].as_ptr())
        && reason[end..].chars().next().is_some_and(crate::suite::joins_a_citation)
    {
        end = start;
    }
    Cow::Owned(format!("{}{note}", &reason[..end]))
}

/// Failed cases that share one reason ([`ResultsFile::failures_by_reason`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failures<'r> {
    /// The reason they give, with the number of the adapter call it names written `call N`
    /// ([`any_call`]) and the case's own name `this case` ([`this_case`]; `None`: none given).
    pub reason: Option<Cow<'r, str>>,
    /// The first case's reason as it is written (its call's own number).
    pub first: Option<&'r str>,
    /// Each case's section and id, in the file's order.
    pub cases: Vec<(&'r str, &'r str)>,
}

/// `reason` with the number of every adapter call it names (`adapter: call 17 (decode)`, as
/// the adapter transport writes it) written `N`: each case's call has its own number, and one
/// fault of an adapter fails many cases alike (one reason per operation it hits). An SDK's own
/// words (`retry call 2 (of 3)`) are kept.
fn any_call(reason: &str) -> Cow<'_, str> {
    const CALL: &str = "adapter: call ";
    if !reason.contains(CALL) {
        return Cow::Borrowed(reason);
    }
    let mut out = String::with_capacity(reason.len());
    let mut rest = reason;
    while let Some(at) = rest.find(CALL) {
        let after = &rest[at + CALL.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        out.push_str(&rest[..at + CALL.len()]);
        if digits > 0 && after[digits..].starts_with(" (") {
            out.push('N');
        } else {
            out.push_str(&after[..digits]);
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// What a failed case's reason says of the adapter run that wrote it ([`failure_kind`]), in
/// the order a reader should look at the cases: the order `results check` lists its failures
/// in, and `run`'s digest its reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FailureKind {
    /// An incident of the adapter hit the case (it crashed, hung, or broke the protocol in one
    /// of the case's calls): the first thing to look at, since it may cost every case after it.
    Incident,
    /// Any other failure: the case's own.
    Own,
    /// A call of the case was not sent after the adapter failed before the case began (its
    /// restarts used up, an operation retired): the case says nothing of its own.
    NotRun,
}

/// The words `bqsuite run --sdk` writes into the reason of a case an adapter's incident hit
/// (`transport: adapter: call N (OP): the adapter …`), of a call not sent after an earlier
/// failure (`transport: not run: WHY`), and the WHY of a call not sent because the adapter
/// failed earlier in the same case (which had the incident). The adapter transport spells them
/// (`adapter::process::{INCIDENT, NOT_RUN, EARLIER_IN_THIS_CASE}`, which this layer does not
/// import); a test in `conformance` holds them equal.
pub const INCIDENT_MARK: &str = "transport: adapter: ";
pub const NOT_RUN_MARK: &str = "transport: not run: ";
pub const EARLIER_IN_THIS_CASE: &str = "the adapter failed earlier in this case";

/// What a failed case's reason says of the adapter run ([`FailureKind`]). A results file has
/// no member for it (the format is frozen): the reason's words are the only mark, so this reads
/// the words `bqsuite run --sdk` writes ([`INCIDENT_MARK`], [`NOT_RUN_MARK`]), wherever in the
/// reason (a section may put the call's context before them), the first of them deciding. A
/// runner of its own that writes other words has every failure [`FailureKind::Own`], and one
/// that writes the same words is read the same: the kind orders findings, it judges nothing.
pub fn failure_kind(reason: Option<&str>) -> FailureKind {
    let Some(reason) = reason else { return FailureKind::Own };
    match (reason.find(INCIDENT_MARK), reason.find(NOT_RUN_MARK)) {
        (Some(i), Some(n)) if i < n => FailureKind::Incident,
        (Some(_), None) => FailureKind::Incident,
        (_, Some(n)) if reason[n + NOT_RUN_MARK.len()..].starts_with(EARLIER_IN_THIS_CASE) => FailureKind::Incident,
        (_, Some(_)) => FailureKind::NotRun,
        (None, None) => FailureKind::Own,
    }
}

/// `reason` with every UUID in it (8-4-4-4-12 hexadecimal digits, not part of a longer word)
/// written `<uuid>`: an SDK that mints a fresh id where it should keep the message's fails
/// every case with a reason of its own otherwise (35 cases, 35 reasons, in a newcomer's run),
/// and one fault should read as one reason.
fn any_uuid(reason: Cow<'_, str>) -> Cow<'_, str> {
    const LEN: usize = 36;
    let is_uuid = |w: &[u8]| {
        w.len() == LEN
            && w.iter().enumerate().all(|(i, b)| match i {
                8 | 13 | 18 | 23 => *b == b'-',
                _ => b.is_ascii_hexdigit(),
            })
    };
    let bytes = reason.as_bytes();
    let word = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_alphanumeric());
    let found: Vec<usize> = (0..bytes.len().saturating_sub(LEN - 1))
        .filter(|&i| is_uuid(&bytes[i..i + LEN]))
        .filter(|&i| !word(i.checked_sub(1).and_then(|j| bytes.get(j))) && !word(bytes.get(i + LEN)))
        .collect();
    if found.is_empty() {
        return reason;
    }
    let mut out = String::with_capacity(reason.len());
    let mut from = 0;
    for at in found {
        out.push_str(&reason[from..at]);
        out.push_str("<uuid>");
        from = at + LEN;
    }
    out.push_str(&reason[from..]);
    Cow::Owned(out)
}

#[cfg(test)]
impl ResultsFile {
    /// A file of these sections (a JSON object), for tests of what is read from them.
    pub(crate) fn of_sections(sections: Value) -> ResultsFile {
        ResultsFile {
            sdk: "s".into(),
            version: "1".into(),
            conformance_version: "1.6.0".into(),
            generated_at: rfc3339(0),
            bindings: Vec::new(),
            sections: sections.as_object().cloned().unwrap_or_default(),
        }
    }
}

/// `reason` (of case `id` of `section`) with the case naming itself (`… allows no skip of
/// kafka_poison job-number`) written `this case`, so that one rule broken in many cases reads
/// as one reason. Only the whole name counts (`cases a` in `cases ab` is another case), and
/// other cases a reason names are kept.
fn this_case<'a>(reason: Cow<'a, str>, section: &str, id: &str) -> Cow<'a, str> {
    let name = format!("{section} {id}");
    if id.is_empty() || !reason.contains(&name) {
        return reason;
    }
    let part_of_a_name = |c: char| c.is_alphanumeric() || "-_/#.".contains(c);
    let mut out = String::with_capacity(reason.len());
    let mut rest: &str = &reason;
    while let Some(at) = rest.find(&name) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + name.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(part_of_a_name) || after.is_some_and(part_of_a_name) {
            out.push_str(&name);
        } else {
            out.push_str("this case");
        }
        rest = &rest[at + name.len()..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

impl ResultsFile {
    /// Record one case, its reason cut to [`MAX_REASON`] bytes.
    pub fn record(&mut self, section: &str, id: &str, outcome: &Outcome) {
        let mut value = serde_json::to_value(outcome).expect("an outcome always serialises");
        if let Some(reason) = outcome.reason.as_deref().filter(|r| r.len() > MAX_REASON) {
            value["reason"] = Value::from(bounded_reason(reason));
        }
        self.section_mut(section).insert(id.to_owned(), value);
    }

    /// The cases of `section`, created empty when it is not there yet.
    pub fn section_mut(&mut self, section: &str) -> &mut Map<String, Value> {
        let entry = self.sections.entry(section.to_owned()).or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        entry.as_object_mut().expect("made an object above")
    }

    /// The tally of one section (or of all sections with `None`). A status this model does not
    /// know counts as a failure, never as a pass.
    pub fn counts(&self, section: Option<&str>) -> Counts {
        self.sections
            .iter()
            .filter(|(name, _)| section.is_none_or(|s| s == name.as_str()))
            .flat_map(|(_, cases)| cases.as_object().into_iter().flat_map(|m| m.values()))
            .map(|o| o.get("status").and_then(Value::as_str).and_then(Status::parse).unwrap_or(Status::Fail))
            .collect()
    }

    /// The failed cases grouped by their reason, the most common reason first (ties in the
    /// order the file lists them): what an SDK's maintainer fixes first. A case without a
    /// reason is grouped under `None`; a status this model does not know is a failure, as in
    /// [`Self::counts`].
    pub fn failures_by_reason(&self) -> Vec<Failures<'_>> {
        let mut groups: Vec<Failures<'_>> = Vec::new();
        let mut index: HashMap<Option<Cow<'_, str>>, usize> = HashMap::new();
        for (section, cases) in &self.sections {
            for (id, o) in cases.as_object().into_iter().flat_map(|m| m.iter()) {
                let status = o.get("status").and_then(Value::as_str).and_then(Status::parse).unwrap_or(Status::Fail);
                if status != Status::Fail {
                    continue;
                }
                let first = o.get("reason").and_then(Value::as_str);
                let reason = first.map(|r| any_uuid(this_case(any_call(r), section, id)));
                let at = *index.entry(reason.clone()).or_insert_with(|| {
                    groups.push(Failures { reason, first, cases: Vec::new() });
                    groups.len() - 1
                });
                groups[at].cases.push((section.as_str(), id.as_str()));
            }
        }
        // A stable sort keeps the file's order among equal counts.
        groups.sort_by_key(|g| std::cmp::Reverse(g.cases.len()));
        groups
    }

    /// Pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        crate::diag::json_text(self)
    }
}

/// The first and the last second a results file's `generated_at` can hold: the results schema
/// asks for a four-digit year, 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
pub const GENERATED_AT_RANGE: std::ops::RangeInclusive<i64> = -62_167_219_200..=253_402_300_799;

/// `SOURCE_DATE_EPOCH`, when it is set and not empty: an integer number of seconds since
/// 1970-01-01T00:00:00Z (`date +%s`; whitespace around it ignored) within
/// [`GENERATED_AT_RANGE`]. `Err` says what is wrong with it (the reproducible-builds
/// specification: a malformed value is an error, never replaced by the clock).
pub fn source_date_epoch() -> Result<Option<i64>, String> {
    parse_source_date_epoch(std::env::var_os("SOURCE_DATE_EPOCH").as_deref())
}

fn parse_source_date_epoch(value: Option<&std::ffi::OsStr>) -> Result<Option<i64>, String> {
    let Some(raw) = value else { return Ok(None) };
    let Some(text) = raw.to_str() else {
        return Err(format!("SOURCE_DATE_EPOCH {raw:?} is not UTF-8: set it to seconds since 1970 (date +%s)"));
    };
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    let digits = trimmed.strip_prefix('-').unwrap_or(trimmed);
    let secs = (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| trimmed.parse::<i64>().ok())
        .flatten()
        .ok_or_else(|| {
            format!(
                "SOURCE_DATE_EPOCH {text:?} is not a whole number of seconds since 1970-01-01T00:00:00Z (date +%s); \
                 set it to one, or unset it for the current time"
            )
        })?;
    if !GENERATED_AT_RANGE.contains(&secs) {
        return Err(format!(
            "SOURCE_DATE_EPOCH {text:?} is outside the years 0000 to 9999 that a results file's generated_at can \
             hold ({} to {} seconds; milliseconds are not seconds)",
            GENERATED_AT_RANGE.start(),
            GENERATED_AT_RANGE.end()
        ));
    }
    Ok(Some(secs))
}

/// Now (or `SOURCE_DATE_EPOCH`, when [`source_date_epoch`] accepts it) as RFC 3339 UTC, second
/// precision.
pub fn generated_at() -> String {
    let secs = source_date_epoch().ok().flatten().unwrap_or_else(|| {
        SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0))
    });
    rfc3339(secs)
}

/// Seconds since the epoch as `YYYY-MM-DDThh:mm:ssZ`.
pub fn rfc3339(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Newcomer B3: one skip refused in 36 cases gave 36 reasons, each naming its own case.
    /// Red team M2 of stop 44: wherever the cut falls, it makes no citation the reason lacks,
    /// and it keeps one the reason has in full before it.
    #[test]
    fn a_cut_reason_cites_what_the_whole_reason_cites_before_the_cut() {
        use crate::suite::cites_adr;
        for pad in 4040..4090 {
            let reason = format!("{}ADR-00321{}", " ".repeat(pad), "z".repeat(5000 - pad - 9));
            assert!(!cites_adr(&bounded_reason(&reason)), "pad {pad}: {}", &bounded_reason(&reason)[4040..]);
            let reason = format!("ADR-0032: {}", "z".repeat(5000));
            assert!(cites_adr(&bounded_reason(&reason)));
        }
    }

    #[test]
    fn a_reason_naming_its_own_case_is_grouped_with_its_kind() {
        let sections = serde_json::json!({
            "kafka_poison": {
                "job-number": {"status": "fail", "reason": "the skip policy allows no skip of kafka_poison job-number"},
                "job-string": {"status": "fail", "reason": "the skip policy allows no skip of kafka_poison job-string"},
                // Another case named, and a longer name that only starts like this one's.
                "a": {"status": "fail", "reason": "kafka_poison a-b ran, and kafka_poison a/x: kafka_poison a"},
            },
        });
        let r = ResultsFile::of_sections(sections);
        let groups = r.failures_by_reason();
        let got: Vec<_> = groups.iter().map(|g| (g.reason.as_deref(), g.cases.len(), g.first)).collect();
        assert_eq!(
            got,
            [
                (
                    Some("the skip policy allows no skip of this case"),
                    2,
                    Some("the skip policy allows no skip of kafka_poison job-number")
                ),
                (
                    Some("kafka_poison a-b ran, and kafka_poison a/x: this case"),
                    1,
                    Some("kafka_poison a-b ran, and kafka_poison a/x: kafka_poison a")
                ),
            ]
        );
    }

    #[test]
    fn failures_are_grouped_by_reason_the_most_common_first() {
        let sections = serde_json::json!({
            "a": {
                "x": {"status": "fail", "reason": "one"},
                "y": {"status": "pass"},
                "z": {"status": "fail", "reason": "two"},
            },
            "b": {
                "p": {"status": "fail", "reason": "two"},
                "q": {"status": "skip", "reason": "ADR-0033: no Redis"},
                "r": {"status": "fail"},
                "s": {"status": "broken", "reason": "one"},
                "t": {"status": "fail", "reason": "three"},
            },
        });
        let r = ResultsFile::of_sections(sections);
        let got: Vec<_> = r.failures_by_reason().into_iter().map(|g| (g.reason, g.cases)).collect();
        assert_eq!(
            got,
            vec![
                // Two each: "one" (an unknown status fails too) before "two", the file's order.
                (Some("one".into()), vec![("a", "x"), ("b", "s")]),
                (Some("two".into()), vec![("a", "z"), ("b", "p")]),
                (None, vec![("b", "r")]),
                (Some("three".into()), vec![("b", "t")]),
            ]
        );
        // One fault of an adapter, each case at its own call: one reason.
        let sections = serde_json::json!({"a": {
            "x": {"status": "fail", "reason": "adapter: call 3 (decode): the adapter exited (exit status: 3) before answering"},
            "y": {"status": "fail", "reason": "adapter: call 17 (decode): the adapter exited (exit status: 3) before answering"},
            "z": {"status": "fail", "reason": "a call 5 times"},
            "w": {"status": "fail", "reason": "the SDK failed: retry call 2 (of 3)"},
        }});
        let r = ResultsFile { sections: sections.as_object().unwrap().clone(), ..r };
        let groups = r.failures_by_reason();
        assert_eq!(
            groups[0].first,
            Some("adapter: call 3 (decode): the adapter exited (exit status: 3) before answering")
        );
        let got: Vec<_> = groups.into_iter().map(|g| (g.reason, g.cases.len())).collect();
        assert_eq!(
            got,
            vec![
                (Some("adapter: call N (decode): the adapter exited (exit status: 3) before answering".into()), 2),
                (Some("a call 5 times".into()), 1),
                (Some("the SDK failed: retry call 2 (of 3)".into()), 1),
            ]
        );
        // An SDK that mints a fresh id per case: one reason (helper 60's run: 35 reasons).
        let sections = serde_json::json!({"a": {
            "x": {"status": "fail", "reason": "meta.id is \"0b9f6a2e-1c3d-4e5f-8a7b-9c0d1e2f3a4b\", not the input's"},
            "y": {"status": "fail", "reason": "meta.id is \"7E1A9C3B-2D4F-4A6B-8C0D-1E2F3A4B5C6D\", not the input's"},
            "z": {"status": "fail", "reason": "id x0b9f6a2e-1c3d-4e5f-8a7b-9c0d1e2f3a4b and 0b9f6a2e-1c3d-4e5f-8a7b-9c0d1e2f3a4"},
        }});
        let r = ResultsFile { sections: sections.as_object().unwrap().clone(), ..r };
        let got: Vec<_> = r.failures_by_reason().into_iter().map(|g| (g.reason, g.cases.len())).collect();
        assert_eq!(
            got,
            vec![
                (Some("meta.id is \"<uuid>\", not the input's".into()), 2),
                (Some("id x0b9f6a2e-1c3d-4e5f-8a7b-9c0d1e2f3a4b and 0b9f6a2e-1c3d-4e5f-8a7b-9c0d1e2f3a4".into()), 1),
            ]
        );
        let none = ResultsFile { sections: Map::new(), ..r };
        assert!(none.failures_by_reason().is_empty());
    }

    #[test]
    fn a_reason_is_cut_at_a_character_boundary_and_says_so() {
        let mut r = ResultsFile {
            sdk: "s".into(),
            version: "1".into(),
            conformance_version: "1.6.0".into(),
            generated_at: rfc3339(0),
            bindings: Vec::new(),
            sections: Map::new(),
        };
        let short = "x".repeat(MAX_REASON);
        r.record("a", "short", &Outcome::fail(short.clone()));
        assert_eq!(r.sections["a"]["short"]["reason"], short.as_str());
        // Two-byte characters, so the cut falls inside one and moves back.
        let long = format!("y{}", "é".repeat(MAX_REASON));
        r.record("a", "long", &Outcome::fail(long.clone()));
        let got = r.sections["a"]["long"]["reason"].as_str().unwrap();
        let note = format!("… (cut: {} bytes in all)", long.len());
        let kept = got.strip_suffix(&note).expect(got);
        assert!(got.len() <= MAX_REASON && got.len() >= MAX_REASON - 1, "{}", got.len());
        assert!(long.starts_with(kept));
        assert_eq!(bounded_reason(got), got, "cut once, it stays as it is");
        r.record("a", "pass", &Outcome::pass());
        assert_eq!(r.sections["a"]["pass"], serde_json::json!({"status": "pass"}));
    }

    #[test]
    fn rfc3339_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_749_132_727), "2025-06-05T14:12:07Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59Z");
        assert_eq!(rfc3339(*GENERATED_AT_RANGE.start()), "0000-01-01T00:00:00Z");
        assert_eq!(rfc3339(*GENERATED_AT_RANGE.end()), "9999-12-31T23:59:59Z");
    }

    #[test]
    fn source_date_epoch_is_seconds_a_results_file_can_hold() {
        let parse = |s: &str| parse_source_date_epoch(Some(std::ffi::OsStr::new(s)));
        assert_eq!(parse_source_date_epoch(None), Ok(None));
        assert_eq!(parse(""), Ok(None), "empty is unset");
        assert_eq!(parse(" \n"), Ok(None));
        assert_eq!(parse("1764489600"), Ok(Some(1_764_489_600)));
        assert_eq!(parse(" 1764489600\n"), Ok(Some(1_764_489_600)));
        assert_eq!(parse("-1"), Ok(Some(-1)));
        assert_eq!(parse("0"), Ok(Some(0)));
        for bad in ["+1", "1.5", "1e9", "0x10", "- 1", "-", "12 34", "soon", "99999999999999999999"] {
            assert!(parse(bad).unwrap_err().contains("not a whole number"), "{bad}");
        }
        for far in ["253402300800", "-62167219201", "1764489600000"] {
            assert!(parse(far).unwrap_err().contains("outside the years 0000 to 9999"), "{far}");
        }
    }

    #[test]
    fn counts_tally_and_an_unknown_status_is_a_failure() {
        let mut r = ResultsFile {
            sdk: "x".into(),
            version: "1".into(),
            conformance_version: "1.6.0".into(),
            generated_at: rfc3339(0),
            bindings: vec![],
            sections: Map::new(),
        };
        r.record("a", "1", &Outcome::pass());
        r.record("a", "2", &Outcome::fail("no"));
        r.record("b", "3", &Outcome::skip("ADR-0033"));
        r.section_mut("b").insert("4".into(), serde_json::json!({"status": "passed"}));
        assert_eq!(r.counts(Some("a")), Counts { pass: 1, fail: 1, skip: 0 });
        assert_eq!(r.counts(None), Counts { pass: 1, fail: 2, skip: 1 });
        assert_eq!(r.counts(None).to_string(), "1 pass, 2 fail, 1 skip");
        assert_eq!(r.counts(None).total(), 4);
        assert_eq!(Status::parse("skip"), Some(Status::Skip));
        assert_eq!(Status::parse("Skip"), None);
    }
}
