#![no_main]
//! The small readers of untrusted text, chosen by the first byte: a `MONITOR` line (a campaign
//! of this target found the reversed-brackets panic), a `--known-failing` list, an envelope
//! body, the strict-object check. None may panic.
use bqsuite::core::{envelope, strict};
use bqsuite::results::known::KnownFailing;
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/untrusted.rs"]
mod untrusted;

fuzz_target!(|data: &[u8]| {
    let Some((which, rest)) = data.split_first() else { return };
    match which % 4 {
        0 => {
            String::from_utf8_lossy(rest).lines().for_each(untrusted::monitor_line);
        }
        1 => {
            let _ = KnownFailing::parse("known-failing.txt", &String::from_utf8_lossy(rest));
        }
        2 => {
            let _ = envelope::decode(rest);
            let _ = envelope::parse_object(rest);
        }
        _ => {
            let _ = strict::strict_object(rest);
        }
    }
});
