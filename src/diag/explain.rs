//! What each finding code means: its severity, what it checks, why it matters and a minimal
//! example that triggers it, for `bqsuite explain` and the code reference of `bqsuite docs`.
//!
//! Invariants:
//! - Every code of [`super::ALL_CODES`] has exactly one [`Explain`], written beside the code's
//!   definition in `codes.rs` (one table, one macro), so a code cannot be added without its text.
//! - An example is data, not prose: a command over a named starting point (a copy of the
//!   canonical suite, the results file `bqsuite run` writes, a sync root, a vendored copy of the
//!   release) changed by a list of [`Edit`]s. `tests/explain.rs` executes every example and
//!   requires that it yields its code at the explanation's severity, so an example that stops
//!   triggering its code fails the tests; the text shown here is rendered from the same data.
//! - Edit texts may hold the templates `{version}` (the suite's version), `{next-patch}`,
//!   `{next-minor}` (that version bumped, pre-release dropped) and `{nest:N}` (an array nested
//!   N levels deep); [`expand`] gives the bytes a test writes and [`shown`] the text a reader
//!   sees. A pointer segment `[NAME]` stands for the element of that array whose `name` is
//!   NAME, so an example keeps naming the same case when cases are added before it.
//! - Families ([`FAMILIES`]) are ranges of code ids, in numeric order, covering every code;
//!   they group `explain --list` and the docs page.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{Code, Severity};

/// One code's explanation.
#[derive(Debug)]
pub struct Explain {
    pub code: Code,
    /// The severity its findings have.
    pub severity: Severity,
    /// When its findings have the other severity, if they ever do.
    pub otherwise: Option<&'static str>,
    /// What the check looks at and when it reports.
    pub checks: &'static str,
    /// Why a finding of it matters.
    pub why: &'static str,
    pub example: Example,
    /// The commands that report it, where those are fewer than its family's (BQ959: `release`,
    /// not `validate --against`).
    pub only: Option<&'static [&'static str]>,
}

/// A minimal way to get a finding of a code: a command over a starting point, after edits.
#[derive(Debug)]
pub enum Example {
    /// `bqsuite validate` in a copy of the canonical suite.
    Validate(&'static [Edit]),
    /// `bqsuite validate --against ../previous` in a copy of the canonical suite, where
    /// `../previous` is a second copy standing for the previous release.
    Gate { previous: &'static [Edit], current: &'static [Edit] },
    /// `bqsuite release --out dist` in a copy of the canonical suite outside any git repository.
    Release(&'static [Edit]),
    /// `bqsuite validate --gate` in a copy of the canonical suite committed to a fresh git
    /// repository and tagged `v{version}`: the version is already released.
    Tagged(&'static [Edit]),
    /// `bqsuite release --no-previous --out dist` in a copy of the canonical suite committed to a
    /// fresh git repository without a tag: nothing but `HEAD` vouches for the release files.
    Committed(&'static [Edit]),
    /// `bqsuite results check results.json ARGS`, where `results.json` is the file `bqsuite run`
    /// writes for the canonical suite (the reference core, no Redis).
    Results { edits: &'static [Edit], args: &'static [&'static str] },
    /// `bqsuite sync ARGS --root ROOT --only php-sdk babelqueue-python`, where ROOT holds the
    /// git repositories `php-sdk` and `babelqueue-python`, each with an exact copy of the
    /// canonical suite at `tests/conformance` and a workflow `.github/workflows/ci.yml` that
    /// clones the suite with `--branch v{version}`, all committed.
    Sync { edits: &'static [Edit], args: &'static [&'static str] },
    /// `bqsuite sync --check --root ROOT --only php-sdk`, where the canonical suite is committed
    /// to a fresh git repository and tagged `v{version}`, then bumped to `{next-minor}`, and ROOT
    /// holds the git repository `php-sdk` with an exact copy of release `{version}` at
    /// `tests/conformance` and a workflow that clones the suite with `--branch v{version}`, all
    /// committed: a copy one release behind.
    Upgrade(&'static [Edit]),
    /// `bqsuite fetch --check {version} copy`, where `copy` is the release asset of the
    /// canonical suite unpacked by `bqsuite fetch`.
    Fetch(&'static [Edit]),
    /// `bqsuite docs --check` in a copy of the canonical suite with the repository's README.md
    /// and docs/ as committed.
    Docs(&'static [Edit]),
}

/// One change to the starting point of an example; paths are relative to it.
#[derive(Debug)]
pub enum Edit {
    /// Set the value at the pointer (a member is added, `-` appends to an array) to the JSON text.
    Set(&'static str, &'static str, &'static str),
    /// Remove the member or element at the pointer.
    Remove(&'static str, &'static str),
    /// Replace the first occurrence of the text (which must occur) by the second.
    Replace(&'static str, &'static str, &'static str),
    /// Write the file with this text (created, with its directories, or replaced).
    Write(&'static str, &'static str),
    /// Write the file with these bytes.
    WriteBytes(&'static str, &'static [u8]),
    /// Delete the file or directory.
    Delete(&'static str),
    /// Replace the path by a symbolic link to the target.
    Symlink(&'static str, &'static str),
    /// Replace the path by a FIFO (a named pipe).
    Fifo(&'static str),
    /// Replace the path by a (sparse) file of this many bytes.
    Grow(&'static str, u64),
}

impl Explain {
    /// The commands that report this code: its family's, unless it names fewer.
    pub fn commands(&self) -> &'static [&'static str] {
        self.only.unwrap_or(family_of(self.code).commands)
    }
}

/// A family of codes: a range of ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Family {
    pub first: &'static str,
    pub last: &'static str,
    pub title: &'static str,
    /// The commands that report them (`bqsuite` subcommands).
    pub commands: &'static [&'static str],
}

/// Every family, in numeric order.
pub const FAMILIES: &[Family] = &[
    Family { first: "BQ001", last: "BQ099", title: "Files", commands: &["validate"] },
    Family { first: "BQ101", last: "BQ199", title: "The manifest's top level", commands: &["validate"] },
    Family { first: "BQ201", last: "BQ207", title: "Sections, scopes and exceptions", commands: &["validate"] },
    Family { first: "BQ208", last: "BQ217", title: "The skip policy", commands: &["validate"] },
    Family { first: "BQ218", last: "BQ299", title: "The contract's family exceptions", commands: &["validate"] },
    Family { first: "BQ301", last: "BQ304", title: "Cases and fixtures", commands: &["validate"] },
    Family { first: "BQ305", last: "BQ308", title: "Reading the cases of every section", commands: &["validate"] },
    Family {
        first: "BQ309",
        last: "BQ399",
        title: "The registry, the reference agreement and the suite's power",
        commands: &["validate"],
    },
    Family { first: "BQ401", last: "BQ499", title: "Schemas", commands: &["validate"] },
    Family { first: "BQ501", last: "BQ510", title: "Compatibility with the real SDK runners", commands: &["validate"] },
    Family { first: "BQ511", last: "BQ599", title: "Names in case ids", commands: &["validate"] },
    Family { first: "BQ601", last: "BQ699", title: "Results files", commands: &["results check"] },
    Family { first: "BQ701", last: "BQ705", title: "The sync targets", commands: &["validate", "sync"] },
    Family { first: "BQ706", last: "BQ799", title: "Vendored copies and CI pins", commands: &["sync"] },
    Family { first: "BQ801", last: "BQ819", title: "Envelope behaviour sections", commands: &["validate"] },
    Family { first: "BQ820", last: "BQ839", title: "Core helper sections", commands: &["validate"] },
    Family { first: "BQ840", last: "BQ859", title: "Broker binding sections", commands: &["validate"] },
    Family { first: "BQ860", last: "BQ899", title: "The Redis case language", commands: &["validate"] },
    Family {
        first: "BQ900",
        last: "BQ949",
        title: "A vendored copy against its release",
        commands: &["fetch --check"],
    },
    Family { first: "BQ950", last: "BQ959", title: "The release gate", commands: &["release", "validate --against"] },
    Family { first: "BQ960", last: "BQ969", title: "The docs", commands: &["docs --check"] },
];

impl Family {
    /// The commands in words: `` `bqsuite a` and `bqsuite b` ``.
    pub fn reported_by(&self) -> String {
        reported_by(self.commands)
    }
}

/// `commands` as a sentence names them: "`bqsuite release` and `bqsuite validate --against`".
fn reported_by(commands: &[&str]) -> String {
    commands.iter().map(|c| format!("`bqsuite {c}`")).collect::<Vec<_>>().join(" and ")
}

/// The family `code` belongs to.
pub fn family_of(code: Code) -> &'static Family {
    FAMILIES
        .iter()
        .find(|f| f.first <= code.id && code.id <= f.last)
        .unwrap_or_else(|| panic!("{} is in no family of diag::explain::FAMILIES", code.id))
}

/// The codes of `family`, in numeric order.
pub fn codes_of(family: &Family) -> impl Iterator<Item = Code> + '_ {
    super::ALL_CODES.iter().copied().filter(|c| family.first <= c.id && c.id <= family.last)
}

/// The code a user typed: `BQ612`, `bq612`, `612` or its name `results-case-failed`.
pub fn lookup(text: &str) -> Option<Code> {
    super::ALL_CODES.iter().copied().find(|c| names(text, c.id, c.name))
}

/// The retired code `text` names (by id or name, as [`lookup`] reads it).
pub fn lookup_retired(text: &str) -> Option<&'static super::Retired> {
    super::RETIRED.iter().find(|r| names(text, r.id, r.name))
}

/// Does `text` name the code `id` / `name`: its id (BQ612, bq612, 612) or its name, in any
/// letter case, white space around it ignored?
fn names(text: &str, id: &str, name: &str) -> bool {
    let t = text.trim();
    let digits = t.strip_prefix("BQ").or_else(|| t.strip_prefix("bq")).unwrap_or(t);
    (digits.len() == 3 && id[2..] == *digits) || name.eq_ignore_ascii_case(t)
}

/// The codes that make a retired code's checks now.
pub fn successors(r: &super::Retired) -> Vec<Code> {
    r.successors.iter().filter_map(|id| lookup(id)).collect()
}

/// A retired code, as terminal text: what it reported and which codes make its checks now.
pub fn render_retired_text(r: &super::Retired, color: bool) -> String {
    use super::style::{EMPHASIS, paint};
    let mut out = String::new();
    let _ = writeln!(out, "{} {}", paint(EMPHASIS, r.id, color), paint(EMPHASIS, r.name, color));
    let _ = writeln!(out, "{}", r.summary);
    let _ =
        writeln!(out, "\nstatus:   retired: no longer reported; its id and name are never given to another finding");
    let _ = writeln!(out, "\n{}", paint(EMPHASIS, "Its checks are now made by", color));
    for c in successors(r) {
        let _ = writeln!(out, "  {} {}: {}", c.id, c.name, c.summary);
    }
    let _ = writeln!(out, "\n`bqsuite explain {}` explains the first of them.", r.successors[0]);
    out
}

/// A retired code, as JSON.
pub fn render_retired_json(r: &super::Retired) -> Value {
    json!({
        "code": r.id,
        "name": r.name,
        "summary": r.summary,
        "retired": true,
        "successors": successors(r).iter().map(|c| json!({"code": c.id, "name": c.name})).collect::<Vec<_>>(),
    })
}

/// The severity as a word.
pub fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A version bumped: `(major, minor, patch)` from `X.Y.Z[-pre]`.
fn parts(version: &str) -> (u64, u64, u64) {
    let core = version.split(['-', '+']).next().unwrap_or_default();
    let mut it = core.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    (it.next().unwrap_or(0), it.next().unwrap_or(0), it.next().unwrap_or(0))
}

/// The templates of `text` replaced for writing (see the module invariants).
pub fn expand(text: &str, version: &str) -> String {
    substitute(text, version, |n| format!("{}{}", "[".repeat(n), "]".repeat(n)))
}

/// The templates of `text` replaced for reading: a nesting is described, not spelled out.
pub fn shown(text: &str, version: &str) -> String {
    substitute(text, version, |n| format!("[[…]] ({n} levels deep)"))
}

fn substitute(text: &str, version: &str, nest: impl Fn(usize) -> String) -> String {
    let (major, minor, patch) = parts(version);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let end = tail.find('}').map(|e| e + 1);
        let word = end.map(|e| &tail[1..e - 1]);
        let replaced = match word {
            Some("version") => Some(version.to_owned()),
            Some("next-patch") => Some(format!("{major}.{minor}.{}", patch + 1)),
            Some("next-minor") => Some(format!("{major}.{}.0", minor + 1)),
            Some(w) => w.strip_prefix("nest:").and_then(|n| n.parse().ok()).map(&nest),
            None => None,
        };
        match (replaced, end) {
            (Some(r), Some(e)) => {
                out.push_str(&r);
                rest = &tail[e..];
            }
            _ => {
                out.push('{');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A text shown in a code span: control and invisible characters escaped, long text cut.
fn span(text: &str) -> String {
    let mut s = String::new();
    for c in text.chars() {
        match c {
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            '\r' => s.push_str("\\r"),
            c if super::is_hidden(c) => {
                let _ = write!(s, "\\u{{{:04x}}}", c as u32);
            }
            c => s.push(c),
        }
    }
    if s.chars().count() > 100 {
        s = s.chars().take(99).collect::<String>() + "…";
    }
    code_span(&s)
}

/// `text` as a Markdown code span: fenced with more backticks than any run inside it, padded
/// with a space when it starts or ends with a backtick.
pub fn code_span(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

impl Edit {
    /// The edit in words, with code spans (`version` fills the templates).
    pub fn describe(&self, version: &str) -> String {
        let t = |text: &str| span(&shown(text, version));
        match *self {
            Edit::Set(file, ptr, json) => format!("{}: set {} to {}", t(file), t(ptr), t(json)),
            Edit::Remove(file, ptr) => format!("{}: remove {}", t(file), t(ptr)),
            Edit::Replace(file, from, to) => format!("{}: replace {} with {}", t(file), t(from), t(to)),
            Edit::Write(file, text) => format!("write {} with {}", t(file), t(text)),
            Edit::WriteBytes(file, bytes) => {
                let text: String = bytes
                    .iter()
                    .map(|&b| {
                        if b.is_ascii() && !b.is_ascii_control() {
                            char::from(b).to_string()
                        } else {
                            format!("\\x{b:02x}")
                        }
                    })
                    .collect();
                format!("write {} with the bytes {}", t(file), span(&text))
            }
            Edit::Delete(path) => format!("delete {}", t(path)),
            Edit::Symlink(path, target) => format!("make {} a symbolic link to {}", t(path), t(target)),
            Edit::Fifo(path) => format!("make {} a FIFO (named pipe)", t(path)),
            Edit::Grow(path, len) => format!("make {} a file of {len} bytes", t(path)),
        }
    }
}

impl Example {
    /// The command the example runs.
    pub fn command(&self) -> String {
        match self {
            Example::Validate(_) => "bqsuite validate".into(),
            Example::Gate { .. } => "bqsuite validate --against ../previous".into(),
            Example::Release(_) => "bqsuite release --out dist".into(),
            Example::Tagged(_) => "bqsuite validate --gate".into(),
            Example::Committed(_) => "bqsuite release --no-previous --out dist".into(),
            Example::Results { args, .. } => join(&["bqsuite results check results.json"], args),
            Example::Sync { args, .. } => {
                join(&["bqsuite sync"], args) + " --root ROOT --only php-sdk babelqueue-python"
            }
            Example::Upgrade(_) => "bqsuite sync --check --root ROOT --only php-sdk".into(),
            Example::Fetch(_) => "bqsuite fetch --check {version} copy".into(),
            Example::Docs(_) => "bqsuite docs --check".into(),
        }
    }

    /// Where it runs, in words (with code spans).
    pub fn setting(&self) -> &'static str {
        match self {
            Example::Validate(_) => "in a copy of the canonical suite",
            Example::Gate { .. } => {
                "in a copy of the canonical suite, where `../previous` is a second copy standing for the previous release"
            }
            Example::Release(_) => "in a copy of the canonical suite outside any git repository (so no `v*` tag)",
            Example::Tagged(_) => {
                "in a copy of the canonical suite committed to a fresh git repository and tagged `v{version}` (so the \
                 version is already released)"
            }
            Example::Committed(_) => {
                "in a copy of the canonical suite committed to a fresh git repository without a tag (so nothing but \
                 `HEAD` vouches for the release files)"
            }
            Example::Results { .. } => {
                "where `results.json` is the file `bqsuite run` writes for the canonical suite (the reference core, no Redis)"
            }
            Example::Sync { .. } => {
                "where ROOT holds the SDK git repositories `php-sdk` and `babelqueue-python`, each with an exact copy of the suite \
                 at `tests/conformance` and a workflow `.github/workflows/ci.yml` that clones the suite with `--branch \
                 v{version}`, all committed"
            }
            Example::Upgrade(_) => {
                "where the canonical suite is committed to a fresh git repository, tagged `v{version}` and then bumped \
                 to `{next-minor}`, and ROOT holds the SDK git repository `php-sdk` with an exact copy of release \
                 `{version}` at `tests/conformance` and a workflow `.github/workflows/ci.yml` that clones the suite with \
                 `--branch v{version}`, all committed"
            }
            Example::Fetch(_) => "where `copy` is the suite's release asset as `bqsuite fetch` unpacked it",
            Example::Docs(_) => {
                "in a copy of the canonical suite with the repository's `README.md` and `docs/` as committed"
            }
        }
    }

    /// Every edit with the part of the setting it applies to: `(label, edits)`; paths are
    /// relative to that part.
    pub fn edits(&self) -> Vec<(&'static str, &'static [Edit])> {
        match *self {
            Example::Validate(e)
            | Example::Release(e)
            | Example::Tagged(e)
            | Example::Committed(e)
            | Example::Docs(e) => {
                vec![("the copy", e)]
            }
            Example::Gate { previous, current } => vec![("../previous", previous), ("the copy", current)],
            Example::Results { edits, .. } => vec![("results.json", edits)],
            Example::Sync { edits, .. } | Example::Upgrade(edits) => vec![("ROOT", edits)],
            Example::Fetch(e) => vec![("copy", e)],
        }
    }

    /// The example as a list of lines: the command and where it runs, then each change (an
    /// item line starts with `- `, indented under its heading).
    pub fn lines(&self, version: &str) -> Vec<String> {
        let mut out = vec![format!("`{}` {},", shown(&self.command(), version), shown(self.setting(), version))];
        let parts: Vec<_> = self.edits().into_iter().filter(|(_, e)| !e.is_empty()).collect();
        match parts.as_slice() {
            [] => out.push("as it is.".into()),
            [(_, edits)] if !matches!(self, Example::Gate { .. }) => {
                out.push("after these changes:".into());
                out.extend(edits.iter().map(|e| format!("  - {}", e.describe(version))));
            }
            _ => {
                for (label, edits) in parts {
                    let label =
                        if label.contains('/') || label.contains('.') { code_span(label) } else { label.to_owned() };
                    out.push(format!("after these changes to {label}:"));
                    out.extend(edits.iter().map(|e| format!("  - {}", e.describe(version))));
                }
            }
        }
        out
    }
}

fn join(head: &[&str], args: &[&str]) -> String {
    head.iter().chain(args).copied().collect::<Vec<_>>().join(" ")
}

/// The explanation of one code as terminal text (`version` fills the example's templates).
pub fn render_text(e: &Explain, version: &str, color: bool) -> String {
    use super::style::{EMPHASIS, paint};
    let mut out = String::new();
    let family = family_of(e.code);
    let _ = writeln!(out, "{} {}", paint(EMPHASIS, e.code.id, color), paint(EMPHASIS, e.code.name, color));
    let _ = writeln!(out, "{}", e.code.summary);
    let _ = writeln!(out);
    let sev = match e.otherwise {
        Some(other) => format!("{}; {other}", severity_word(e.severity)),
        None => severity_word(e.severity).to_owned(),
    };
    let _ = writeln!(out, "severity: {sev}");
    let _ = write!(
        out,
        "family:   {} ({}–{}), reported by {}",
        family.title,
        family.first,
        family.last,
        family.reported_by()
    );
    if e.only.is_some() {
        let _ = write!(out, "; this code by {} only", reported_by(e.commands()));
    }
    out.push('\n');
    for (title, text) in [("What it checks", e.checks), ("Why it matters", e.why)] {
        let _ = writeln!(out, "\n{}", paint(EMPHASIS, title, color));
        for line in wrap(text, 96) {
            let _ = writeln!(out, "  {line}");
        }
    }
    let _ = writeln!(out, "\n{}", paint(EMPHASIS, "Example", color));
    for line in e.example.lines(version) {
        let indent = line.len() - line.trim_start().len();
        let wrapped = wrap(line.trim_start(), 96 - indent);
        for (i, w) in wrapped.iter().enumerate() {
            let pad = if i == 0 { indent } else { indent + 4 };
            let _ = writeln!(out, "  {}{w}", " ".repeat(pad));
        }
    }
    let _ = writeln!(out, "  gives {} at severity {}.", e.code.id, severity_word(e.severity));
    out
}

/// The explanation of one code as JSON.
pub fn render_json(e: &Explain, version: &str) -> Value {
    let family = family_of(e.code);
    json!({
        "code": e.code.id,
        "name": e.code.name,
        "summary": e.code.summary,
        "severity": severity_word(e.severity),
        "otherwise": e.otherwise,
        "family": family.title,
        "reported_by": e.commands().iter().map(|c| format!("bqsuite {c}")).collect::<Vec<_>>(),
        "checks": e.checks,
        "why": e.why,
        "example": {
            "command": shown(&e.example.command(), version),
            "setting": shown(e.example.setting(), version),
            "edits": e.example.edits().iter().flat_map(|(label, edits)| {
                edits.iter().map(move |x| json!({"in": label, "edit": x.describe(version)}))
            }).collect::<Vec<_>>(),
        },
    })
}

/// Every code by family, as terminal text.
pub fn render_list(color: bool) -> String {
    use super::style::{EMPHASIS, paint};
    let mut out = String::new();
    for f in FAMILIES {
        let codes: Vec<Code> = codes_of(f).collect();
        if codes.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "{} ({}–{}, reported by {})",
            paint(EMPHASIS, f.title, color),
            f.first,
            f.last,
            f.reported_by()
        );
        for c in codes {
            let sev = severity_word(c.explain().severity);
            let _ = writeln!(out, "  {} {:<34} {:<7} {}", c.id, c.name, sev, c.summary);
        }
        out.push('\n');
    }
    out.push_str("`bqsuite explain CODE` tells what a code checks, why it matters and how to trigger it.\n");
    out
}

/// Every code by family, as JSON.
pub fn render_list_json() -> Value {
    Value::Array(
        FAMILIES
            .iter()
            .filter(|f| codes_of(f).next().is_some())
            .map(|f| {
                json!({
                    "family": f.title,
                    "first": f.first,
                    "last": f.last,
                    "reported_by": f.commands.iter().map(|c| format!("bqsuite {c}")).collect::<Vec<_>>(),
                    "codes": codes_of(f).map(|c| json!({
                        "code": c.id,
                        "name": c.name,
                        "severity": severity_word(c.explain().severity),
                        "summary": c.summary,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

/// `text` broken into lines of at most `width` characters at spaces (a longer word stays whole).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_family_and_the_families_are_ordered_and_disjoint() {
        for w in FAMILIES.windows(2) {
            assert!(w[0].first <= w[0].last && w[0].last < w[1].first, "{w:?}");
        }
        for c in super::super::ALL_CODES {
            family_of(*c);
        }
    }

    #[test]
    fn every_explanation_says_something() {
        for c in super::super::ALL_CODES {
            let e = c.explain();
            assert_eq!(e.code, *c);
            for (what, text) in [("checks", e.checks), ("why", e.why)] {
                assert!(text.len() > 20 && text.ends_with('.'), "{}: {what} is a sentence or more: {text:?}", c.id);
            }
        }
    }

    #[test]
    fn templates_expand_for_writing_and_for_reading() {
        assert_eq!(expand("v{version} {next-patch} {next-minor}", "1.6.0-pre"), "v1.6.0-pre 1.6.1 1.7.0");
        assert_eq!(expand("x{nest:2}y {other} {", "1.0.0"), "x[[]]y {other} {");
        assert_eq!(shown("{nest:600}", "1.0.0"), "[[…]] (600 levels deep)");
    }

    #[test]
    fn lookup_takes_the_id_in_any_case_the_number_or_the_name() {
        for t in ["BQ612", "bq612", "612", "results-case-failed", " BQ612 "] {
            assert_eq!(lookup(t).map(|c| c.id), Some("BQ612"), "{t}");
        }
        assert_eq!(lookup("BQ999"), None);
        assert_eq!(lookup("61"), None);
    }

    #[test]
    fn spans_show_invisible_characters() {
        assert_eq!(span("a\u{feff}b\n"), "`a\\u{feff}b\\n`");
    }
}
