//! The adapter side of the protocol: any [`Sdk`] served over a line reader and writer
//! (`bqsuite adapter` serves the reference core over stdin and stdout).
//!
//! Invariants: every reply is one line, flushed at once; a call is answered with exactly one
//! reply carrying its `seq`, in the order the calls were read (so calls written ahead are
//! served like any others, and the hello may declare `pipeline`); the hello is answered with [`PROTOCOL`] whatever version bqsuite
//! asked for (bqsuite then decides); an [`SdkError`] becomes its reply kind (`not_implemented`,
//! or `error` with the message), never a crash; a shutdown or the end of input ends the loop
//! normally; a line that is not a command is an error of the serving loop (there is no `seq`
//! to answer it with); a reply longer than [`MAX_LINE`] is sent as an `error` reply for its
//! call instead, so no line the loop writes breaks the protocol.

use std::io::{BufRead, Write};

use super::protocol::{Command, Hello, MAX_LINE, PROTOCOL, Reply};
use crate::sdk::{Sdk, SdkError};

/// Why serving stopped before a shutdown or the end of input.
#[derive(Debug)]
pub enum ServeError {
    /// Reading or writing failed.
    Io(std::io::Error),
    /// A line that is not a command of the protocol.
    Malformed { line: usize, message: String },
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Io(e) => write!(f, "{e}"),
            ServeError::Malformed { line, message } => write!(f, "input line {line} is not a command: {message}"),
        }
    }
}

impl std::error::Error for ServeError {}

impl From<std::io::Error> for ServeError {
    fn from(e: std::io::Error) -> Self {
        ServeError::Io(e)
    }
}

/// The reply to one command (`None` for a shutdown); a hello declares `pipeline`.
pub fn answer(sdk: &mut dyn Sdk, command: Command, pipeline: bool) -> Option<Reply> {
    Some(match command {
        Command::Hello { .. } => {
            let mut hello = Hello::of(sdk.hello());
            hello.protocol = PROTOCOL;
            hello.pipeline = pipeline;
            Reply::Hello(hello)
        }
        Command::Call { seq, request, .. } => match sdk.call(&request) {
            Ok(response) => Reply::Result { seq, response },
            Err(SdkError::NotImplemented { .. }) => Reply::NotImplemented { seq },
            // bqsuite says "the SDK failed: <message>" itself.
            Err(SdkError::Sdk { message }) => Reply::Error { seq, message },
            Err(e @ SdkError::Transport { .. }) => Reply::Error { seq, message: e.to_string() },
        },
        Command::Shutdown => return None,
    })
}

/// Serve `sdk`: read commands from `input`, write replies to `output`, until a shutdown or the
/// end of input; the hello declares `pipeline` as given (the loop reads one command at a time
/// whatever bqsuite has already written, so it may always be `true`).
pub fn serve(sdk: &mut dyn Sdk, input: impl BufRead, mut output: impl Write, pipeline: bool) -> Result<(), ServeError> {
    let mut line = Vec::new();
    let mut input = input;
    let mut number = 0;
    let mut out = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        number += 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let command: Command = serde_json::from_slice(&line)
            .map_err(|e| ServeError::Malformed { line: number, message: e.to_string() })?;
        let Some(reply) = answer(sdk, command, pipeline) else { return Ok(()) };
        out.clear();
        serde_json::to_writer(&mut out, &reply).expect("a reply always serialises");
        if let (true, Some(seq)) = (out.len() > MAX_LINE, reply.seq()) {
            // bqsuite would kill the adapter for the line: the call fails, the adapter lives on.
            let message = format!("the reply is {} bytes, more than the protocol's {MAX_LINE}-byte line", out.len());
            out.clear();
            serde_json::to_writer(&mut out, &Reply::Error { seq, message }).expect("a reply always serialises");
        }
        out.push(b'\n');
        output.write_all(&out)?;
        output.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdk::reference::ReferenceSdk;
    use serde_json::{Value, json};

    fn exchange(input: &[Value]) -> Vec<Value> {
        let text: String = input.iter().map(|v| format!("{v}\n")).collect();
        let mut out = Vec::new();
        serve(&mut ReferenceSdk::new(), text.as_bytes(), &mut out, true).unwrap();
        out.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect()
    }

    #[test]
    fn hello_calls_and_shutdown() {
        let out = exchange(&[
            json!({"cmd": "hello", "protocol": 1, "bqsuite": "0", "conformance_version": "1.6.0"}),
            json!({"cmd": "call", "seq": 1, "section": "s", "case": "c", "request": {"op": "accepts", "body": "e30="}}),
            json!({"cmd": "call", "seq": 2, "section": "s", "case": "c",
                   "request": {"op": "redis_push", "body": "e30=", "target": {"url": "redis://127.0.0.1:1/",
                   "prefix": "p", "queue": "q", "layout": "zset", "retry_after": null, "now": null}}}),
            json!({"cmd": "shutdown"}),
            json!({"cmd": "call", "seq": 3, "section": "s", "case": "c", "request": {"op": "accepts", "body": "e30="}}),
        ]);
        assert_eq!(out.len(), 3, "nothing is answered after the shutdown: {out:?}");
        assert_eq!(out[0]["reply"], "hello");
        assert_eq!(out[0]["sdk"], "bqsuite-reference");
        assert_eq!(out[0]["pipeline"], true);
        assert_eq!(out[1], json!({"reply": "result", "seq": 1, "response": {"op": "accepts", "result": false}}));
        assert_eq!(out[2]["reply"], "error");
        assert_eq!(out[2]["seq"], 2);
    }

    #[test]
    fn a_reply_too_long_for_a_line_is_an_error_reply_and_too_many_draws_are_refused() {
        let call = |draws: u64| {
            json!({"cmd": "call", "seq": 1, "section": "s", "case": "c", "request": {"op": "retry_delay",
                "retry_backoff": 1_000_000_000_000_u64, "multiplier": null, "max": null, "jitter": "none",
                "n": 1, "draws": draws}})
        };
        // 2^20 delays of 13 digits: about 14 MiB, over the 8 MiB line.
        let out = exchange(&[call(u64::from(crate::sdk::ops::MAX_DRAWS)), call(1)]);
        assert_eq!(out[0]["reply"], "error", "{}", out[0]);
        assert!(out[0]["message"].as_str().unwrap().contains("more than the protocol's 8388608-byte line"));
        assert_eq!(out[1]["response"]["result"], json!([1_000_000_000_000_u64]), "{}", out[1]);
        // Near 2^32 draws would ask for tens of GiB: refused before anything is drawn.
        let out = exchange(&[call(u64::from(u32::MAX))]);
        assert_eq!(out[0]["reply"], "error", "{}", out[0]);
        assert!(out[0]["message"].as_str().unwrap().contains("at most 1048576"), "{}", out[0]);
    }

    #[test]
    fn an_error_reply_never_shows_a_redis_password() {
        // The message goes into the results file (`run --sdk "bqsuite adapter"`).
        let out = exchange(&[json!({"cmd": "call", "seq": 1, "section": "s", "case": "c",
            "request": {"op": "redis_push", "body": "e30=", "target": {"url": "redis://:hunter2@127.0.0.1:1/",
            "prefix": "p", "queue": "q", "layout": "zset", "retry_after": null, "now": null}}})]);
        assert_eq!(out[0]["reply"], "error");
        let message = out[0]["message"].as_str().unwrap();
        assert!(!message.contains("hunter2") && message.contains("redis://:***@127.0.0.1:1/"), "{message}");
    }

    #[test]
    fn an_sdk_failure_is_sent_as_its_own_message() {
        // bqsuite prefixes "the SDK failed: " itself; sending it too doubled it in the reason.
        let out = exchange(&[json!({"cmd": "call", "seq": 1, "section": "s", "case": "c",
            "request": {"op": "retry_delay", "retry_backoff": 1000, "multiplier": null, "max": null,
            "jitter": "none", "n": 0, "draws": 1}})]);
        assert_eq!(out[0], json!({"reply": "error", "seq": 1, "message": "retry number 0: the first retry is n = 1"}));
    }

    #[test]
    fn a_line_that_is_not_a_command_stops_the_loop() {
        let mut out = Vec::new();
        let err = serve(&mut ReferenceSdk::new(), &b"\n{\"cmd\":\"dance\"}\n"[..], &mut out, true).unwrap_err();
        assert!(matches!(err, ServeError::Malformed { line: 2, .. }), "{err}");
        assert!(out.is_empty());
    }
}
