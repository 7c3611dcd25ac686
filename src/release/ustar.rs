//! The ustar format, written and read by hand: the one place that knows its bytes.
//!
//! Writing produces exactly what GNU tar 1.34 writes for `--format=ustar --numeric-owner`:
//! numeric fields as zero-padded octal ended by NUL (mode, uid, gid and the device numbers in 7
//! digits, size and mtime in 11), the checksum as 6 octal digits, NUL, space; magic `ustar\0`,
//! version `00`; empty user and group names; a path longer than 100 bytes split at the last `/`
//! that leaves a prefix of at most 155 bytes and a name of at most 100; data padded to 512-byte
//! blocks; two zero blocks at the end; the whole stream padded with zeros to a multiple of the
//! 10240-byte record.
//!
//! Reading is strict and knows no extensions: every header's checksum must be right; the magic
//! must be POSIX `ustar\0` + `00` or GNU `ustar  \0`; numeric fields must be plain octal (no
//! base-256); an entry's data must be wholly present; the archive must end with two zero blocks
//! and hold nothing but zeros after them. The reader returns type flags and names as raw bytes
//! and merges nothing: pax and GNU long-name headers come back as entries of their own, so the
//! caller sees (and refuses) them instead of having a later entry's path silently replaced.

/// A tar block.
pub const BLOCK: usize = 512;
/// GNU tar's default record (blocking factor 20): the stream is padded to a multiple of it.
pub const RECORD: usize = 10240;

/// Type flag of a regular file.
pub const REGULAR: u8 = b'0';
/// Type flag of a directory.
pub const DIRECTORY: u8 = b'5';

/// The fields of one header, as stored. Used for the release and, with arbitrary values, to
/// build hostile archives in tests.
#[derive(Debug, Clone, Copy)]
pub struct RawHeader<'a> {
    /// The `name` field (at most 100 bytes).
    pub name: &'a [u8],
    /// The `prefix` field (at most 155 bytes).
    pub prefix: &'a [u8],
    pub mode: u32,
    pub size: u64,
    pub typeflag: u8,
    /// The `linkname` field (at most 100 bytes).
    pub linkname: &'a [u8],
}

impl<'a> RawHeader<'a> {
    /// A header for `path` (split into prefix and name as GNU tar does) with mode 0644 for a
    /// regular file and 0755 for anything else, no link name.
    pub fn for_path(path: &'a str, typeflag: u8, size: u64) -> Result<Self, String> {
        let (prefix, name) = split_path(path.as_bytes())
            .ok_or_else(|| format!("{path}: longer than a ustar header holds (name 100 + prefix 155 bytes)"))?;
        let mode = if typeflag == REGULAR { 0o644 } else { 0o755 };
        Ok(Self { name, prefix, mode, size, typeflag, linkname: b"" })
    }

    /// The 512 header bytes.
    pub fn encode(&self) -> Result<[u8; BLOCK], String> {
        let mut h = [0u8; BLOCK];
        put(&mut h, 0, 100, self.name, "name")?;
        put(&mut h, 100, 8, octal(u64::from(self.mode), 7)?.as_bytes(), "mode")?;
        put(&mut h, 108, 8, octal(0, 7)?.as_bytes(), "uid")?;
        put(&mut h, 116, 8, octal(0, 7)?.as_bytes(), "gid")?;
        put(&mut h, 124, 12, octal(self.size, 11)?.as_bytes(), "size")?;
        put(&mut h, 136, 12, octal(0, 11)?.as_bytes(), "mtime")?;
        h[156] = self.typeflag;
        put(&mut h, 157, 100, self.linkname, "linkname")?;
        h[257..265].copy_from_slice(b"ustar\x0000");
        put(&mut h, 329, 8, octal(0, 7)?.as_bytes(), "devmajor")?;
        put(&mut h, 337, 8, octal(0, 7)?.as_bytes(), "devminor")?;
        put(&mut h, 345, 155, self.prefix, "prefix")?;
        let sum = checksum(&h);
        h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        Ok(h)
    }
}

/// Copy `value` into the field at `at` of `len` bytes (NUL-padded).
fn put(h: &mut [u8; BLOCK], at: usize, len: usize, value: &[u8], field: &str) -> Result<(), String> {
    if value.len() > len {
        return Err(format!("the {field} field holds {len} bytes, got {}", value.len()));
    }
    h[at..at + value.len()].copy_from_slice(value);
    Ok(())
}

/// `digits` octal digits and a NUL.
fn octal(n: u64, digits: usize) -> Result<String, String> {
    let s = format!("{n:0digits$o}\0");
    if s.len() > digits + 1 { Err(format!("{n} does not fit {digits} octal digits")) } else { Ok(s) }
}

/// The header checksum: the sum of all bytes with the checksum field counted as spaces.
pub fn checksum(h: &[u8; BLOCK]) -> u32 {
    h.iter().enumerate().map(|(i, &b)| if (148..156).contains(&i) { u32::from(b' ') } else { u32::from(b) }).sum()
}

/// Split a path into (prefix, name) as GNU tar does for ustar: whole when it fits 100 bytes,
/// otherwise at the last `/` (a trailing `/` does not count) that leaves a prefix of at most 155
/// bytes and a non-empty name of at most 100. `None` when no split fits.
pub fn split_path(path: &[u8]) -> Option<(&[u8], &[u8])> {
    if path.len() <= 100 {
        return Some((b"", path));
    }
    let mut len = path.len().min(156);
    if len == path.len() && path[len - 1] == b'/' {
        len -= 1;
    }
    let i = (1..len).rev().find(|&i| path[i] == b'/')?;
    let rest = path.len() - i - 1;
    (rest > 0 && rest <= 100).then(|| (&path[..i], &path[i + 1..]))
}

/// One entry of a tar stream to write.
#[derive(Debug, Clone, Copy)]
pub struct Member<'a> {
    /// The archive path (directories end with `/`).
    pub path: &'a str,
    /// `REGULAR` or `DIRECTORY`.
    pub typeflag: u8,
    /// The file's bytes (empty for a directory).
    pub data: &'a [u8],
}

/// Write `members`, in the given order, as one ustar stream padded to the record size.
pub fn write(members: &[Member<'_>]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for m in members {
        out.extend_from_slice(&RawHeader::for_path(m.path, m.typeflag, m.data.len() as u64)?.encode()?);
        out.extend_from_slice(m.data);
        pad_to(&mut out, BLOCK);
    }
    out.extend_from_slice(&[0u8; 2 * BLOCK]);
    pad_to(&mut out, RECORD);
    Ok(out)
}

/// Pad with zeros to a multiple of `unit`.
pub fn pad_to(out: &mut Vec<u8>, unit: usize) {
    out.resize(out.len().div_ceil(unit) * unit, 0);
}

/// One entry as read: raw fields and a view of its data.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    /// `prefix/name` (or `name` when the prefix is empty), raw bytes.
    pub path: Vec<u8>,
    pub typeflag: u8,
    pub size: u64,
    pub linkname: Vec<u8>,
    pub data: &'a [u8],
    /// The 512 header bytes as stored.
    pub header: &'a [u8; BLOCK],
    /// Where the header starts in the stream.
    pub offset: usize,
}

/// Why a stream is not a well-formed ustar archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// Byte offset of the offending block.
    pub offset: usize,
    pub message: String,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.offset)
    }
}

/// Read every entry of a tar stream held in memory, strictly (see the module doc). `max_size`
/// refuses an entry whose header announces more bytes than that, before its data is looked at.
pub fn read(tar: &[u8], max_size: u64) -> Result<Vec<Entry<'_>>, ReadError> {
    let mut entries = Vec::new();
    let mut at = 0;
    loop {
        let err = |message: String| ReadError { offset: at, message };
        let Some(block) = tar.get(at..at + BLOCK) else {
            return Err(err("truncated archive: it ends before the end-of-archive marker (two zero blocks)".into()));
        };
        let block: &[u8; BLOCK] = block.try_into().expect("a slice of BLOCK bytes");
        if block.iter().all(|&b| b == 0) {
            let second = tar.get(at + BLOCK..at + 2 * BLOCK);
            if second.is_none_or(|b| b.iter().any(|&x| x != 0)) {
                return Err(err("truncated archive: a lone zero block instead of the end-of-archive marker".into()));
            }
            if let Some(i) = tar[at + 2 * BLOCK..].iter().position(|&b| b != 0) {
                return Err(ReadError {
                    offset: at + 2 * BLOCK + i,
                    message: "data after the end-of-archive marker".into(),
                });
            }
            return Ok(entries);
        }
        let stored = number(&block[148..156]).map_err(|e| err(format!("header checksum field: {e}")))?;
        if stored != u64::from(checksum(block)) {
            return Err(err("header checksum mismatch (a corrupt or hand-altered header)".into()));
        }
        let posix = &block[257..265] == b"ustar\x0000";
        if !posix && &block[257..265] != b"ustar  \0" {
            return Err(err("not a ustar header (unknown magic)".into()));
        }
        let size = number(&block[124..136]).map_err(|e| err(format!("size field: {e}")))?;
        let name = field(&block[..100]);
        let path = match (posix, field(&block[345..500])) {
            (true, prefix) if !prefix.is_empty() => [prefix, b"/", name].concat(),
            _ => name.to_vec(),
        };
        if size > max_size {
            return Err(err(format!(
                "{}: announces {size} bytes, more than the cap of {max_size}",
                String::from_utf8_lossy(&path)
            )));
        }
        let start = at + BLOCK;
        let Some(data) = usize::try_from(size).ok().and_then(|n| tar.get(start..start.checked_add(n)?)) else {
            return Err(err(format!(
                "truncated archive: {} announces {size} bytes but the archive ends first",
                String::from_utf8_lossy(&path)
            )));
        };
        entries.push(Entry {
            path,
            typeflag: block[156],
            size,
            linkname: field(&block[157..257]).to_vec(),
            data,
            header: block,
            offset: at,
        });
        at = start + data.len().div_ceil(BLOCK) * BLOCK;
    }
}

/// The header fields by name, offset and length (POSIX ustar), the checksum last: it follows
/// from the others, so a difference elsewhere is named first.
const FIELDS: [(&str, usize, usize); 17] = [
    ("name", 0, 100),
    ("mode", 100, 8),
    ("owner (uid)", 108, 8),
    ("group (gid)", 116, 8),
    ("size", 124, 12),
    ("mtime", 136, 12),
    ("header type", 156, 1),
    ("link name", 157, 100),
    ("magic", 257, 6),
    ("format version", 263, 2),
    ("owner name", 265, 32),
    ("group name", 297, 32),
    ("device major", 329, 8),
    ("device minor", 337, 8),
    ("name prefix", 345, 155),
    ("header padding", 500, 12),
    ("header checksum", 148, 8),
];

/// A field's bytes as text for a message (NUL padding dropped).
fn shown(raw: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(raw).trim_end_matches('\0'))
}

/// The first difference between the tar stream `got` and the stream `want` (both read by
/// [`read`]): which entry and which field, in words; `None` when the bytes are equal. An entry
/// of `got` that `want` lacks is *extra*; one `want` has elsewhere is *out of order*.
pub fn first_difference(got: &[u8], want: &[u8]) -> Option<String> {
    if got == want {
        return None;
    }
    let (Ok(g), Ok(w)) = (read(got, u64::MAX), read(want, u64::MAX)) else {
        let at = got.iter().zip(want).position(|(a, b)| a != b).unwrap_or(got.len().min(want.len()));
        return Some(format!("the streams differ at byte {at}"));
    };
    for i in 0..g.len().max(w.len()) {
        let name = |e: &Entry<'_>| format!("{:?}", String::from_utf8_lossy(&e.path));
        let (a, b) = match (g.get(i), w.get(i)) {
            (Some(a), None) => return Some(format!("entry {}: an extra entry (release writes none there)", name(a))),
            (None, Some(b)) => return Some(format!("entry {} is missing", name(b))),
            (None, None) => break,
            (Some(a), Some(b)) => (a, b),
        };
        if a.path != b.path {
            return Some(if w.iter().any(|e| e.path == a.path) {
                format!("entry {}: out of order (release writes {} there)", name(a), name(b))
            } else {
                format!("entry {}: an extra entry (release writes {} there)", name(a), name(b))
            });
        }
        for (field, at, len) in FIELDS {
            let (x, y) = (&a.header[at..at + len], &b.header[at..at + len]);
            if x != y {
                return Some(format!("entry {}: its {field} is {}, release writes {}", name(a), shown(x), shown(y)));
            }
        }
        if a.data != b.data {
            return Some(format!("entry {}: its data differ", name(a)));
        }
        let pad = |s: &[u8], e: &Entry<'_>| {
            let start = e.offset + BLOCK + e.data.len();
            s[start..start + (BLOCK - e.data.len() % BLOCK) % BLOCK].to_vec()
        };
        if pad(got, a) != pad(want, b) {
            return Some(format!("entry {}: the padding after its data is not zeros", name(a)));
        }
    }
    let end = |s: &[u8], e: &[Entry<'_>]| {
        e.last().map_or(0, |l| l.offset + BLOCK + l.data.len().div_ceil(BLOCK) * BLOCK).min(s.len())
    };
    let (x, y) = (got.len() - end(got, &g), want.len() - end(want, &w));
    Some(format!(
        "the end of the archive: {x} bytes after the last entry, release writes {y} (two zero blocks, padded to a {RECORD}-byte record)"
    ))
}

/// A NUL-terminated field's bytes.
fn field(raw: &[u8]) -> &[u8] {
    raw.iter().position(|&b| b == 0).map_or(raw, |n| &raw[..n])
}

/// A numeric field: optional leading spaces, octal digits, then NULs or spaces.
fn number(raw: &[u8]) -> Result<u64, String> {
    if raw.first().is_some_and(|&b| b & 0x80 != 0) {
        return Err("base-256 numbers are not accepted".into());
    }
    let text = raw.iter().skip_while(|&&b| b == b' ').take_while(|&&b| b != 0 && b != b' ');
    let digits: Vec<u8> = text.copied().collect();
    let rest_ok = raw.iter().skip_while(|&&b| b == b' ').skip(digits.len()).all(|&b| b == 0 || b == b' ');
    if digits.is_empty() || !rest_ok || !digits.iter().all(|b| (b'0'..=b'7').contains(b)) {
        return Err(format!("{:?} is not an octal number", String::from_utf8_lossy(raw)));
    }
    u64::from_str_radix(std::str::from_utf8(&digits).expect("octal digits are ASCII"), 8).map_err(|e| format!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_long_paths_at_the_last_slash_that_fits() {
        assert_eq!(split_path(b"a/b"), Some((&b""[..], &b"a/b"[..])));
        let long = format!("{}/{}/{}", "p".repeat(60), "q".repeat(60), "n".repeat(90));
        let (prefix, name) = split_path(long.as_bytes()).unwrap();
        assert_eq!(prefix.len(), 121);
        assert_eq!(name, "n".repeat(90).as_bytes());
        assert!(split_path("x".repeat(101).as_bytes()).is_none(), "no slash to split at");
        assert!(split_path(format!("{}/{}", "p".repeat(10), "n".repeat(101)).as_bytes()).is_none());
        let dir = format!("{}/{}/", "p".repeat(100), "d".repeat(20));
        assert_eq!(split_path(dir.as_bytes()).unwrap().1, format!("{}/", "d".repeat(20)).as_bytes());
    }

    #[test]
    fn writes_and_reads_back() {
        let tar = write(&[
            Member { path: "r/", typeflag: DIRECTORY, data: b"" },
            Member { path: "r/a.json", typeflag: REGULAR, data: b"{}\n" },
        ])
        .unwrap();
        assert_eq!(tar.len(), RECORD);
        assert_eq!(&tar[148..156], format!("{:06o}\0 ", checksum(tar[..512].try_into().unwrap())).as_bytes());
        assert_eq!(&tar[100..108], b"0000755\0");
        let entries = read(&tar, 1 << 20).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[1].path, b"r/a.json");
        assert_eq!(entries[1].data, b"{}\n");
        assert_eq!(entries[1].typeflag, REGULAR);
        // A path longer than the name field: split into prefix and name, read back whole.
        let long = format!("r/{}/{}.json", "d".repeat(90), "n".repeat(40));
        let tar = write(&[Member { path: &long, typeflag: REGULAR, data: b"{}" }]).unwrap();
        assert!(!field(&tar[345..500]).is_empty(), "the prefix field is used");
        assert_eq!(read(&tar, 1 << 20).unwrap()[0].path, long.as_bytes());
    }

    #[test]
    fn the_first_difference_names_the_entry_and_the_field() {
        let members = [
            Member { path: "r/", typeflag: DIRECTORY, data: b"" },
            Member { path: "r/a", typeflag: REGULAR, data: b"hello" },
            Member { path: "r/b", typeflag: REGULAR, data: b"x" },
        ];
        let want = write(&members).unwrap();
        assert_eq!(first_difference(&want, &want), None);
        let with = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut t = want.clone();
            f(&mut t);
            first_difference(&t, &want).unwrap()
        };
        let reheader = |t: &mut Vec<u8>, at: usize, raw: RawHeader<'_>| {
            t[at..at + BLOCK].copy_from_slice(&raw.encode().unwrap());
        };
        let setuid = with(&|t| {
            reheader(t, BLOCK, RawHeader { mode: 0o4755, ..RawHeader::for_path("r/a", REGULAR, 5).unwrap() })
        });
        assert_eq!(setuid, r#"entry "r/a": its mode is "0004755", release writes "0000644""#);
        let owner = with(&|t| {
            t[BLOCK + 108..BLOCK + 116].copy_from_slice(b"0001750\0");
            let sum = checksum(t[BLOCK..2 * BLOCK].try_into().unwrap());
            t[BLOCK + 148..BLOCK + 156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        });
        assert_eq!(owner, r#"entry "r/a": its owner (uid) is "0001750", release writes "0000000""#);
        let order = write(&[members[0], members[2], members[1]]).unwrap();
        assert_eq!(
            first_difference(&order, &want).unwrap(),
            r#"entry "r/b": out of order (release writes "r/a" there)"#
        );
        let extra = write(&[
            members[0],
            members[1],
            Member { path: "r/LICENSE.txt", typeflag: REGULAR, data: b"" },
            members[2],
        ])
        .unwrap();
        assert!(first_difference(&extra, &want).unwrap().starts_with(r#"entry "r/LICENSE.txt": an extra entry"#));
        let unpadded = want[..7 * BLOCK].to_vec();
        assert!(first_difference(&unpadded, &want).unwrap().starts_with("the end of the archive: 1024 bytes"));
        let gnu = with(&|t| {
            t[BLOCK + 257..BLOCK + 265].copy_from_slice(b"ustar  \0");
            let sum = checksum(t[BLOCK..2 * BLOCK].try_into().unwrap());
            t[BLOCK + 148..BLOCK + 156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        });
        assert!(gnu.contains("its magic is"), "{gnu}");
    }

    #[test]
    fn refuses_malformed_streams() {
        let tar = write(&[Member { path: "r/a", typeflag: REGULAR, data: b"hello" }]).unwrap();
        let mut bad = tar.clone();
        bad[0] = b'x';
        assert!(read(&bad, 1 << 20).unwrap_err().message.contains("checksum mismatch"));
        assert!(read(&tar[..512], 1 << 20).unwrap_err().message.contains("truncated"));
        assert!(read(&tar[..1536], 1 << 20).unwrap_err().message.contains("lone zero block"));
        // A zero block with an entry after it: GNU tar stops there (with a warning), hiding the
        // entry; here it is refused.
        let mut hidden = tar[..3 * BLOCK].to_vec();
        hidden.extend_from_slice(&RawHeader::for_path("r/b", REGULAR, 0).unwrap().encode().unwrap());
        hidden.extend_from_slice(&[0; 2 * BLOCK]);
        assert!(read(&hidden, 1 << 20).unwrap_err().message.contains("lone zero block"));
        let mut trailing = tar.clone();
        trailing.extend_from_slice(b"junk");
        assert!(read(&trailing, 1 << 20).unwrap_err().message.contains("after the end-of-archive"));
        // Every refusal says where: the header at fault, the first marker block, the first
        // byte that is not zero after the marker (here inside the record's padding).
        let at = |s: &[u8]| read(s, 1 << 20).unwrap_err().offset;
        assert_eq!((at(&bad), at(&tar[..512]), at(&tar[..1536]), at(&trailing)), (0, 0, 1024, tar.len()));
        let mut inside = tar.clone();
        inside[4 * BLOCK + 7] = 1;
        assert_eq!(
            read(&inside, 1 << 20).unwrap_err(),
            ReadError { offset: 4 * BLOCK + 7, message: "data after the end-of-archive marker".into() }
        );
        assert!(read(&tar, 4).unwrap_err().message.contains("more than the cap"));
        assert_eq!(number(b"0000644\0").unwrap(), 0o644);
        assert_eq!(number(b"  644 \0\0").unwrap(), 0o644);
        assert!(number(b"0000648\0").is_err());
        assert!(number(b"644 1\0\0\0").is_err(), "a second number after the first");
        assert!(number(b"644\0 1\0\0").is_err(), "digits after the NUL");
        for blank in [&b"\0\0\0\0\0\0\0\0"[..], b"        "] {
            assert!(number(blank).unwrap_err().contains("is not an octal number"), "no digits");
        }
        assert!(number(b"\x80\0\0\0\0\0\0\x01").is_err());
    }
}
