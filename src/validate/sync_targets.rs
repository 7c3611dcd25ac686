//! The shape of `sync-targets.json`, the data file that lists where `bqsuite sync` vendors the
//! suite (decisions R19). Checked when the file is present; a file that does not parse is
//! already BQ001.
//!
//! Rules: the document is an object with `schema_version` the integer 1, an optional string
//! `description` and a non-empty `targets` array, and no other key (BQ701); every target is an
//! object with exactly the string fields `repo` and `path` (BQ702); `repo` is one plain
//! directory name (BQ703); `path` is a plain relative path with no `.`, `..`, empty or `.git`
//! component (BQ704), so a target can never name a place outside its repository or inside its
//! git metadata, on Windows either (no `:`, no component ending in a dot or a space, which
//! Windows drops, so `.. ` would be `..` and `.git.` `.git`, and no `git~1`, `.git`'s short
//! name); no two targets of one repository name the same directory or nest (BQ705), because
//! syncing one would rewrite the other. The same function checks a `--targets FILE`
//! given to `bqsuite sync`, so the command and `validate` accept exactly the same files.

use serde_json::Value;

use crate::diag::{Code, Finding};
use crate::suite::SYNC_TARGETS;

use super::Ctx;
use super::compat::plain_relative;

pub(super) fn check(cx: &Ctx<'_>) -> Vec<Finding> {
    cx.suite.json(SYNC_TARGETS).map(|doc| shape(doc, SYNC_TARGETS)).unwrap_or_default()
}

/// Every shape finding of a sync-targets document, attributed to `file`.
pub fn shape(doc: &Value, file: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let at = |code, msg: String, ptr: &str| Finding::error(code, msg).in_file(file).at(ptr);
    let Some(top) = doc.as_object() else {
        out.push(at(Code::SYNC_TARGETS_SHAPE, "the document must be a JSON object".into(), ""));
        return out;
    };
    match top.get("schema_version") {
        Some(Value::Number(n)) if n.as_u64() == Some(1) => {}
        Some(v) => out.push(at(
            Code::SYNC_TARGETS_SHAPE,
            format!("schema_version must be the integer 1, found {v}"),
            "/schema_version",
        )),
        None => {
            out.push(at(Code::SYNC_TARGETS_SHAPE, "schema_version is missing (it must be the integer 1)".into(), ""))
        }
    }
    if top.get("description").is_some_and(|d| !d.is_string()) {
        out.push(at(Code::SYNC_TARGETS_SHAPE, "description must be a string".into(), "/description"));
    }
    for key in top.keys().filter(|k| !["schema_version", "description", "targets"].contains(&k.as_str())) {
        out.push(at(
            Code::SYNC_TARGETS_SHAPE,
            format!("unknown key {key:?} (allowed: schema_version, description, targets)"),
            &crate::suite::pointer::join("", key),
        ));
    }
    let targets = match top.get("targets") {
        Some(Value::Array(a)) if !a.is_empty() => a,
        Some(_) => {
            out.push(at(Code::SYNC_TARGETS_SHAPE, "targets must be a non-empty array".into(), "/targets"));
            return out;
        }
        None => {
            out.push(at(Code::SYNC_TARGETS_SHAPE, "targets is missing".into(), ""));
            return out;
        }
    };

    let mut seen: Vec<(usize, &str, &str)> = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        let ptr = format!("/targets/{i}");
        let Some(obj) = t.as_object() else {
            out.push(at(Code::SYNC_TARGET_SHAPE, "a target must be an object {repo, path}".into(), &ptr));
            continue;
        };
        for key in obj.keys().filter(|k| !["repo", "path"].contains(&k.as_str())) {
            out.push(at(
                Code::SYNC_TARGET_SHAPE,
                format!("unknown key {key:?} (a target has exactly repo and path)"),
                &crate::suite::pointer::join(&ptr, key),
            ));
        }
        let field = |key: &str| obj.get(key).and_then(Value::as_str);
        let (repo, path) = (field("repo"), field("path"));
        type Rule = fn(&str) -> Result<(), &'static str>;
        let rules: [(&str, Option<&str>, Rule, Code, &str); 2] = [
            ("repo", repo, repo_name, Code::SYNC_TARGET_REPO, "one plain directory name"),
            ("path", path, vendored_path, Code::SYNC_TARGET_PATH, "a plain relative path"),
        ];
        for (key, value, rule, code, what) in rules {
            match value.map(rule) {
                None => {
                    let where_ = if obj.contains_key(key) { format!("{ptr}/{key}") } else { ptr.clone() };
                    out.push(at(Code::SYNC_TARGET_SHAPE, format!("{key} must be a string"), &where_));
                }
                Some(Err(why)) => {
                    let v = value.unwrap_or_default();
                    out.push(at(code, format!("{v:?} is not {what}: {why}"), &format!("{ptr}/{key}")));
                }
                Some(Ok(())) => {}
            }
        }
        let (Some(repo), Some(path)) = (repo, path) else { continue };
        if let Some((j, _, other)) = seen.iter().find(|(_, r, p)| *r == repo && nested(p, path)) {
            let how = if *other == path { "the same directory as" } else { "a directory nesting with" };
            out.push(at(
                Code::SYNC_TARGET_OVERLAP,
                format!("{repo}/{path} is {how} target {j} ({repo}/{other}): syncing one would rewrite the other"),
                &ptr,
            ));
        }
        seen.push((i, repo, path));
    }
    out
}

/// One plain directory name.
fn repo_name(repo: &str) -> Result<(), &'static str> {
    plain_relative(repo)?;
    if repo.contains('/') {
        return Err("it holds a '/'");
    }
    same_on_windows(repo)
}

/// A plain relative path that stays inside the repository and out of its git metadata.
fn vendored_path(path: &str) -> Result<(), &'static str> {
    plain_relative(path)?;
    same_on_windows(path)?;
    if path.split('/').any(|c| c.eq_ignore_ascii_case(".git") || c.eq_ignore_ascii_case("git~1")) {
        return Err("a '.git' component (or 'git~1', the short name Windows gives it)");
    }
    Ok(())
}

/// No component that Windows reads as another name: it drops a trailing dot or space (so
/// `.. ` is `..`, leaving the repository, and `.git.` is `.git`) and reads `:` as a drive or
/// stream separator.
fn same_on_windows(path: &str) -> Result<(), &'static str> {
    if path.contains(':') {
        return Err("':' (a drive or stream separator on Windows)");
    }
    if path.split('/').any(|c| c.ends_with('.') || c.ends_with(' ')) {
        return Err("a component ending in a dot or a space (Windows drops it: '.. ' is '..', '.git.' is '.git')");
    }
    Ok(())
}

/// Is one of the two paths the other or inside it?
fn nested(a: &str, b: &str) -> bool {
    let inside = |x: &str, y: &str| x == y || x.starts_with(&format!("{y}/"));
    inside(a, b) || inside(b, a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(doc: Value) -> Vec<(&'static str, String)> {
        shape(&doc, "t.json").into_iter().map(|f| (f.code.id, f.pointer.unwrap_or_default())).collect()
    }

    #[test]
    fn a_good_document_is_clean() {
        let doc = json!({"schema_version": 1, "description": "d", "targets": [
            {"repo": "a", "path": "tests/conformance"}, {"repo": "b", "path": "tests/conformance"},
            {"repo": "a", "path": "tests/conformance2"}]});
        assert!(codes(doc).is_empty());
    }

    #[test]
    fn each_rule_names_its_pointer() {
        assert_eq!(codes(json!([])), [("BQ701", String::new())]);
        assert_eq!(
            codes(json!({"schema_version": "1", "targets": [{"repo": "a", "path": "b"}]})),
            [("BQ701", "/schema_version".into())]
        );
        for other in [json!(2), json!(1.0), json!(0)] {
            assert_eq!(
                codes(json!({"schema_version": other, "targets": [{"repo": "a", "path": "b"}]})),
                [("BQ701", "/schema_version".into())],
                "{other}"
            );
        }
        assert_eq!(codes(json!({"schema_version": 1, "targets": []})), [("BQ701", "/targets".into())]);
        assert_eq!(
            codes(json!({"schema_version": 1, "targetz": [], "targets": [{"repo": "a", "path": "b"}]})),
            [("BQ701", "/targetz".into())]
        );
        let doc = json!({"schema_version": 1, "targets": [
            "x",
            {"repo": "a", "path": "b", "dir": "c"},
            {"repo": 1, "path": "b"},
            {"repo": "a/b", "path": "b"},
            {"repo": "..", "path": "b"},
            {"repo": "c", "path": "../b"},
            {"repo": "c", "path": "/abs"},
            {"repo": "c", "path": "x/.GIT/hooks"},
            {"repo": "a", "path": "b/c"},
            {"repo": "a", "path": "b"},
            {"repo": ".. ", "path": "b"},
            {"repo": "c", "path": "x/.. /.. /out"},
            {"repo": "c", "path": "x/.git."},
            {"repo": "c", "path": "x/.git "},
            {"repo": "c", "path": "GIT~1/hooks"},
            {"repo": "c", "path": "x/.git::$INDEX_ALLOCATION"},
            {"repo": "c", "path": "C:/x"},
            {"repo": "c", "path": "x.y/z"}]});
        assert_eq!(
            codes(doc),
            [
                ("BQ702", "/targets/0".to_owned()),
                ("BQ702", "/targets/1/dir".into()),
                ("BQ702", "/targets/2/repo".into()),
                ("BQ703", "/targets/3/repo".into()),
                ("BQ703", "/targets/4/repo".into()),
                ("BQ704", "/targets/5/path".into()),
                ("BQ704", "/targets/6/path".into()),
                ("BQ704", "/targets/7/path".into()),
                ("BQ705", "/targets/8".into()),
                ("BQ705", "/targets/9".into()),
                ("BQ703", "/targets/10/repo".into()),
                ("BQ704", "/targets/11/path".into()),
                ("BQ704", "/targets/12/path".into()),
                ("BQ704", "/targets/13/path".into()),
                ("BQ704", "/targets/14/path".into()),
                ("BQ704", "/targets/15/path".into()),
                ("BQ704", "/targets/16/path".into()),
            ]
        );
    }
}
