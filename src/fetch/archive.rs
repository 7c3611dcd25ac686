//! Pass one: read a verified asset in memory and check every entry (rules 3–10 of the module
//! doc of [`crate::fetch`]) before anything is written anywhere.

use std::collections::BTreeMap;
use std::io::Read;

use super::Limits;
use crate::release::{self, layout, ustar};
use crate::suite::{self, MANIFEST, VERSION_FILE, paths};

/// One checked entry, by its path inside the root (no trailing `/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Dir,
    File(Vec<u8>),
}

/// The archive's root directory, checked: every path obeys the path rule.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tree {
    /// The root directory's name, `babelqueue-conformance-<version>`.
    pub root: String,
    /// Path inside the root → entry. Parents of a file need not have entries of their own.
    pub entries: BTreeMap<String, Node>,
}

impl Tree {
    /// The regular files, by path.
    pub fn files(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.entries.iter().filter_map(|(p, n)| match n {
            Node::File(b) => Some((p.as_str(), b.as_slice())),
            Node::Dir => None,
        })
    }
}

/// Decompress `gz` (one gzip member, nothing after it) within the caps of `limits`.
pub fn gunzip(gz: &[u8], limits: &Limits) -> Result<Vec<u8>, String> {
    let mut dec = flate2::bufread::GzDecoder::new(gz);
    let mut out = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = dec.read(&mut chunk).map_err(|e| format!("not a valid gzip stream: {e}"))?;
        if n == 0 {
            break;
        }
        out.extend_from_slice(&chunk[..n]);
        let size = out.len() as u64;
        if limits.total_over(size) {
            return Err(format!("decompresses to more than the {}-byte cap (a decompression bomb?)", limits.max_total));
        }
        if limits.ratio_over(gz.len() as u64, size) {
            return Err(format!(
                "decompression bomb: {} compressed bytes expand past {size} (more than {}x)",
                gz.len(),
                limits.max_ratio
            ));
        }
    }
    if !dec.into_inner().is_empty() {
        return Err("data after the gzip stream (a second member or trailing bytes)".into());
    }
    Ok(out)
}

/// The name of a type flag that is not a regular file or a directory.
fn refused_type(flag: u8) -> String {
    let what = match flag {
        b'1' => "a hardlink",
        b'2' => "a symlink",
        b'3' => "a character device",
        b'4' => "a block device",
        b'6' => "a FIFO",
        b'7' => "a contiguous file",
        b'x' => "a pax extended header (it could replace the next entry's path, size or link)",
        b'g' => "a pax global header",
        b'L' | b'K' => "a GNU long-name header (it could replace the next entry's path)",
        b'S' => "a GNU sparse file",
        b'V' => "a volume label",
        b'M' => "a multi-volume continuation",
        _ => return format!("an entry of unknown type {:?}", char::from(flag)),
    };
    what.to_owned()
}

/// Read and check a verified asset: the root's tree, or why the archive is refused.
pub fn read(gz: &[u8], version: &str, limits: &Limits) -> Result<Tree, String> {
    if limits.download_over(gz.len() as u64) {
        return Err(format!("{} bytes, more than the {}-byte download cap", gz.len(), limits.max_download));
    }
    let tar = gunzip(gz, limits)?;
    let entries = ustar::read(&tar, limits.max_file).map_err(|e| e.to_string())?;
    if limits.entries_over(entries.len()) {
        return Err(format!("{} entries, more than the cap of {}", entries.len(), limits.max_entries));
    }
    let root = layout::root_name(version);
    let mut tree = Tree { root: root.clone(), ..Tree::default() };
    for e in &entries {
        let shown = String::from_utf8_lossy(&e.path).into_owned();
        let refuse = |why: String| Err(format!("entry {shown:?}: {why}"));
        let is_dir = match e.typeflag {
            ustar::REGULAR | b'\0' => false,
            ustar::DIRECTORY => true,
            other => {
                let target = String::from_utf8_lossy(&e.linkname);
                let to = if e.linkname.is_empty() { String::new() } else { format!(" (to {target:?})") };
                return refuse(format!("{}{to}: only regular files and directories are allowed", refused_type(other)));
            }
        };
        let Ok(path) = std::str::from_utf8(&e.path) else {
            return refuse("the name is not UTF-8".into());
        };
        let path = if is_dir { path.strip_suffix('/').unwrap_or(path) } else { path };
        if path.starts_with('/') {
            return refuse("absolute path".into());
        }
        let rel = match path.split_once('/') {
            None if path == root => "",
            Some((first, rest)) if first == root => rest,
            _ => return refuse(format!("outside the single root directory {root}/")),
        };
        if rel.is_empty() {
            if !is_dir {
                return refuse(format!("the root {root}/ must be a directory"));
            }
            if tree.entries.contains_key("") {
                return refuse("duplicate entry".into());
            }
            tree.entries.insert(String::new(), Node::Dir);
            continue;
        }
        if let Err(why) = paths::check_path(rel) {
            return refuse(why);
        }
        if !is_dir && suite::is_stray(rel) {
            // Red team F3 (stop 49): rebuilding the stream proves only that these bytes are
            // what release writes for these files, not that release would take the files.
            return refuse("not a file a release holds: under schema/ and fixtures/ only .json files that are not hidden (validate's BQ006, which release refuses)".into());
        }
        if is_dir && e.size != 0 {
            return refuse(format!("a directory that announces {} bytes of data", e.size));
        }
        let node = if is_dir { Node::Dir } else { Node::File(e.data.to_vec()) };
        if tree.entries.insert(rel.to_owned(), node).is_some() {
            return refuse("duplicate entry (the same path twice)".into());
        }
    }
    tree.entries.remove("");
    if let Some((a, b)) = paths::case_collision(tree.entries.keys().map(String::as_str)) {
        return Err(format!("entries {a:?} and {b:?} differ only in letter case (one would overwrite the other)"));
    }
    for path in tree.entries.keys() {
        let mut at = 0;
        while let Some(i) = path[at..].find('/') {
            let parent = &path[..at + i];
            if matches!(tree.entries.get(parent), Some(Node::File(_))) {
                return Err(format!("entry {parent:?} is a file, but {path:?} lies inside it"));
            }
            at += i + 1;
        }
    }
    match tree.entries.get(VERSION_FILE) {
        Some(Node::File(b)) if String::from_utf8_lossy(b).trim() == version => {}
        Some(Node::File(b)) => {
            return Err(format!("its {VERSION_FILE} says {:?}, not {version}", String::from_utf8_lossy(b).trim()));
        }
        _ => return Err(format!("it has no {root}/{VERSION_FILE}")),
    }
    if let Some(top) = layout::TOP_FILES.iter().find(|f| !matches!(tree.entries.get(**f), Some(Node::File(_)))) {
        return Err(format!("it has no {root}/{top}, which every release ships"));
    }
    if let Some(Node::File(b)) = tree.entries.get(MANIFEST) {
        let text = std::str::from_utf8(b).map_err(|_| format!("its {MANIFEST} is not UTF-8"))?;
        let manifest = suite::parse_json(text).map_err(|e| format!("its {MANIFEST} does not parse: {}", e.message))?;
        match manifest.get("conformance_version").and_then(serde_json::Value::as_str) {
            Some(v) if v == version => {}
            Some(v) => return Err(format!("its {MANIFEST} says conformance_version {v:?}, not {version}")),
            None => {
                return Err(format!(
                    "its {MANIFEST} states no conformance_version (the manifest of every release does, since 1.5.0)"
                ));
            }
        }
    }
    reproduces(gz, &tar, &tree, version)?;
    Ok(tree)
}

/// Rule 10: `release`'s writer, given the release files just read, writes exactly `tar`, and
/// its gzip of that stream is exactly `gz`, the bytes downloaded.
fn reproduces(gz: &[u8], tar: &[u8], tree: &Tree, version: &str) -> Result<(), String> {
    let files: Vec<(&str, &[u8])> = tree.files().filter(|(rel, _)| layout::in_release(rel)).collect();
    let rebuilt = release::tar_stream(version, &files)?;
    if let Some(diff) = ustar::first_difference(tar, &rebuilt) {
        return Err(format!(
            "it is not what `bqsuite release` builds from the same files ({diff}); \
             the asset was tampered with or published by something else"
        ));
    }
    let regzipped = release::gzip(&rebuilt);
    if regzipped != gz {
        return Err(format!(
            "its tar stream is what `bqsuite release` builds, but not its gzip bytes ({}): the asset was \
             recompressed after the build (a mirror, a CDN, `gzip -9`), so its sha256 is one no `bqsuite release` \
             reproduces",
            gzip_difference(gz, &regzipped)
        ));
    }
    Ok(())
}

/// How the gzip bytes `got` differ from `want` (`release`'s, rule 5 of [`crate::release`]),
/// both of the same content: the header fields that differ (FLG, MTIME, XFL, OS; CM is 8 in
/// both, or `got` would not have decompressed), or else the deflate stream (the trailer's CRC
/// and size are the content's, which is the same).
fn gzip_difference(got: &[u8], want: &[u8]) -> String {
    const FLAGS: [(u8, &str); 5] = [(1, "FTEXT"), (2, "FHCRC"), (4, "FEXTRA"), (8, "FNAME"), (16, "FCOMMENT")];
    let (Some(g), Some(w)) = (got.get(..10), want.get(..10)) else { return "a truncated gzip header".into() };
    let flags = |b: u8| {
        let set: Vec<&str> = FLAGS.iter().filter(|(bit, _)| b & bit != 0).map(|(_, name)| *name).collect();
        if set.is_empty() { "none".to_owned() } else { set.join("|") }
    };
    let mtime = |h: &[u8]| u32::from_le_bytes([h[4], h[5], h[6], h[7]]);
    let mut fields = Vec::new();
    if g[3] != w[3] {
        fields.push(format!("FLG {:#04x} ({}), not {:#04x}", g[3], flags(g[3]), w[3]));
    }
    if mtime(g) != mtime(w) {
        fields.push(format!("MTIME {}, not {}", mtime(g), mtime(w)));
    }
    if g[8] != w[8] {
        fields.push(format!("XFL {}, not {}", g[8], w[8]));
    }
    if g[9] != w[9] {
        fields.push(format!("OS {}, not {}", g[9], w[9]));
    }
    if fields.is_empty() {
        "the gzip header is release's, but the deflate stream differs (another compressor or level)".into()
    } else {
        format!("gzip header: {}", fields.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::gzip;

    fn small() -> Limits {
        Limits { max_total: 1 << 20, ratio_floor: 4096, max_ratio: 50, ..Limits::default() }
    }

    /// The auditor's F3: the reference asset's tar stream gzipped again (another level, a file
    /// name, an mtime) reproduced as a tar stream and was "verified". Each gzip header field and
    /// the deflate stream are named.
    #[test]
    fn only_releases_own_gzip_bytes_reproduce() {
        let manifest = br#"{"schema_version": 1, "conformance_version": "1.6.0"}"#;
        let files: Vec<(&str, &[u8])> = vec![
            ("CONFORMANCE_VERSION", b"1.6.0\n"),
            ("LICENSE", b"MIT\n"),
            ("fixtures/a.json", b"{}"),
            ("manifest.json", manifest),
        ];
        let tar = release::tar_stream("1.6.0", &files).unwrap();
        let gz = gzip(&tar);
        assert!(read(&gz, "1.6.0", &Limits::default()).is_ok());
        let regzip = |b: flate2::GzBuilder, level: u32| {
            let mut enc = b.write(Vec::new(), flate2::Compression::new(level));
            std::io::Write::write_all(&mut enc, &tar).unwrap();
            enc.finish().unwrap()
        };
        let refused = |gz: &[u8]| read(gz, "1.6.0", &Limits::default()).unwrap_err();
        let base = || flate2::GzBuilder::new().mtime(0).operating_system(3);
        let named = refused(&regzip(base().filename("evil-name.tar"), 9));
        assert!(named.contains("not its gzip bytes (gzip header: FLG 0x08 (FNAME), not 0x00)"), "{named}");
        let dated = refused(&regzip(base().mtime(1_234_567_890), 9));
        assert!(dated.contains("MTIME 1234567890, not 0"), "{dated}");
        assert!(refused(&regzip(flate2::GzBuilder::new().mtime(0).operating_system(255), 9)).contains("OS 255, not 3"));
        let fast = refused(&regzip(base(), 1));
        assert!(fast.contains("XFL 4, not 2"), "{fast}");
        // The same header, another deflate stream: a stored (uncompressed) one.
        let stored = regzip(base(), 0);
        let mut header_as_release = stored.clone();
        header_as_release[8] = 2;
        let other = refused(&header_as_release);
        assert!(other.contains("the gzip header is release's, but the deflate stream differs"), "{other}");
    }

    #[test]
    fn gunzip_refuses_trailing_data_and_bombs() {
        let gz = gzip(b"hello");
        assert_eq!(gunzip(&gz, &small()).unwrap(), b"hello");
        let mut two = gz.clone();
        two.extend_from_slice(&gz);
        assert!(gunzip(&two, &small()).unwrap_err().contains("after the gzip stream"));
        let bomb = gzip(&vec![0u8; 512 << 10]);
        assert!(gunzip(&bomb, &small()).unwrap_err().contains("decompression bomb"));
        let huge = Limits { max_ratio: u64::MAX, ..small() };
        assert!(gunzip(&gzip(&vec![0u8; 2 << 20]), &huge).unwrap_err().contains("cap"));
        assert!(gunzip(&gz[..gz.len() - 3], &small()).unwrap_err().contains("not a valid gzip stream"));
    }

    /// The download and entry caps hold at their boundaries: an asset of exactly
    /// `max_download` bytes and `max_entries` entries is read, one byte or entry fewer allowed
    /// refuses it; and the tree is named by the archive's root.
    #[test]
    fn read_takes_exactly_the_download_and_entry_caps() {
        let files: Vec<(&str, &[u8])> = vec![
            ("CONFORMANCE_VERSION", b"1.6.0\n"),
            ("LICENSE", b"MIT\n"),
            ("fixtures/a.json", b"{}"),
            ("manifest.json", br#"{"schema_version": 1, "conformance_version": "1.6.0"}"#),
        ];
        let gz = gzip(&release::tar_stream("1.6.0", &files).unwrap());
        let entries = ustar::read(&gunzip(&gz, &Limits::default()).unwrap(), u64::MAX).unwrap().len();
        let exact = Limits { max_download: gz.len() as u64, max_entries: entries, ..Limits::default() };
        let tree = read(&gz, "1.6.0", &exact).unwrap();
        assert_eq!(tree.root, "babelqueue-conformance-1.6.0");
        let bytes = read(&gz, "1.6.0", &Limits { max_download: gz.len() as u64 - 1, ..exact }).unwrap_err();
        assert!(bytes.contains("download cap"), "{bytes}");
        let count = read(&gz, "1.6.0", &Limits { max_entries: entries - 1, ..exact }).unwrap_err();
        assert!(count.contains(&format!("{entries} entries, more than the cap of {}", entries - 1)), "{count}");
    }

    /// The size cap holds at its boundary: exactly `max_total` bytes decompress, one more is
    /// refused, however the decoder's reads fall (one read here, past the cap at once).
    #[test]
    fn gunzip_takes_exactly_the_cap_and_refuses_one_byte_more() {
        let capped = Limits { max_total: 1000, max_ratio: u64::MAX, ..small() };
        let data: Vec<u8> = (0..1001u32).map(|i| (i % 251) as u8).collect();
        assert_eq!(gunzip(&gzip(&data[..1000]), &capped).unwrap(), &data[..1000]);
        let over = gunzip(&gzip(&data), &capped).unwrap_err();
        assert!(over.contains("more than the 1000-byte cap"), "{over}");
    }

    /// The ratio cap holds at both its boundaries: a stream that expands to exactly
    /// `max_ratio` times its size, or to exactly `ratio_floor` bytes, decompresses; one byte
    /// more is refused.
    #[test]
    fn gunzip_ratio_cap_takes_its_boundaries_and_refuses_past_them() {
        // Zeros whose gzip divides their length, and one more zero gzips to the same length.
        let (n, ratio) = (2000..20_000usize)
            .find_map(|n| {
                let len = gzip(&vec![0u8; n]).len();
                (n % len == 0 && gzip(&vec![0u8; n + 1]).len() == len).then_some((n, (n / len) as u64))
            })
            .expect("some length of zeros gzips to a divisor of it");
        let limits = Limits { ratio_floor: 1000, max_ratio: ratio, ..small() };
        assert_eq!(gunzip(&gzip(&vec![0u8; n]), &limits).unwrap().len(), n);
        let over = gunzip(&gzip(&vec![0u8; n + 1]), &limits).unwrap_err();
        assert!(over.contains("decompression bomb"), "{over}");
        // At the floor, any ratio is taken; past it, the ratio counts.
        let floor = Limits { ratio_floor: 4000, max_ratio: 1, ..small() };
        assert_eq!(gunzip(&gzip(&[0u8; 4000]), &floor).unwrap().len(), 4000);
        assert!(gunzip(&gzip(&[0u8; 4001]), &floor).unwrap_err().contains("decompression bomb"));
    }

    /// Red team F3 (stop 49): an asset release's own writer builds from files release would
    /// refuse (a script, a hidden file under fixtures/) reproduces byte for byte, so rule 10
    /// alone let it through; the file rule refuses it, and takes the same asset without them.
    #[test]
    fn files_release_would_refuse_are_refused_even_when_the_stream_reproduces() {
        let manifest = br#"{"schema_version": 1, "conformance_version": "1.6.0"}"#;
        let base: Vec<(&str, &[u8])> = vec![
            ("CONFORMANCE_VERSION", b"1.6.0\n"),
            ("LICENSE", b"MIT\n"),
            ("manifest.json", manifest),
            ("fixtures/a.json", b"{}"),
        ];
        let asset = |extra: Option<&'static str>| {
            let mut files = base.clone();
            files.extend(extra.map(|rel| (rel, b"{}".as_slice())));
            files.sort_by_key(|(rel, _)| *rel);
            gzip(&release::tar_stream("1.6.0", &files).unwrap())
        };
        assert!(read(&asset(None), "1.6.0", &Limits::default()).is_ok());
        for stray in ["fixtures/run.sh", "fixtures/.hidden.json", "schema/.cache/x.json", "fixtures/notes.txt"] {
            let why = read(&asset(Some(stray)), "1.6.0", &Limits::default()).unwrap_err();
            assert!(why.contains(stray) && why.contains("not a file a release holds"), "{stray}: {why}");
        }
    }
}
