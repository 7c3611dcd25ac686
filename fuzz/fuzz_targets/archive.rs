#![no_main]
//! The release archive reader behind `fetch` (bytes from the network): any tar stream, gzipped
//! as `release` gzips, and any gzip stream, is read or refused, never a panic; what is read is
//! only what `release` itself would write for those files (the reader rebuilds the stream and
//! compares), so reading the same bytes twice gives the same tree. Seed it with a release's
//! `.tar` (`gunzip -c` of a `bqsuite release` asset).
use bqsuite::fetch::{Limits, archive};
use bqsuite::release::{self, ustar};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits::default();
    let _ = ustar::read(data, 1 << 20);
    let _ = archive::read(data, "1.6.0", &limits);
    let gz = release::gzip(data);
    if let Ok(tree) = archive::read(&gz, "1.6.0", &limits) {
        let again = archive::read(&gz, "1.6.0", &limits).expect("the same bytes read again");
        assert_eq!(tree, again);
    }
});
