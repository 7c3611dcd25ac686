//! Watching the commands an SDK's Redis operation sends (`MONITOR`), to judge that a step which
//! moves a message between keys cannot be cut in half.
//!
//! The rule (the redis_layout description's ruling, from §1.1, whose layout is Laravel's Lua
//! scripts and whose reserve is "the reserve Lua", and §1.7: the gate's "ZREM … a result of 1
//! runs LREM and the rest in the same script"): in a reserve, release, ack, dead-letter,
//! migrate or sweep, a write to a key that holds messages (every key of the layout but the
//! wake-up list `:notify`) made by a command of its own, outside a Lua script and outside a
//! MULTI/EXEC transaction of two writes or more, must be the operation's only write. A reserve that pops the ready list
//! and then adds to `:reserved`, or an ack that removes the deadline member and then the body,
//! leaves a message in no key or in two when the worker stops between the two commands, and no
//! other SDK's sweep or migrate can recover it. Any number of scripts and transactions is
//! fine (a reserve runs the migrate's scripts and then its own), and so is one direct write
//! alone (Laravel acks with one ZREM). Pushes are not judged: a push is one write.
//!
//! Invariants:
//! - Only the commands between two marks count: the judge writes `ECHO <mark>` on its own
//!   connection right before and right after a step, and reads the monitor up to each mark, so
//!   the judge's own seeding and reading never count.
//! - A command runs on Redis's one thread, so a script's commands (shown as `lua`) follow its
//!   invocation with nothing in between: each `lua` line belongs to the script last invoked. The
//!   commands one client sends between its MULTI and its EXEC or DISCARD are one transaction.
//! - Only writes name keys that count: a command is a write when its name is in [`WRITES`]
//!   (expiry commands are not: they move no message, and the judge's own connection adds
//!   `EXPIRE` after every command under the case's prefix), and it touches a message key when
//!   one of its arguments is that key's name exactly. Other clients on the same Redis (other
//!   cases, other runs) use other prefixes, so their commands never match.
//! - The monitor connection is the case's own and is dropped with it; a Redis that refuses
//!   `MONITOR` fails the case, saying so.

use std::collections::HashMap;

use redis::{Connection, Value};

/// The commands that change a key (lists, sorted sets, strings, keys as a whole), upper case.
pub const WRITES: &[&str] = &[
    "LPUSH",
    "RPUSH",
    "LPUSHX",
    "RPUSHX",
    "LPOP",
    "RPOP",
    "BLPOP",
    "BRPOP",
    "LMPOP",
    "BLMPOP",
    "LMOVE",
    "BLMOVE",
    "RPOPLPUSH",
    "BRPOPLPUSH",
    "LREM",
    "LSET",
    "LTRIM",
    "LINSERT",
    "ZADD",
    "ZREM",
    "ZINCRBY",
    "ZPOPMIN",
    "ZPOPMAX",
    "BZPOPMIN",
    "BZPOPMAX",
    "ZMPOP",
    "BZMPOP",
    "ZREMRANGEBYSCORE",
    "ZREMRANGEBYRANK",
    "ZREMRANGEBYLEX",
    "ZRANGESTORE",
    "ZUNIONSTORE",
    "ZINTERSTORE",
    "ZDIFFSTORE",
    "DEL",
    "UNLINK",
    "RENAME",
    "RENAMENX",
    "SET",
    "COPY",
    "MOVE",
    "RESTORE",
    "SORT",
    "GETDEL",
    "GETSET",
    "APPEND",
];

/// The commands that invoke a script; the `lua` lines after one are its commands.
const SCRIPTS: &[&str] = &["EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO"];

/// One command as `MONITOR` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    /// `lua` for a command a script sent, else the client's address.
    pub client: String,
    /// The command and its arguments, as bytes.
    pub args: Vec<Vec<u8>>,
}

impl Seen {
    fn name(&self) -> String {
        self.args.first().map(|a| String::from_utf8_lossy(a).to_ascii_uppercase()).unwrap_or_default()
    }
}

/// Read one `MONITOR` line: `<time> [<db> <client>] "<arg>" "<arg>" …`, each argument quoted
/// with Redis's escapes (`\"`, `\\`, `\n`, `\r`, `\t`, `\a`, `\b`, `\xHH`). `None` for a line
/// of another shape.
pub fn parse_line(line: &str) -> Option<Seen> {
    let open = line.find('[')?;
    let close = open + line[open..].find(']')?;
    let client = line[open + 1..close].split_once(' ').map_or("", |(_, c)| c).to_owned();
    let mut args = Vec::new();
    let mut rest = &line.as_bytes()[close + 1..];
    loop {
        while rest.first() == Some(&b' ') {
            rest = &rest[1..];
        }
        if rest.is_empty() {
            break;
        }
        if rest[0] != b'"' {
            return None;
        }
        let mut arg = Vec::new();
        let mut i = 1;
        loop {
            match *rest.get(i)? {
                b'"' => break,
                b'\\' => {
                    let (byte, used) = match *rest.get(i + 1)? {
                        b'n' => (b'\n', 2),
                        b'r' => (b'\r', 2),
                        b't' => (b'\t', 2),
                        b'a' => (7, 2),
                        b'b' => (8, 2),
                        b'x' => (u8::from_str_radix(std::str::from_utf8(rest.get(i + 2..i + 4)?).ok()?, 16).ok()?, 4),
                        other => (other, 2),
                    };
                    arg.push(byte);
                    i += used;
                }
                b => {
                    arg.push(b);
                    i += 1;
                }
            }
        }
        args.push(arg);
        rest = &rest[i + 1..];
    }
    (!args.is_empty()).then_some(Seen { client, args })
}

/// What wrote the message keys during one operation.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Writes {
    /// Writes made by commands of their own: each shown as the command and the key it wrote.
    pub direct: Vec<String>,
    /// Scripts and transactions that wrote a message key.
    pub atomic: usize,
}

impl Writes {
    /// Judge one operation's writes by the module's rule.
    pub fn judge(&self, op: &str) -> Result<(), String> {
        if self.direct.is_empty() || self.direct.len() + self.atomic < 2 {
            return Ok(());
        }
        let scripts = match self.atomic {
            0 => String::new(),
            1 => " beside a script or transaction".to_owned(),
            n => format!(" beside {n} scripts or transactions"),
        };
        Err(format!(
            "the {op} wrote the layout's keys with {} command(s) of their own ({}){scripts}: a worker that stops \
             between them leaves the message in no key or in two, and no other SDK can recover it; a multi-key step \
             runs as one Lua script (§1.1's scripts; §1.7: \"in the same script\") or one MULTI/EXEC",
            self.direct.len(),
            self.direct.join(", ")
        ))
    }
}

/// Sort the commands of one operation into [`Writes`] to `keys` (the message keys by name,
/// each with the name shown in messages).
pub fn writes(seen: &[Seen], keys: &HashMap<Vec<u8>, String>) -> Writes {
    let touched = |s: &Seen| -> Option<String> {
        let name = s.name();
        if !WRITES.contains(&name.as_str()) {
            return None;
        }
        s.args[1..].iter().find_map(|a| keys.get(a)).map(|k| format!("{name} {k}"))
    };
    let mut out = Writes::default();
    // The script last invoked and whether it wrote; the clients inside MULTI and the writes of
    // their transaction.
    let mut script: Option<bool> = None;
    let mut multi: HashMap<&str, Vec<String>> = HashMap::new();
    let close_script = |script: &mut Option<bool>, out: &mut Writes| {
        if script.take() == Some(true) {
            out.atomic += 1;
        }
    };
    for s in seen {
        if s.client == "lua" {
            if let Some(wrote) = script.as_mut() {
                *wrote |= touched(s).is_some();
            }
            continue;
        }
        close_script(&mut script, &mut out);
        let name = s.name();
        if let Some(wrote) = multi.get_mut(s.client.as_str()) {
            match name.as_str() {
                // A script inside a transaction: its commands are shown when EXEC runs them, and
                // count as the script's (atomic either way).
                n if SCRIPTS.contains(&n) => script = Some(false),
                "EXEC" | "DISCARD" => {
                    let mut wrote = multi.remove(s.client.as_str()).unwrap_or_default();
                    match wrote.len() {
                        _ if name == "DISCARD" => {}
                        0 => {}
                        // One write in a transaction is no more atomic than the command alone:
                        // two such transactions split a move as two commands do.
                        1 => out.direct.append(&mut wrote),
                        _ => out.atomic += 1,
                    }
                }
                _ => wrote.extend(touched(s)),
            }
            continue;
        }
        if name == "MULTI" {
            multi.insert(&s.client, Vec::new());
        } else if SCRIPTS.contains(&name.as_str()) {
            script = Some(false);
        } else if let Some(w) = touched(s) {
            out.direct.push(w);
        }
    }
    close_script(&mut script, &mut out);
    out
}

/// A connection in `MONITOR` mode, read up to the judge's marks.
pub struct Monitor {
    con: Connection,
    marks: u64,
    tag: String,
}

impl Monitor {
    /// Put `con` (a fresh connection of its own) into `MONITOR` mode.
    pub fn start(mut con: Connection, tag: &str) -> Result<Self, String> {
        con.send_packed_command(&redis::cmd("MONITOR").get_packed_command())
            .and_then(|()| con.recv_response())
            .map_err(|e| format!("the judge could not watch the commands (MONITOR: {e})"))
            .and_then(|v| match v {
                Value::Okay => Ok(()),
                Value::ServerError(e) => Err(format!("the Redis refused MONITOR, which the judge needs ({e:?})")),
                other => Err(format!("MONITOR answered {other:?}")),
            })?;
        Ok(Self { con, marks: 0, tag: tag.to_owned() })
    }

    /// The next mark to write with `ECHO` on the judge's connection; [`Monitor::until`] reads
    /// up to it.
    pub fn next_mark(&mut self) -> String {
        self.marks += 1;
        format!("{}:mark:{}", self.tag, self.marks)
    }

    /// Every command shown before `mark`'s `ECHO`, from the last mark on.
    pub fn until(&mut self, mark: &str) -> Result<Vec<Seen>, String> {
        let mut seen = Vec::new();
        loop {
            let line = match self.con.recv_response() {
                Ok(Value::SimpleString(s)) => s,
                Ok(Value::BulkString(b)) => String::from_utf8_lossy(&b).into_owned(),
                Ok(other) => return Err(format!("MONITOR sent {other:?}")),
                Err(e) => return Err(format!("reading the monitored commands: {e}")),
            };
            let Some(s) = parse_line(&line) else { continue };
            if s.name() == "ECHO" && s.args.get(1).is_some_and(|a| a == mark.as_bytes()) {
                return Ok(seen);
            }
            seen.push(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(client: &str, args: &[&str]) -> Seen {
        Seen { client: client.into(), args: args.iter().map(|a| a.as_bytes().to_vec()).collect() }
    }

    fn keys() -> HashMap<Vec<u8>, String> {
        ["orders", "orders:processing", "orders:processing:deadlines", "queues:orders:reserved"]
            .into_iter()
            .map(|k| (format!("p:{k}").into_bytes(), k.to_owned()))
            .collect()
    }

    #[test]
    fn monitor_lines_parse_with_their_escapes() {
        let s = parse_line(r#"1796515579.377818 [0 lua] "rpush" "p:orders" "{\"a\":\"\\\\\n\x00\"}""#).unwrap();
        assert_eq!(s.client, "lua");
        assert_eq!(s.args, vec![b"rpush".to_vec(), b"p:orders".to_vec(), b"{\"a\":\"\\\\\n\0\"}".to_vec()]);
        let s = parse_line(r#"1.5 [3 127.0.0.1:5370] "EVALSHA" "ab" "1" "p:orders""#).unwrap();
        assert_eq!((s.client.as_str(), s.args.len()), ("127.0.0.1:5370", 4));
        assert_eq!(parse_line("OK"), None);
        assert_eq!(parse_line(r#"1.5 [0 lua] "unterminated"#), None);
    }

    #[test]
    fn writes_inside_scripts_and_transactions_are_atomic() {
        let script = [
            line("c:1", &["EVALSHA", "ab", "2", "p:orders:processing:deadlines", "p:orders:processing"]),
            line("lua", &["zrem", "p:orders:processing:deadlines", "t:x"]),
            line("lua", &["lrem", "p:orders:processing", "1", "x"]),
            line("c:1", &["EXPIRE", "p:orders:processing", "600"]),
        ];
        assert_eq!(writes(&script, &keys()), Writes { direct: vec![], atomic: 1 });
        let multi = [
            line("c:1", &["MULTI"]),
            line("c:2", &["LPOP", "other:orders"]),
            line("c:1", &["ZREM", "p:orders:processing:deadlines", "t:x"]),
            line("c:1", &["LREM", "p:orders:processing", "1", "x"]),
            line("c:1", &["EXEC"]),
        ];
        assert_eq!(writes(&multi, &keys()), Writes { direct: vec![], atomic: 1 });
        assert_eq!(writes(&multi, &keys()).judge("ack"), Ok(()));
        // A transaction of one write is that write: two of them split a move.
        let split = [
            line("c:1", &["MULTI"]),
            line("c:1", &["LPOP", "p:orders"]),
            line("c:1", &["EXEC"]),
            line("c:1", &["MULTI"]),
            line("c:1", &["ZADD", "p:queues:orders:reserved", "1", "x"]),
            line("c:1", &["EXEC"]),
        ];
        assert_eq!(writes(&split, &keys()).direct, vec!["LPOP orders", "ZADD queues:orders:reserved"]);
        assert!(writes(&split, &keys()).judge("reserve").is_err());
        // A script that only reads is no write.
        let reads = [line("c:1", &["EVAL", "…", "1", "p:orders"]), line("lua", &["lrange", "p:orders", "0", "-1"])];
        assert_eq!(writes(&reads, &keys()), Writes::default());
    }

    #[test]
    fn two_writes_of_their_own_cut_the_step_in_half() {
        let ack = [
            line("c:1", &["ZREM", "p:orders:processing:deadlines", "t:x"]),
            line("c:1", &["LREM", "p:orders:processing", "1", "x"]),
        ];
        let w = writes(&ack, &keys());
        assert_eq!(w.direct, vec!["ZREM orders:processing:deadlines", "LREM orders:processing"]);
        let e = w.judge("ack").unwrap_err();
        assert!(e.starts_with("the ack wrote the layout's keys with 2 command(s) of their own (ZREM orders:processing:deadlines, LREM orders:processing): a worker that stops"), "{e}");
        // A script that pops, then a write of its own.
        let reserve = [
            line("c:1", &["EVAL", "…", "1", "p:orders"]),
            line("lua", &["lpop", "p:orders"]),
            line("c:1", &["ZADD", "p:queues:orders:reserved", "1060", "x"]),
        ];
        let e = writes(&reserve, &keys()).judge("reserve").unwrap_err();
        assert!(e.contains("(ZADD queues:orders:reserved) beside a script or transaction"), "{e}");
    }

    #[test]
    fn one_write_alone_and_other_keys_are_fine() {
        let ack = [line("c:1", &["ZREM", "p:queues:orders:reserved", "x"])];
        assert_eq!(writes(&ack, &keys()).judge("ack"), Ok(()));
        // The wake-up list, other prefixes and expiry are not message keys or writes.
        let other = [
            line("c:1", &["BLPOP", "p:queues:orders:notify", "0"]),
            line("c:1", &["LPOP", "q:orders"]),
            line("c:1", &["EXPIRE", "p:orders", "600"]),
            line("c:1", &["ZADD", "p:queues:orders:reserved", "1", "x"]),
        ];
        assert_eq!(writes(&other, &keys()).direct, vec!["ZADD queues:orders:reserved"]);
        assert_eq!(writes(&other, &keys()).judge("reserve"), Ok(()));
    }
}
