//! Watching the commands an SDK's Redis operation sends (`MONITOR`), to judge that a step which
//! moves a message between keys cannot be cut in half.
//!
//! The rules (the redis_layout description's ruling, from §1.1, whose layout is Laravel's Lua
//! scripts and whose reserve is "the reserve Lua", and §1.7: the gate's "ZREM … a result of 1
//! runs LREM and the rest in the same script"). A step's writes to the keys that hold messages
//! (every key of the layout but the wake-up list `:notify`) fall into units: a command sent on
//! its own, a Lua script, or a MULTI/EXEC transaction (the scripts it runs included).
//! - **A move is never split**: no unit that only takes messages out of keys (`LPOP`, `ZREM`,
//!   `LREM`, …) sits beside another that only puts them in (`RPUSH`, `ZADD`, …). A worker that
//!   stops between the two loses the message where no other SDK's sweep or migrate finds it.
//!   Units that do both, or one command that does both (`LMOVE`), are whole; so any number of
//!   whole scripts (a reserve runs the migrate's and then its own), one removal alone (Laravel
//!   acks with one `ZREM`), and the published legacy reserve (`BLMOVE`, which cannot block
//!   inside a script, and then the deadline member) pass.
//! - **The legacy gate is one unit**: in the processing layout's ack, release and dead-letter,
//!   the `ZREM` of the deadline member and the `LREM` of the body from `:processing` are in the
//!   same unit, since the one's result decides the other; two units strand the body in
//!   `:processing` with no member, where no sweep finds it.
//!
//! Pushes are not judged: a push is one write.
//!
//! Invariants:
//! - Only the commands between two marks count: the judge writes `ECHO <mark>` on its own
//!   connection right before and right after a step, and reads the monitor up to each mark, so
//!   the judge's own seeding and reading never count.
//! - A command runs on Redis's one thread, so a script's commands (shown as `lua`) follow its
//!   invocation with nothing in between: each `lua` line belongs to the script last invoked, and
//!   to its transaction when the script ran inside one. The commands one client sends between
//!   its MULTI and its EXEC are one transaction (Redis 7 shows them there; the monitor refuses an
//!   older server, whose order differs).
//! - Only writes that name keys count: a command is a write when [`effect`] knows it (expiry
//!   commands are not: they move no message, and the judge's own connection adds `EXPIRE` after
//!   every command under the case's prefix), and it touches a message key when one of its
//!   arguments is that key's name exactly. Other clients on the same Redis (other cases, other
//!   runs) use other prefixes, so their commands never match.
//! - The monitor connection is the run's second (opened by the first case that watches,
//!   reused by the others, whose marks are unique in the run); a Redis that refuses `MONITOR`
//!   fails the case, saying so.
//! - What this cannot see: a broken SDK that pads each half of a split move with a write that
//!   changes nothing (a `ZREM` of a member that is not there) looks whole; the rules are for
//!   transports written in good faith.

use std::collections::HashMap;

use redis::{Connection, Value};

use crate::sdk::wire::{RedisLayout, RedisRole};

/// What a write command does to the keys it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Puts messages in.
    Adds,
    /// Takes messages out.
    Removes,
    /// Both, in one command on one key (`LSET`, `GETSET`); a move between two keys is a
    /// removal from one and an addition to the other ([`effects`]).
    Both,
}

/// The effect of the write command `name` (upper case) on the keys it names, or `None` for a
/// command that changes no message.
fn effect(name: &str) -> Option<Effect> {
    Some(match name {
        "LPUSH" | "RPUSH" | "LPUSHX" | "RPUSHX" | "LINSERT" | "ZADD" | "ZINCRBY" | "SET" | "APPEND" | "RESTORE"
        | "GEOADD" => Effect::Adds,
        "LPOP" | "RPOP" | "BLPOP" | "BRPOP" | "LMPOP" | "BLMPOP" | "LREM" | "LTRIM" | "ZREM" | "ZPOPMIN"
        | "ZPOPMAX" | "BZPOPMIN" | "BZPOPMAX" | "ZMPOP" | "BZMPOP" | "ZREMRANGEBYSCORE" | "ZREMRANGEBYRANK"
        | "ZREMRANGEBYLEX" | "DEL" | "UNLINK" | "GETDEL" | "MOVE" => Effect::Removes,
        "LSET" | "GETSET" => Effect::Both,
        _ => return None,
    })
}

/// What the command `name` (upper case) does to each key it names, by argument position:
/// `(argument index, effect)`, `None` for a command that changes no message (reads, expiry,
/// connection and script management). A command that moves between two keys (`LMOVE src dst`)
/// removes from its source and adds to its destination, so a move between a layout key and a
/// key outside the layout is a removal or an addition alone; a command that stores into a
/// destination (`ZRANGESTORE dst src …`) only adds there; every other write has one effect on
/// every key it names.
fn effects(name: &str, args: &[Vec<u8>]) -> Option<Vec<(usize, Effect)>> {
    let all = |e: Effect| Some((1..args.len()).map(|i| (i, e)).collect());
    match name {
        "LMOVE" | "BLMOVE" | "RPOPLPUSH" | "BRPOPLPUSH" | "RENAME" | "RENAMENX" | "SMOVE" => {
            Some(vec![(1, Effect::Removes), (2, Effect::Adds)])
        }
        "ZRANGESTORE" | "ZUNIONSTORE" | "ZINTERSTORE" | "ZDIFFSTORE" | "GEOSEARCHSTORE" => {
            Some(vec![(1, Effect::Adds)])
        }
        "COPY" => Some(vec![(2, Effect::Adds)]),
        "SORT" | "GEORADIUS" | "GEORADIUSBYMEMBER" => {
            let store =
                args.iter().position(|a| a.eq_ignore_ascii_case(b"STORE") || a.eq_ignore_ascii_case(b"STOREDIST"));
            Some(store.map(|i| vec![(i + 1, Effect::Adds)]).unwrap_or_default())
        }
        "MIGRATE" => Some(vec![(3, Effect::Removes)]),
        _ => all(effect(name)?),
    }
}

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
    // The client may be an IPv6 address (`[0 [::1]:36106]`): the field ends at the last `]`
    // before the first argument.
    // Both brackets come before the first argument; a line that has them elsewhere, or in the
    // wrong order, is of another shape.
    let head = &line[..line.find('"')?];
    let open = head.find('[')?;
    let close = head.rfind(']').filter(|&c| c > open)?;
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

/// The keys a step is judged on: each message key's name, with the name shown in messages and
/// its role.
pub type Keys = HashMap<Vec<u8>, (String, RedisRole)>;

/// One unit of a step's writes: a command sent on its own, a script, or a transaction.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Each write as the command and the key it names (without the case's prefix).
    pub writes: Vec<String>,
    adds: bool,
    removes: bool,
    /// The bodies whose deadline member (`<token>:<body>`) a `ZREM` of the deadlines key named,
    /// and the bodies an `LREM` of `:processing` named: the legacy gate's two halves.
    gate_zrem: Vec<Vec<u8>>,
    gate_lrem: Vec<Vec<u8>>,
    /// A move from the ready list into `:processing` (the legacy reserve's `BLMOVE`); only
    /// deadline members added: the reserve's second half.
    into_processing: bool,
    only_deadlines_added: bool,
}

impl Unit {
    fn write(&mut self, s: &Seen, keys: &Keys) {
        let name = s.name();
        let Some(effects) = effects(&name, &s.args) else { return };
        let first = self.writes.is_empty();
        let mut deadlines_only = true;
        for (i, effect) in effects {
            let Some((shown, role)) = s.args.get(i).and_then(|a| keys.get(a)) else { continue };
            self.writes.push(format!("{name} {shown}"));
            self.adds |= effect != Effect::Removes;
            self.removes |= effect != Effect::Adds;
            deadlines_only &= effect == Effect::Adds && name == "ZADD" && *role == RedisRole::Deadlines;
            let moves = matches!(name.as_str(), "LMOVE" | "BLMOVE" | "RPOPLPUSH" | "BRPOPLPUSH");
            self.into_processing |= moves && effect == Effect::Adds && *role == RedisRole::Processing;
            let arg = |k: usize| s.args.get(k).cloned().unwrap_or_default();
            if name == "ZREM" && *role == RedisRole::Deadlines {
                let members = s.args[2..].iter();
                self.gate_zrem
                    .extend(members.filter_map(|m| m.iter().position(|b| *b == b':').map(|c| m[c + 1..].to_vec())));
            }
            if name == "LREM" && *role == RedisRole::Processing {
                self.gate_lrem.push(arg(3));
            }
        }
        if !self.writes.is_empty() {
            self.only_deadlines_added = (first || self.only_deadlines_added) && deadlines_only;
        }
    }

    fn shown(&self) -> String {
        self.writes.join(", ")
    }
}

/// Sort the commands of one step into its [`Unit`]s of writes to `keys`, in order; units that
/// wrote no message key are left out.
pub fn units(seen: &[Seen], keys: &Keys) -> Vec<Unit> {
    let mut units: Vec<Unit> = Vec::new();
    // The unit receiving the `lua` lines of the script last invoked; each client's open
    // transaction.
    let mut script: Option<usize> = None;
    let mut multi: HashMap<&str, usize> = HashMap::new();
    for s in seen {
        if s.client == "lua" {
            if let Some(i) = script {
                units[i].write(s, keys);
            }
            continue;
        }
        script = None;
        let name = s.name();
        if let Some(&i) = multi.get(s.client.as_str()) {
            match name.as_str() {
                "EXEC" => drop(multi.remove(s.client.as_str())),
                "DISCARD" => {
                    multi.remove(s.client.as_str());
                    units[i] = Unit::default();
                }
                // A script inside a transaction: its commands are shown when EXEC runs them,
                // and belong to the transaction.
                n if SCRIPTS.contains(&n) => script = Some(i),
                _ => units[i].write(s, keys),
            }
            continue;
        }
        if name == "MULTI" {
            multi.insert(&s.client, units.len());
            units.push(Unit::default());
        } else if SCRIPTS.contains(&name.as_str()) {
            script = Some(units.len());
            units.push(Unit::default());
        } else {
            let mut unit = Unit::default();
            unit.write(s, keys);
            units.push(unit);
        }
    }
    units.retain(|u| !u.writes.is_empty());
    // The published legacy reserve: BLMOVE (which cannot block inside a script), then the
    // deadline member, bare or in a script of its own. The two are one unit: what it risks, a
    // body in :processing with no member yet, is that layout's published design.
    let mut merged: Vec<Unit> = Vec::with_capacity(units.len());
    for unit in units {
        match merged.last_mut() {
            Some(last) if last.into_processing && unit.only_deadlines_added => {
                last.writes.extend(unit.writes);
                last.adds = true;
            }
            _ => merged.push(unit),
        }
    }
    merged
}

/// Judge one step's units by the module's rules: `op` names the step, `layout` its layout.
pub fn judge(units: &[Unit], op: &str, layout: RedisLayout) -> Result<(), String> {
    let only = |adds: bool| units.iter().position(|u| u.adds == adds && u.removes != adds);
    if let (Some(out), Some(into)) = (only(false), only(true)) {
        // What a worker that stops between the two leaves behind depends on their order: said
        // as it happened, since an SDK that writes first and removes second risks a duplicate,
        // not a loss (both stay refused: neither is one unit, and a write made before the
        // removal cannot be gated by it).
        let (out_shown, into_shown) = (units[out].shown(), units[into].shown());
        let what = if out < into {
            format!(
                "took a message out ({out_shown}) and put one in in a later step ({into_shown}): a worker that stops \
                 between them loses the message, which is then in no key any SDK reads"
            )
        } else {
            format!(
                "put a message in ({into_shown}) and took one out in a later step ({out_shown}): a worker that stops \
                 between them leaves it in both places, so it is delivered twice (or dead-lettered and retried), \
                 and the write was made before the removal could say whether the reservation still existed"
            )
        };
        return Err(format!(
            "the {op} {what}; a step that moves a message runs as one Lua script (§1.1's scripts; §1.7: \"in the \
             same script\") or one MULTI/EXEC"
        ));
    }
    if layout == RedisLayout::Processing && matches!(op, "ack" | "release" | "dead_letter") {
        // The ZREM of a body's member and the LREM of that body, in two units.
        let split = units.iter().enumerate().find_map(|(z, zu)| {
            let l = units
                .iter()
                .enumerate()
                .position(|(l, lu)| l != z && lu.gate_lrem.iter().any(|b| zu.gate_zrem.contains(b)))?;
            Some((z, l))
        });
        if let Some((z, l)) = split {
            return Err(format!(
                "the {op}'s gate removed the deadline member ({}) and the body from :processing ({}) in two \
                 steps: §1.7 runs the LREM \"in the same script\" as the ZREM whose result decides it; a worker \
                 that stops between them leaves the body in :processing with no deadline member, which no sweep \
                 recovers",
                units[z].shown(),
                units[l].shown()
            ));
        }
    }
    Ok(())
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
        let info: String = redis::cmd("INFO")
            .arg("server")
            .query(&mut con)
            .map_err(|e| format!("the judge could not read the server's version (INFO server: {e})"))?;
        let version = info.lines().find_map(|l| l.strip_prefix("redis_version:")).unwrap_or("").trim().to_owned();
        let major = version.split('.').next().and_then(|m| m.parse::<u32>().ok());
        if major.is_none_or(|m| m < 7) {
            return Err(format!(
                "the judge needs Redis 7 or later (the runner contract's redis:7), whose MONITOR shows a \
                 transaction's commands before its EXEC; this server is {}",
                if version.is_empty() { "of an unknown version" } else { &version }
            ));
        }
        con.send_packed_command(&redis::cmd("MONITOR").get_packed_command())
            .and_then(|()| con.recv_response())
            .map_err(|e| format!("the judge could not watch the commands (MONITOR: {e})"))
            .and_then(|v| match v {
                Value::Okay => Ok(()),
                // A managed Redis often disables MONITOR (rename-command): say so in the
                // server's words, not the client library's types.
                Value::ServerError(e) => Err(format!(
                    "the Redis refused MONITOR, which the judge needs to see an SDK's commands ({}{}): use a Redis \
                     that allows it (a local redis:7 does)",
                    e.code(),
                    e.details().map(|d| format!(" {d}")).unwrap_or_default()
                )),
                other => Err(format!("MONITOR answered {}, not OK", shown_reply(&other))),
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
                Ok(other) => return Err(format!("MONITOR sent {}, not a command line", shown_reply(&other))),
                Err(e) => {
                    return Err(format!(
                        "the judge's own mark never came back through MONITOR ({e}): the commands of this step \
                         could not be watched"
                    ));
                }
            };
            let Some(s) = parse_line(&line) else { continue };
            if s.name() == "ECHO" && s.args.get(1).is_some_and(|a| a == mark.as_bytes()) {
                return Ok(seen);
            }
            seen.push(s);
        }
    }
}

/// A Redis reply as a reason shows it: its kind, and its text when it has one (never the client
/// library's Rust types).
fn shown_reply(v: &Value) -> String {
    match v {
        Value::Nil => "nil".into(),
        Value::Int(n) => format!("the integer {n}"),
        Value::SimpleString(s) => format!("the status {}", crate::sections::quoted(s)),
        Value::BulkString(b) => format!("the string {}", crate::sections::quoted(&String::from_utf8_lossy(b))),
        Value::Okay => "OK".into(),
        Value::ServerError(e) => format!("the error {}", e.code()),
        _ => "a reply of another kind".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Red team of stop 53: a Redis that refuses MONITOR (managed services rename it) was told
    /// in the client library's types, `ServerError(Known { kind: ResponseError, … })`.
    #[test]
    fn a_reply_is_said_in_redis_words() {
        assert_eq!(super::shown_reply(&Value::Int(3)), "the integer 3");
        assert_eq!(super::shown_reply(&Value::SimpleString("QUEUED".into())), "the status \"QUEUED\"");
        assert_eq!(super::shown_reply(&Value::Nil), "nil");
    }

    fn line(client: &str, args: &[&str]) -> Seen {
        Seen { client: client.into(), args: args.iter().map(|a| a.as_bytes().to_vec()).collect() }
    }

    fn keys() -> Keys {
        [
            ("orders", RedisRole::Ready),
            ("orders:processing", RedisRole::Processing),
            ("orders:processing:deadlines", RedisRole::Deadlines),
            ("orders:dlq", RedisRole::Dlq),
            ("queues:orders", RedisRole::Ready),
            ("queues:orders:reserved", RedisRole::Reserved),
        ]
        .into_iter()
        .map(|(k, role)| (format!("p:{k}").into_bytes(), (k.to_owned(), role)))
        .collect()
    }

    fn judged(seen: &[Seen], op: &str, layout: RedisLayout) -> Result<(), String> {
        judge(&units(seen, &keys()), op, layout)
    }

    #[test]
    fn monitor_lines_parse_with_their_escapes() {
        let s = parse_line(r#"1796515579.377818 [0 lua] "rpush" "p:orders" "{\"a\":\"\\\\\n\x00\"}""#).unwrap();
        assert_eq!(s.client, "lua");
        assert_eq!(s.args, vec![b"rpush".to_vec(), b"p:orders".to_vec(), b"{\"a\":\"\\\\\n\0\"}".to_vec()]);
        let s = parse_line(r#"1.5 [3 127.0.0.1:5370] "EVALSHA" "ab" "1" "p:orders""#).unwrap();
        assert_eq!((s.client.as_str(), s.args.len()), ("127.0.0.1:5370", 4));
        // An IPv6 client.
        let s = parse_line(r#"1.5 [0 [::1]:36106] "ECHO" "m""#).unwrap();
        assert_eq!((s.client.as_str(), s.args.len()), ("[::1]:36106", 2));
        assert_eq!(parse_line("OK"), None);
        assert_eq!(parse_line(r#"1.5 [0 lua] "unterminated"#), None);
        // Found by fuzzing: brackets only inside the arguments, or closed before they open.
        assert_eq!(parse_line(r#"\71x0] "EVALSHA" "[{" "k1""#), None);
        assert_eq!(parse_line(r#"1.5 ] [ "ECHO" "m""#), None);
        assert_eq!(parse_line(r#"1.5 "ECHO" "[0 lua]""#), None);
    }

    #[test]
    fn whole_scripts_and_transactions_pass() {
        let gate = [
            line("c:1", &["EVALSHA", "ab", "2", "p:orders:processing:deadlines", "p:orders:processing"]),
            line("lua", &["zrem", "p:orders:processing:deadlines", "t:x"]),
            line("lua", &["lrem", "p:orders:processing", "1", "x"]),
            line("lua", &["rpush", "p:orders", "y"]),
            line("c:1", &["EXPIRE", "p:orders:processing", "600"]),
        ];
        assert_eq!(units(&gate, &keys()).len(), 1);
        assert_eq!(judged(&gate, "release", RedisLayout::Processing), Ok(()));
        // One transaction holding a command and a script (redis-py's pipeline with a Script).
        let multi = [
            line("c:1", &["WATCH", "p:queues:orders:reserved"]),
            line("c:1", &["MULTI"]),
            line("c:2", &["LPOP", "other:orders"]),
            line("c:1", &["ZREM", "p:queues:orders:reserved", "x"]),
            line("c:1", &["EVAL", "…", "1", "p:orders:dlq"]),
            line("lua", &["rpush", "p:orders:dlq", "r"]),
            line("c:1", &["EXEC"]),
        ];
        assert_eq!(units(&multi, &keys()).len(), 1);
        assert_eq!(judged(&multi, "dead_letter", RedisLayout::Zset), Ok(()));
        // Laravel's reserve: the migrate's scripts (one moving nothing), the pop, BLPOP on the
        // wake-up list, the pop again.
        let reserve = [
            line("c:1", &["EVALSHA", "m", "2", "p:queues:orders:delayed", "p:queues:orders"]),
            line("lua", &["zrangebyscore", "p:queues:orders:delayed", "-inf", "1000"]),
            line("c:1", &["EVALSHA", "pop", "2", "p:queues:orders", "p:queues:orders:reserved"]),
            line("lua", &["lpop", "p:queues:orders"]),
            line("c:1", &["BLPOP", "p:queues:orders:notify", "1"]),
            line("c:1", &["EVALSHA", "pop", "2", "p:queues:orders", "p:queues:orders:reserved"]),
            line("lua", &["lpop", "p:queues:orders"]),
            line("lua", &["zadd", "p:queues:orders:reserved", "1060", "x"]),
        ];
        assert_eq!(judged(&reserve, "reserve", RedisLayout::Zset), Ok(()));
        // Laravel's ack, one ZREM; the published legacy reserve, BLMOVE then the deadline member.
        let ack = [line("c:1", &["ZREM", "p:queues:orders:reserved", "x"])];
        assert_eq!(judged(&ack, "ack", RedisLayout::Zset), Ok(()));
        let legacy = [
            line("c:1", &["BLMOVE", "p:orders", "p:orders:processing", "LEFT", "RIGHT", "1"]),
            line("c:1", &["ZADD", "p:orders:processing:deadlines", "1060", "t:x"]),
        ];
        assert_eq!(judged(&legacy, "reserve", RedisLayout::Processing), Ok(()));
        // The wake-up list, other prefixes and expiry are not message keys or writes.
        let other = [
            line("c:1", &["LPOP", "p:queues:orders:notify"]),
            line("c:1", &["LPOP", "q:orders"]),
            line("c:1", &["EXPIRE", "p:orders", "600"]),
        ];
        assert_eq!(units(&other, &keys()), vec![]);
    }

    #[test]
    fn a_move_split_in_two_fails() {
        let reserve = [
            line("c:1", &["LPOP", "p:queues:orders"]),
            line("c:1", &["ZADD", "p:queues:orders:reserved", "1060", "x"]),
        ];
        let e = judged(&reserve, "reserve", RedisLayout::Zset).unwrap_err();
        assert!(
            e.starts_with("the reserve took a message out (LPOP queues:orders) and put one in in a later step (ZADD queues:orders:reserved): a worker that stops between them loses the message"),
            "{e}"
        );
        // Each half in a script or a transaction of its own is split all the same.
        let scripts = [
            line("c:1", &["EVAL", "return redis.call(unpack(ARGV))", "0", "LPOP", "p:queues:orders"]),
            line("lua", &["LPOP", "p:queues:orders"]),
            line("c:1", &["MULTI"]),
            line("c:1", &["ZADD", "p:queues:orders:reserved", "1060", "x"]),
            line("c:1", &["EXEC"]),
        ];
        assert!(judged(&scripts, "reserve", RedisLayout::Zset).is_err());
        // A legacy release whose gate is whole but whose retry is written apart.
        let release = [
            line("c:1", &["EVAL", "…", "2", "p:orders:processing:deadlines", "p:orders:processing"]),
            line("lua", &["zrem", "p:orders:processing:deadlines", "t:x"]),
            line("lua", &["lrem", "p:orders:processing", "1", "x"]),
            line("c:1", &["RPUSH", "p:orders", "y"]),
        ];
        assert!(judged(&release, "release", RedisLayout::Processing).unwrap_err().contains("(RPUSH orders)"));
        // Written first and removed second (the real Node and Python transports of stop 47's
        // probes): refused all the same, and said as it happened, a duplicate rather than a loss.
        let dead_letter =
            [line("c:1", &["RPUSH", "p:orders:dlq", "r"]), line("c:1", &["LREM", "p:orders:processing", "1", "x"])];
        let e = judged(&dead_letter, "dead_letter", RedisLayout::Processing).unwrap_err();
        assert!(
            e.starts_with("the dead_letter put a message in (RPUSH orders:dlq) and took one out in a later step (LREM orders:processing): a worker that stops between them leaves it in both places"),
            "{e}"
        );
        assert!(!e.contains("loses"), "{e}");
    }

    #[test]
    fn a_move_through_a_key_outside_the_layout_is_split() {
        // LMOVE into a private list takes the message out of the layout; the ZADD puts it back
        // in another step.
        let reserve = [
            line("c:1", &["LMOVE", "p:queues:orders", "p:queues:orders:inflight:w1", "LEFT", "RIGHT"]),
            line("c:1", &["ZADD", "p:queues:orders:reserved", "1060", "x"]),
        ];
        let e = judged(&reserve, "reserve", RedisLayout::Zset).unwrap_err();
        assert!(
            e.contains("(LMOVE queues:orders) and put one in in a later step (ZADD queues:orders:reserved)"),
            "{e}"
        );
        // A store into a layout key adds there only; its sources are read.
        let store = [
            line("c:1", &["ZREM", "p:queues:orders:reserved", "x"]),
            line("c:1", &["ZRANGESTORE", "p:orders:dlq", "p:queues:orders:reserved", "0", "-1"]),
        ];
        assert!(judged(&store, "dead_letter", RedisLayout::Zset).is_err());
    }

    #[test]
    fn the_legacy_reserve_after_a_cleanup_sweep_passes() {
        // The sweep only removes a malformed member; then BLMOVE and the deadline member, bare
        // or in a script.
        for zadd in &[
            vec![line("c:1", &["ZADD", "p:orders:processing:deadlines", "1060", "t:x"])],
            vec![
                line("c:1", &["EVAL", "…", "1", "p:orders:processing:deadlines"]),
                line("lua", &["zadd", "p:orders:processing:deadlines", "1060", "t:x"]),
            ],
        ] {
            let mut seen = vec![
                line("c:1", &["EVALSHA", "sweep", "3", "p:orders:processing:deadlines"]),
                line("lua", &["zrem", "p:orders:processing:deadlines", "junk"]),
                line("c:1", &["BLMOVE", "p:orders", "p:orders:processing", "LEFT", "RIGHT", "1"]),
            ];
            seen.extend(zadd.iter().cloned());
            assert_eq!(judged(&seen, "reserve", RedisLayout::Processing), Ok(()));
            // The older spelling of the same move.
            seen[2] = line("c:1", &["BRPOPLPUSH", "p:orders", "p:orders:processing", "1"]);
            assert_eq!(judged(&seen, "reserve", RedisLayout::Processing), Ok(()));
        }
    }

    #[test]
    fn the_legacy_gate_is_one_unit() {
        let ack = [
            line("c:1", &["ZREM", "p:orders:processing:deadlines", "t:x"]),
            line("c:1", &["LREM", "p:orders:processing", "1", "x"]),
        ];
        let e = judged(&ack, "ack", RedisLayout::Processing).unwrap_err();
        assert!(
            e.starts_with("the ack's gate removed the deadline member (ZREM orders:processing:deadlines) and the body from :processing (LREM orders:processing) in two steps"),
            "{e}"
        );
        // Only the legacy layout's settling steps have that gate.
        assert_eq!(judged(&ack, "sweep", RedisLayout::Processing), Ok(()));
        // A decoy script that removes other things does not make the split gate whole.
        let mut padded = vec![
            line("c:1", &["EVAL", "…", "2", "p:orders:processing:deadlines", "p:orders:processing"]),
            line("lua", &["zrem", "p:orders:processing:deadlines", "nothing"]),
            line("lua", &["lrem", "p:orders:processing", "0", "nothing"]),
        ];
        padded.extend(ack.iter().cloned());
        assert!(
            judged(&padded, "ack", RedisLayout::Processing)
                .unwrap_err()
                .contains("(ZREM orders:processing:deadlines) and the body")
        );
    }
}
