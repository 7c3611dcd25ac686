//! Rendering a [`Diff`]: human text, JSON, and Markdown for a pull-request comment or an SDK's
//! upgrade notes.
//!
//! Invariants: renderers never re-read a side or recompute a change; they show the changes in
//! the diff's order, grouped by scope (the scopes in the spec's order, then any other scope,
//! then the suite-wide changes and files), and within a scope consecutive changes of one kind,
//! class and block are one group. The smallest bump shown is always the whole suite's, also
//! when a scope filter hides some changes. In Markdown every name from a manifest is a code
//! span and every other string is escaped ([`crate::diag::markdown_text`]); JSON values sit in
//! fenced blocks whose fence is longer than any backtick run inside.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{Bump, Change, Class, Diff, Edit, Kind, Op, VersionOrder};
use crate::diag::{markdown_code as code, markdown_text as text};
use crate::suite::Scope;

/// What to show.
#[derive(Debug, Clone, Default)]
pub struct View {
    /// Only changes for an SDK carrying these scopes (`None`: everything).
    pub scopes: Option<BTreeSet<String>>,
    /// The bindings asked for (`--bindings`): the filter is what an SDK carrying them must
    /// implement, the core sections included.
    pub bindings: Vec<String>,
    /// The scopes asked for (`--scope`): the filter keeps the sections of those scopes only.
    pub only: Vec<String>,
}

impl View {
    /// The line that says what the filter shows, `name` wrapping each scope; `None` unfiltered.
    fn says(&self, name: &dyn Fn(&str) -> String) -> Option<String> {
        self.scopes.as_ref()?;
        let list = |v: &[String]| v.iter().map(|s| name(s)).collect::<Vec<_>>().join(", ");
        let scope = |v: &[String]| if v.len() == 1 { "scope" } else { "scopes" };
        Some(match (self.bindings.is_empty(), self.only.is_empty()) {
            (false, true) => {
                format!("what an SDK carrying {} must implement (the core sections and theirs)", list(&self.bindings))
            }
            (false, false) => format!(
                "what an SDK carrying {} must implement (the core sections and theirs), and the sections of {} {}",
                list(&self.bindings),
                scope(&self.only),
                list(&self.only)
            ),
            _ => format!(
                "only the changes in sections of {} {}, and the suite-wide ones (metadata, schemas, and fixtures \
                 their cases or none read)",
                scope(&self.only),
                list(&self.only)
            ),
        })
    }
}

/// A run of changes shown together.
struct Group<'a> {
    changes: Vec<&'a Change>,
}

impl Group<'_> {
    fn first(&self) -> &Change {
        self.changes[0]
    }

    fn ids(&self) -> Vec<String> {
        self.changes.iter().flat_map(|c| c.ids.iter().cloned()).collect()
    }
}

/// The scope a change is shown under (`None`: the suite-wide part).
fn shown_scope(c: &Change) -> Option<&str> {
    c.scope.as_deref()
}

/// The shown changes in groups, by scope.
fn grouped<'a>(diff: &'a Diff, view: &View) -> Vec<(Option<String>, Vec<Group<'a>>)> {
    let shown: Vec<&Change> = match &view.scopes {
        Some(s) => diff.only(s),
        None => diff.changes.iter().collect(),
    };
    let mut scopes: Vec<Option<String>> = Vec::new();
    for s in Scope::ALL.iter().map(|s| s.as_str()) {
        if shown.iter().any(|c| shown_scope(c) == Some(s)) {
            scopes.push(Some(s.to_owned()));
        }
    }
    let others: BTreeSet<&str> =
        shown.iter().filter_map(|c| shown_scope(c)).filter(|s| Scope::parse(s).is_none()).collect();
    scopes.extend(others.into_iter().map(|s| Some(s.to_owned())));
    if shown.iter().any(|c| shown_scope(c).is_none()) {
        scopes.push(None);
    }
    scopes
        .into_iter()
        .map(|scope| {
            let mut groups: Vec<Group<'a>> = Vec::new();
            for c in shown.iter().copied().filter(|c| shown_scope(c) == scope.as_deref()) {
                let joins = groups.last().is_some_and(|g| {
                    let f = g.first();
                    matches!(c.kind, Kind::CaseAdded | Kind::CaseRemoved | Kind::CaseChanged)
                        && (f.kind, f.class, &f.section, &f.block) == (c.kind, c.class, &c.section, &c.block)
                });
                match groups.last_mut() {
                    Some(g) if joins => g.changes.push(c),
                    _ => groups.push(Group { changes: vec![c] }),
                }
            }
            (scope, groups)
        })
        .collect()
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `section.block`, `section`, or the file: where a change is.
fn place(c: &Change) -> String {
    match (&c.file, &c.section, &c.block) {
        (Some(f), _, _) => f.clone(),
        (None, Some(s), Some(b)) => format!("{s}.{b}"),
        (None, Some(s), None) => s.clone(),
        _ => "manifest.json".into(),
    }
}

/// One line saying what a group of `n` changes is; `name` wraps names (a code span or quotes).
fn heading(c: &Change, ids: &[String], n: usize, name: &dyn Fn(&str) -> String) -> String {
    let at = name(&place(c));
    let section = || name(c.section.as_deref().unwrap_or_default());
    let scope = c.scope.as_deref().map_or_else(|| "no scope".to_owned(), name);
    let cases = plural(ids.len(), "case", "cases");
    let one_case = || {
        (n == 1 && ids.len() == 1).then(|| name(&format!("{}.{}", c.section.as_deref().unwrap_or_default(), ids[0])))
    };
    match c.kind {
        Kind::SchemaVersionChanged => format!("{} changed", name("schema_version")),
        Kind::DescriptionChanged => "the manifest's description changed".into(),
        Kind::ExceptionAdded => format!("{} entry added", name("exceptions")),
        Kind::ExceptionRemoved => format!("{} entry removed", name("exceptions")),
        Kind::ExceptionChanged => format!("{} entry changed", name("exceptions")),
        Kind::SkipPolicyChanged => format!("{} changed", name(super::SKIP_POLICY)),
        Kind::SectionAdded => format!("section {} added ({scope}, {cases})", section()),
        Kind::SectionRemoved => format!("section {} removed ({scope}, {cases})", section()),
        Kind::SectionRescoped => {
            let side = |v: Option<&Value>| v.and_then(Value::as_str).map_or_else(|| "(none)".to_owned(), name);
            let e = c.edits.first();
            format!(
                "section {} re-scoped: {} → {}",
                section(),
                side(e.and_then(|e| e.old.as_ref())),
                side(e.and_then(|e| e.new.as_ref()))
            )
        }
        Kind::FieldsChanged if c.block.is_some() => format!("shared fields of block {at} changed"),
        Kind::FieldsChanged => format!("shared fields of section {at} changed"),
        Kind::BlockAdded => format!("block {at} added ({cases})"),
        Kind::BlockRemoved => format!("block {at} removed ({cases})"),
        Kind::CaseAdded => one_case().map_or_else(|| format!("{cases} added to {at}"), |id| format!("case {id} added")),
        Kind::CaseRemoved => {
            one_case().map_or_else(|| format!("{cases} removed from {at}"), |id| format!("case {id} removed"))
        }
        Kind::CaseChanged => {
            let what = match c.class {
                Class::Editorial => "prose changed",
                Class::Correction => "expectation changed",
                _ => "changed incompatibly",
            };
            one_case().map_or_else(|| format!("{cases} of {at}: {what}"), |id| format!("case {id}: {what}"))
        }
        Kind::FieldAdded => {
            format!("new optional field {} on {cases} of {at}", name(c.field.as_deref().unwrap_or_default()))
        }
        Kind::FixtureAdded | Kind::SchemaAdded | Kind::FileAdded => format!("{} {at} added", file_word(c.kind)),
        Kind::FixtureRemoved | Kind::SchemaRemoved | Kind::FileRemoved => format!("{} {at} removed", file_word(c.kind)),
        Kind::FixtureChanged | Kind::SchemaChanged | Kind::FileChanged => {
            let readers = if c.ids.is_empty() {
                String::new()
            } else {
                format!(" (read by {})", plural(c.ids.len(), "case", "cases"))
            };
            format!("{} {at} changed{readers}", file_word(c.kind))
        }
    }
}

fn file_word(k: Kind) -> &'static str {
    match k {
        Kind::FixtureAdded | Kind::FixtureRemoved | Kind::FixtureChanged => "fixture",
        Kind::SchemaAdded | Kind::SchemaRemoved | Kind::SchemaChanged => "schema",
        _ => "file",
    }
}

/// One line for one change (what the release gate's messages quote).
pub fn title(c: &Change) -> String {
    heading(c, &c.ids, 1, &|s| format!("`{s}`"))
}

/// The naming of a correction, or that it has none.
fn naming(c: &Change, diff: &Diff) -> Option<String> {
    if c.class != Class::Correction {
        return None;
    }
    let source = diff.changelog.source.as_deref().unwrap_or("CHANGELOG.md");
    Some(match &c.named {
        Some(n) => format!("named in {source}:{} ({})", n.line, n.adrs.join(", ")),
        None if diff.changelog.source.is_none() => "not checked: no CHANGELOG to check (pass --changelog FILE)".into(),
        None => "NOT named in the CHANGELOG entry".into(),
    })
}

fn compact(v: &Value, limit: usize) -> String {
    let s = v.to_string();
    if s.chars().count() <= limit {
        return s;
    }
    let cut: String = s.chars().take(limit).collect();
    format!("{cut}…")
}

/// One edit as a diff line; `limit` caps each value's length.
fn edit_line(e: &Edit, limit: usize) -> String {
    let at = if e.pointer.is_empty() { "(whole)" } else { &e.pointer };
    // A value is shown as its text writes it (`1e3`, `-0`, a number beyond f64).
    let v = |x: &Option<Value>, literal: &Option<String>| match literal {
        Some(l) => l.chars().take(limit).collect(),
        None => x.as_ref().map_or_else(String::new, |x| compact(x, limit)),
    };
    let (old, new) = (v(&e.old, &e.old_literal), v(&e.new, &e.new_literal));
    match e.op {
        Op::Added => format!("+ {at}: {new}"),
        Op::Removed => format!("- {at}: {old}"),
        Op::Changed => format!("~ {at}: {old} → {new}"),
        Op::Retyped => {
            format!("! {at}: {old} ({}) → {new} ({})", e.old_type().unwrap_or("?"), e.new_type().unwrap_or("?"))
        }
    }
}

fn edit_lines(c: &Change, limit: usize) -> Vec<String> {
    let mut out: Vec<String> = c.edits.iter().map(|e| edit_line(e, limit)).collect();
    out.extend(c.prose.iter().map(|e| format!("prose {}", edit_line(e, limit))));
    // A fixture reference moved: what the new file holds against the old one.
    for f in &c.fixtures {
        let what = match (f.edits.is_empty(), &f.note) {
            (true, Some(n)) => n.clone(),
            (true, None) => "the same JSON".to_owned(),
            (false, _) => format!("its JSON changed ({}, as the same change made in place would be)", f.class.as_str()),
        };
        out.push(format!("{} now reads {} for {}: {what}", f.pointer, f.new_file, f.old_file));
        out.extend(f.edits.iter().map(|e| format!("  {}", edit_line(e, limit))));
        if let (false, Some(n)) = (f.edits.is_empty(), &f.note) {
            out.push(format!("  ({n})"));
        }
    }
    if let Some(n) = &c.note {
        out.push(format!("({n})"));
    }
    out
}

/// The smallest bump needed, in words: with no CHANGELOG to check the corrections against,
/// both answers (MINOR or so once the entry names them, MAJOR otherwise), never a guess.
fn needed_words(diff: &Diff) -> String {
    let needed = diff.needed();
    if !diff.needed_is_open() {
        return needed.as_str().to_owned();
    }
    format!(
        "{} if the new version's CHANGELOG entry names each correction with its ADR, else {}",
        diff.needed_if_named().as_str(),
        needed.as_str()
    )
}

/// The bump lines: the smallest bump needed and, when both versions are known, the actual one.
fn bump_lines(diff: &Diff) -> Vec<String> {
    let needed = diff.needed();
    let all: Vec<&Change> = diff.changes.iter().collect();
    let mut reasons: Vec<String> = if all.is_empty() { Vec::new() } else { vec![counts(&all)] };
    let unnamed = diff.unnamed_corrections().count();
    if diff.changelog.source.is_none() && unnamed > 0 {
        reasons.push(format!("{unnamed} correction(s) not checked against a CHANGELOG"));
    } else if unnamed > 0 {
        reasons.push(format!("{unnamed} correction(s) not named in a CHANGELOG entry"));
    }
    let mut out = vec![format!(
        "smallest bump: {}{}",
        needed_words(diff),
        if reasons.is_empty() { " (no changes)".to_owned() } else { format!(" ({})", reasons.join(", ")) }
    )];
    if let (Some(a), Some(b)) = (&diff.old.version, &diff.new.version) {
        let not_semver: Vec<&str> =
            [a, b].into_iter().filter(|v| semver::Version::parse(v).is_err()).map(String::as_str).collect();
        let verdict = match (diff.version_order(), diff.actual()) {
            (VersionOrder::NotSemver, _) => {
                let list: Vec<String> = not_semver.iter().map(|v| format!("{v:?}")).collect();
                format!("not SemVer ({} is not a SemVer version)", list.join(" and "))
            }
            (VersionOrder::Lower, _) | (_, None) => format!("a lower version ({b} < {a} in SemVer precedence)"),
            (_, Some(actual)) if actual >= needed => format!("{}, enough", actual.as_str()),
            // No CHANGELOG to check: whether it is enough depends on an entry nobody read.
            (_, Some(actual)) if diff.needed_is_open() && actual >= diff.needed_if_named() => format!(
                "{}, enough if the new version's CHANGELOG entry names each correction with its ADR, else {} is \
                 needed (no CHANGELOG to check: pass --changelog FILE)",
                actual.as_str(),
                needed.as_str()
            ),
            (_, Some(actual)) => format!("{}, less than needed", actual.as_str()),
        };
        out.push(format!("version bump {a} → {b}: {verdict}"));
    }
    out.push(match (&diff.changelog.source, &diff.changelog.entry) {
        (Some(s), Some(e)) => format!("corrections checked against {s}, entry \"{e}\""),
        (Some(s), None) => format!("corrections checked against {s}: it has no entry for the new version"),
        (None, _) => "corrections not checked: the new side has no CHANGELOG.md (pass --changelog FILE)".into(),
    });
    out
}

fn scope_title(scope: &Option<String>) -> String {
    scope.clone().unwrap_or_else(|| "suite (metadata and files)".into())
}

/// Wrap ids into lines of at most `width` characters, each starting with `indent`.
fn wrap(ids: &[String], indent: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for (i, id) in ids.iter().enumerate() {
        let piece = if i + 1 < ids.len() { format!("{id},") } else { id.clone() };
        if !line.is_empty() && indent.len() + line.len() + 1 + piece.len() > width {
            lines.push(format!("{indent}{line}"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&piece);
    }
    if !line.is_empty() {
        lines.push(format!("{indent}{line}"));
    }
    lines
}

/// The counts line: how many changes of each class.
fn counts(changes: &[&Change]) -> String {
    let parts: Vec<String> = [Class::Breaking, Class::Correction, Class::Additive, Class::Editorial]
        .iter()
        .filter_map(|class| {
            let n = changes.iter().filter(|c| c.class == *class).count();
            let word = if *class == Class::Correction && n != 1 { "corrections" } else { class.as_str() };
            (n > 0).then(|| format!("{n} {word}"))
        })
        .collect();
    if parts.is_empty() { "no changes".into() } else { parts.join(", ") }
}

/// Human text.
pub fn human(diff: &Diff, view: &View) -> String {
    let mut out = format!(
        "bqsuite diff: {} ({}) → {} ({})\n",
        diff.old.source,
        diff.old.version.as_deref().unwrap_or("?"),
        diff.new.source,
        diff.new.version.as_deref().unwrap_or("?")
    );
    for l in bump_lines(diff) {
        let _ = writeln!(out, "{l}");
    }
    if let Some(says) = view.says(&|s| s.to_owned()) {
        let _ = writeln!(out, "showing {says}");
    }
    let quoted = |s: &str| format!("`{s}`");
    for (scope, groups) in grouped(diff, view) {
        let _ = writeln!(out, "\n{}", scope_title(&scope));
        for g in groups {
            let c = g.first();
            let ids = g.ids();
            let named = naming(c, diff).map(|n| format!(" — {n}")).unwrap_or_default();
            let _ = writeln!(out, "  [{}] {}{named}", c.class.as_str(), heading(c, &ids, g.changes.len(), &quoted));
            let detailed = g.changes.iter().any(|c| !c.edits.is_empty() || !c.prose.is_empty());
            if detailed && matches!(c.kind, Kind::CaseChanged) {
                for ch in &g.changes {
                    let _ = writeln!(out, "      {}", ch.ids.join(", "));
                    for l in edit_lines(ch, 80) {
                        let _ = writeln!(out, "        {l}");
                    }
                }
                continue;
            }
            if !matches!(c.kind, Kind::FixtureChanged | Kind::SchemaChanged | Kind::FileChanged)
                || c.class != Class::Editorial
            {
                for l in wrap(&ids, "      ", 100) {
                    let _ = writeln!(out, "{l}");
                }
            }
            for ch in &g.changes {
                for l in edit_lines(ch, 80) {
                    let _ = writeln!(out, "        {l}");
                }
            }
        }
    }
    let shown: Vec<&Change> = match &view.scopes {
        Some(s) => diff.only(s),
        None => diff.changes.iter().collect(),
    };
    // The bump is the whole diff's: a view that hides changes says so, else "no changes;
    // smallest bump MINOR" reads as a contradiction.
    let hidden = diff.changes.len() - shown.len();
    if hidden == 0 {
        let _ = writeln!(out, "\ndiff: {}; smallest bump {}", counts(&shown), needed_words(diff));
    } else {
        let _ = writeln!(
            out,
            "\ndiff: {} shown, {hidden} more not shown; the whole diff's smallest bump {}",
            counts(&shown),
            needed_words(diff)
        );
    }
    out
}

/// A fenced block around `body`, the fence longer than any backtick run in it.
fn fenced(lang: &str, body: &str, indent: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let mut out = format!("{indent}{fence}{lang}\n");
    for l in body.lines() {
        let _ = writeln!(out, "{indent}{l}");
    }
    let _ = writeln!(out, "{indent}{fence}");
    out
}

/// GitHub-flavoured Markdown.
pub fn markdown(diff: &Diff, view: &View) -> String {
    let mut out = format!(
        "## bqsuite diff: {} → {}\n\n",
        code(diff.old.version.as_deref().unwrap_or(&diff.old.source)),
        code(diff.new.version.as_deref().unwrap_or(&diff.new.source))
    );
    let _ = writeln!(out, "From {} to {}.\n", code(&diff.old.source), code(&diff.new.source));
    let mut lines = bump_lines(diff).into_iter();
    if let Some(first) = lines.next() {
        let _ = writeln!(out, "**{}**\n", text(&first));
    }
    for l in lines {
        let _ = writeln!(out, "- {}", text(&l));
    }
    out.push('\n');
    if let Some(says) = view.says(&|s| code(s)) {
        let _ = writeln!(out, "Showing {says}, by scope.\n");
    }
    let shown: Vec<&Change> = match &view.scopes {
        Some(s) => diff.only(s),
        None => diff.changes.iter().collect(),
    };
    match diff.changes.len() - shown.len() {
        0 => {
            let _ = writeln!(out, "{}.", text(&counts(&shown)));
        }
        hidden => {
            let _ = writeln!(out, "{} shown, {hidden} more not shown.", text(&counts(&shown)));
        }
    }
    for (scope, groups) in grouped(diff, view) {
        let _ = writeln!(out, "\n### {}\n", scope.as_deref().map_or_else(|| text(&scope_title(&None)), code));
        for g in groups {
            let c = g.first();
            let ids = g.ids();
            let named = naming(c, diff).map(|n| format!(" — {}", text(&n))).unwrap_or_default();
            let _ =
                writeln!(out, "- **{}** {}{named}", c.class.as_str(), heading(c, &ids, g.changes.len(), &|s| code(s)));
            // As in human text: a file's readers too, unless the change is editorial.
            let listed = !matches!(c.kind, Kind::FixtureChanged | Kind::SchemaChanged | Kind::FileChanged)
                || c.class != Class::Editorial;
            if listed && !ids.is_empty() {
                let all: Vec<String> = ids.iter().map(|i| code(i)).collect();
                let _ = writeln!(out, "  - {}", all.join(", "));
            }
            let mut body = String::new();
            for ch in &g.changes {
                let lines = edit_lines(ch, 400);
                if lines.is_empty() {
                    continue;
                }
                if matches!(c.kind, Kind::CaseChanged) {
                    let _ = writeln!(body, "# {}", ch.ids.join(", "));
                }
                for l in lines {
                    let _ = writeln!(body, "{l}");
                }
            }
            if !body.is_empty() {
                let _ = writeln!(out, "\n  <details><summary>JSON diff</summary>\n");
                out.push_str(&fenced("diff", &body, "  "));
                let _ = writeln!(out, "\n  </details>\n");
            }
        }
    }
    out
}

/// JSON: the whole diff, the bump, and the changes shown.
pub fn json(diff: &Diff, view: &View) -> String {
    let shown: Vec<&Change> = match &view.scopes {
        Some(s) => diff.only(s),
        None => diff.changes.iter().collect(),
    };
    let mut summary = serde_json::Map::new();
    for c in &shown {
        let n = summary.entry(c.kind.as_str()).or_insert(json!(0));
        *n = json!(n.as_u64().unwrap_or(0) + 1);
    }
    let doc = json!({
        "version": 1,
        "tool": "bqsuite",
        "command": "diff",
        "old": diff.old,
        "new": diff.new,
        "changelog": diff.changelog,
        "bump": {
            "needed": bump_name(diff.needed()),
            "needed_if_named": bump_name(diff.needed_if_named()),
            "actual": diff.actual().map(bump_name),
            "unnamed_corrections": diff.unnamed_corrections().count(),
            "version_order": diff.version_order(),
        },
        "scopes": view.scopes,
        "summary": summary,
        "changes": shown,
    });
    crate::diag::json_text(&doc)
}

fn bump_name(b: Bump) -> &'static str {
    match b {
        Bump::None => "none",
        Bump::Patch => "patch",
        Bump::Minor => "minor",
        Bump::Major => "major",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{ChangelogInfo, SideInfo};

    /// The text with fenced blocks and code spans removed.
    fn outside_code(md: &str) -> String {
        let mut out = String::new();
        let mut fence: Option<String> = None;
        for line in md.lines() {
            let t = line.trim_start();
            let ticks: String = t.chars().take_while(|c| *c == '`').collect();
            match &fence {
                Some(f) if t.starts_with(f.as_str()) => fence = None,
                Some(_) => {}
                None if ticks.len() >= 3 => fence = Some(ticks),
                None => {
                    let mut rest = line;
                    while let Some(i) = rest.find('`') {
                        out.push_str(&rest[..i]);
                        let n = rest[i..].chars().take_while(|c| *c == '`').count();
                        let close = "`".repeat(n);
                        rest = match rest[i + n..].find(&close) {
                            Some(j) => &rest[i + n + j + n..],
                            None => "",
                        };
                    }
                    out.push_str(rest);
                    out.push('\n');
                }
            }
        }
        out
    }

    fn diff_of(changes: Vec<Change>) -> Diff {
        Diff {
            old: SideInfo { source: "git:v1.5.0".into(), version: Some("1.5.0".into()) },
            new: SideInfo { source: ".".into(), version: Some("1.6.0".into()) },
            changelog: ChangelogInfo { source: None, entry: None },
            changes,
            entry: None,
        }
    }

    #[test]
    fn markdown_escapes_every_manifest_string_and_groups_by_scope() {
        let mut added = Change::new(Kind::SectionAdded, Class::Additive);
        added.section = Some("evil`<b>|x".into());
        added.scope = Some("<img src=x>".into());
        added.ids = vec!["a`b".into(), "<script>".into()];
        let mut fixed = Change::new(Kind::CaseChanged, Class::Correction);
        fixed.section = Some("cases".into());
        fixed.scope = Some("core".into());
        fixed.ids = vec!["order-created".into()];
        fixed.edits = vec![Edit {
            pointer: "/expect/urn".into(),
            op: Op::Changed,
            old: Some(json!("```")),
            new: Some(json!("</details>")),
            old_literal: None,
            new_literal: None,
        }];
        let md = markdown(&diff_of(vec![added, fixed]), &View::default());
        // No table here, so a `|` in a code span stays as it is (a backslash would show).
        assert!(md.contains("``evil`<b>|x``") && md.contains("`<script>`"), "{md}");
        // Outside code spans and fenced blocks, the only markup is the renderer's own.
        let outside = outside_code(&md).replace("<details>", "").replace("</details>", "").replace("<summary>", "");
        let outside = outside.replace("</summary>", "");
        assert!(!outside.contains('<'), "{outside}");
        assert!(md.contains("````diff"), "the fence outgrows the backticks inside: {md}");
        assert!(md.contains("not checked: no CHANGELOG to check"), "{md}");
        // core comes first (the spec's order), then the unknown scope.
        assert!(md.find("### `core`").unwrap() < md.find("### `<img src=x>`").unwrap(), "{md}");
        let human = human(&diff_of(vec![]), &View::default());
        assert!(human.contains("smallest bump: none (no changes)"), "{human}");
    }
}
