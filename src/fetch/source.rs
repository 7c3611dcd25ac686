//! Where release assets come from: a `file://` directory or an `http(s)://` location, and the
//! `SHA256SUMS` line of an asset.
//!
//! A base URL is a directory: the asset's and `SHA256SUMS`'s names are appended after a `/`, so
//! a base carrying a query (`?`) or a fragment (`#`) is refused rather than turned into a URL
//! that names something else. ureq has no `file://` support, so the scheme decides: `file://` reads the local file (host
//! empty or `localhost`, path percent-decoded; a regular file only, so a FIFO cannot block it),
//! `http://` and `https://` go through ureq with
//! HTTP statuses returned as responses (any status but 200 is an error naming the URL and the
//! status), one overall timeout per request, `Accept-Encoding: identity` (the checksum is over
//! the bytes as published, so nothing may decode them on the way), and a size cap. A password
//! in a base URL is sent, never shown: every message and label names the location through
//! [`Base::describe`], which hides it.

use std::io::Read;
use std::path::PathBuf;

use crate::diag::redact_url;

use super::{FetchError, Request};

/// Called with (file name, bytes so far, total when known, finished) while downloading.
pub type Progress = fn(&str, u64, Option<u64>, bool);

/// The default base URL for `version`.
pub fn default_base(version: &str) -> String {
    format!("https://github.com/BabelQueue/conformance/releases/download/v{version}")
}

/// A parsed base location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// A local directory (`file://`).
    File(PathBuf),
    /// An `http://` or `https://` URL without a trailing `/`.
    Http(String),
}

impl Base {
    /// Parse a base URL.
    pub fn parse(url: &str) -> Result<Base, String> {
        let shown = redact_url(url);
        if let Some(c) = url.chars().find(|c| matches!(c, '?' | '#')) {
            let what = if c == '?' { "query (?)" } else { "fragment (#)" };
            return Err(format!(
                "{shown}: a base URL names the directory the asset and SHA256SUMS are fetched from, so it cannot carry a {what}; write the character as {} in a path",
                if c == '?' { "%3F" } else { "%23" }
            ));
        }
        let lower = url.to_ascii_lowercase();
        if let Some(rest) = lower.strip_prefix("file://").map(|_| &url["file://".len()..]) {
            let path = if rest.starts_with('/') {
                rest
            } else if rest.to_ascii_lowercase().starts_with("localhost/") {
                &rest["localhost".len()..]
            } else {
                return Err(format!(
                    "{shown}: a file URL must be file:///absolute/path (a host other than localhost is not supported)"
                ));
            };
            let decoded = percent_decode(path).map_err(|e| format!("{shown}: {e}"))?;
            let trimmed = decoded.trim_end_matches('/');
            return Ok(Base::File(PathBuf::from(if trimmed.is_empty() { "/" } else { trimmed })));
        }
        if lower.starts_with("http://") || lower.starts_with("https://") {
            return Ok(Base::Http(url.trim_end_matches('/').to_owned()));
        }
        Err(format!("{shown}: the base URL must start with file://, http:// or https://"))
    }

    /// The location of `name` under this base, for messages: without a password
    /// ([`crate::diag::redact_url`]), so no log shows a mirror's credentials.
    pub fn describe(&self, name: &str) -> String {
        redact_url(&self.location(name))
    }

    /// The location of `name` under this base, as requested.
    fn location(&self, name: &str) -> String {
        match self {
            Base::File(dir) => format!("file://{}", dir.join(name).display()),
            Base::Http(url) => format!("{url}/{name}"),
        }
    }
}

fn percent_decode(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok());
            out.push(hex.ok_or_else(|| format!("bad percent escape at {:?}", &s[i..]))?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "the decoded path is not UTF-8".into())
}

/// Fetch `name` from the request's base, within the download cap.
pub fn get(req: &Request, name: &str) -> Result<Vec<u8>, FetchError> {
    let cap = req.limits.max_download;
    let url = req.base.describe(name);
    let too_big = || FetchError::verification(format!("{url}: larger than the {cap}-byte download cap; refusing it"));
    let requested = req.base.location(name);
    match &req.base {
        // A regular file only: a FIFO or device would block the open or the read, and no
        // timeout covers file:// (crate::fsutil::read_bounded).
        Base::File(dir) => crate::fsutil::read_bounded(&dir.join(name), cap).map_err(|e| match e {
            crate::fsutil::ReadError::TooLarge { .. } => too_big(),
            e => FetchError::could_not_run(format!("cannot read {url}: {e}")),
        }),
        Base::Http(_) => {
            let agent: ureq::Agent = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .max_redirects(0)
                .timeout_global(Some(req.timeout))
                .user_agent(concat!("bqsuite/", env!("CARGO_PKG_VERSION")))
                .build()
                .into();
            let secs = req.timeout.as_secs_f64();
            let failed = |e: &dyn std::fmt::Display, timed_out: bool| {
                FetchError::could_not_run(if timed_out {
                    format!("timed out after {secs}s fetching {url}")
                } else {
                    format!("cannot fetch {url}: {e}")
                })
            };
            let mut resp = follow(&agent, &requested, &failed)?;
            let status = resp.status();
            if status != 200 {
                return Err(FetchError::could_not_run(format!("cannot fetch {url}: HTTP {status}")));
            }
            let total = resp.body().content_length();
            if total.is_some_and(|t| t > cap) {
                return Err(too_big());
            }
            let mut reader = resp.body_mut().as_reader();
            let mut bytes = Vec::new();
            let mut chunk = vec![0u8; 64 << 10];
            loop {
                let n = reader.read(&mut chunk).map_err(|e| {
                    let timed_out = e.kind() == std::io::ErrorKind::TimedOut || e.to_string().contains("timeout");
                    failed(&e, timed_out)
                })?;
                if n == 0 {
                    break;
                }
                bytes.extend_from_slice(&chunk[..n]);
                if bytes.len() as u64 > cap {
                    return Err(too_big());
                }
                if let Some(p) = req.progress {
                    p(name, bytes.len() as u64, total, false);
                }
            }
            if let Some(p) = req.progress {
                p(name, bytes.len() as u64, total, true);
            }
            Ok(bytes)
        }
    }
}

/// Most redirects followed for one file (GitHub release downloads take one).
const MAX_REDIRECTS: usize = 10;

/// GET `url`, following redirects by hand so that a redirect to anything but `http(s)://` is
/// named as what it is, never "too many redirects".
fn follow(
    agent: &ureq::Agent,
    url: &str,
    failed: &dyn Fn(&dyn std::fmt::Display, bool) -> FetchError,
) -> Result<ureq::http::Response<ureq::Body>, FetchError> {
    let mut at = url.to_owned();
    for _ in 0..=MAX_REDIRECTS {
        let resp = agent
            .get(&at)
            .header("accept-encoding", "identity")
            .call()
            .map_err(|e| failed(&e, matches!(e, ureq::Error::Timeout(_))))?;
        if !resp.status().is_redirection() {
            return Ok(resp);
        }
        let Some(location) = resp.headers().get("location").and_then(|l| l.to_str().ok()) else {
            return Ok(resp);
        };
        // Every URL in a message without its password (the base's, or one a redirect names).
        let (shown, from) = (redact_url(url), redact_url(&at));
        let next = url::Url::parse(&at).and_then(|base| base.join(location)).map_err(|e| {
            FetchError::could_not_run(format!(
                "cannot fetch {shown}: {from} redirects to {:?}, which is not a URL ({e})",
                redact_url(location)
            ))
        })?;
        if !matches!(next.scheme(), "http" | "https") {
            return Err(FetchError::could_not_run(format!(
                "cannot fetch {shown}: {from} redirects to {}; only http:// and https:// redirects are followed",
                redact_url(next.as_str())
            )));
        }
        at = next.into();
    }
    Err(FetchError::could_not_run(format!("cannot fetch {}: more than {MAX_REDIRECTS} redirects", redact_url(url))))
}

/// The expected sha256 of `name` from a `SHA256SUMS` file (`<hex>  <name>` or `<hex> *<name>`
/// per line). A file without the line, or with two lines that disagree, is "could not run".
pub fn sha256_for(sums: &[u8], name: &str, from: &str) -> Result<String, FetchError> {
    let text = std::str::from_utf8(sums).map_err(|_| FetchError::could_not_run(format!("{from}: not UTF-8 text")))?;
    let mut found: Option<String> = None;
    for line in text.lines() {
        let Some((hex, file)) = line.split_once(' ') else { continue };
        let file = file.strip_prefix(' ').or_else(|| file.strip_prefix('*')).unwrap_or(file);
        if file != name {
            continue;
        }
        let hex = super::parse_sha256(hex)
            .map_err(|e| FetchError::could_not_run(format!("{from}: the line for {name}: {e}")))?;
        if found.as_ref().is_some_and(|f| *f != hex) {
            return Err(FetchError::could_not_run(format!("{from}: two different checksums for {name}")));
        }
        found = Some(hex);
    }
    found.ok_or_else(|| FetchError::could_not_run(format!("{from} has no line for {name}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls() {
        assert_eq!(Base::parse("file:///tmp/a%20b/dist/").unwrap(), Base::File("/tmp/a b/dist".into()));
        assert_eq!(Base::parse("file://localhost/srv").unwrap(), Base::File("/srv".into()));
        assert!(Base::parse("file://host/srv").unwrap_err().contains("localhost"));
        assert!(Base::parse("file:dist").is_err());
        assert!(Base::parse("ftp://x").unwrap_err().contains("file://, http:// or https://"));
        assert!(Base::parse("file:///a%zz").unwrap_err().contains("percent"));
        assert_eq!(Base::parse("HTTPS://x.test/r/").unwrap(), Base::Http("HTTPS://x.test/r".into()));
        assert_eq!(Base::Http("http://h/r".into()).describe("SHA256SUMS"), "http://h/r/SHA256SUMS");
        assert!(Base::parse("https://x.test/r?token=1").unwrap_err().contains("cannot carry a query (?)"));
        assert!(Base::parse("https://x.test/r/#top").unwrap_err().contains("cannot carry a fragment (#)"));
        assert!(Base::parse("file:///srv/a#b").unwrap_err().contains("%23"));
        assert_eq!(Base::parse("file:///srv/a%23b").unwrap(), Base::File("/srv/a#b".into()));
    }

    #[test]
    fn sha256sums_lines() {
        let a = "a".repeat(64);
        let sums = format!("{}  other.tar.gz\n{a} *x.tar.gz\n", "b".repeat(64));
        assert_eq!(sha256_for(sums.as_bytes(), "x.tar.gz", "S").unwrap(), a);
        let e = sha256_for(sums.as_bytes(), "y.tar.gz", "S").unwrap_err();
        assert_eq!(e.failure, super::super::Failure::CouldNotRun);
        assert!(e.message.contains("no line for y.tar.gz"));
        let twice = format!("{a}  x\n{}  x\n", "c".repeat(64));
        assert!(sha256_for(twice.as_bytes(), "x", "S").unwrap_err().message.contains("two different"));
        assert!(sha256_for(b"zz  x\n", "x", "S").unwrap_err().message.contains("not a sha256"));
        // Upper-case hex is the same checksum (compared with the asset's, which is lower-case);
        // the same digits in two cases are one checksum, not two.
        let upper = "AB".repeat(32);
        assert_eq!(sha256_for(format!("{upper}  x\n").as_bytes(), "x", "S").unwrap(), "ab".repeat(32));
        let both = format!("{upper}  x\n{}  x\n", "ab".repeat(32));
        assert_eq!(sha256_for(both.as_bytes(), "x", "S").unwrap(), "ab".repeat(32));
    }

    /// A checksum is exactly 64 hex digits: one more or one fewer, or a letter past f, is none.
    #[test]
    fn a_sha256_is_64_hex_digits() {
        assert_eq!(super::super::parse_sha256(&"A".repeat(64)).unwrap(), "a".repeat(64));
        for bad in ["a".repeat(63), "a".repeat(65), format!("{}g", "a".repeat(63)), String::new()] {
            let e = super::super::parse_sha256(&bad).unwrap_err();
            assert!(e.ends_with("is not a sha256 (64 hex digits)"), "{bad}: {e}");
        }
    }
}
