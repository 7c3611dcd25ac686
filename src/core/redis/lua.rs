//! The transport's Lua scripts (`lua/`, included at build time) and their broken variants.
//!
//! Mutation testing of the Rust code does not reach the scripts, so the catalogue has a broken
//! variant for every branch and every key / argument use of each of them (names `lua-…`): the
//! real script with exactly one textual edit, applied while that variant is switched on.
//!
//! Invariants: with no variant switched on a script runs exactly as its file says; an edit
//! replaces text that occurs exactly once in its script, and every `lua-…` variant of the
//! catalogue has exactly one edit (both tested), so a variant cannot quietly stop applying
//! when a script changes; no edit makes a script loop forever (a migrate or sweep variant still
//! removes at least one member of every chunk it reads).
//!
//! Left without a variant on purpose: the end of `:processing` the legacy reserve appends to
//! (`LMOVE … 'RIGHT'`). The spec pins only that the body leaves the ready list's head for
//! `:processing` byte for byte and that LREM (by value, count 1) takes one copy out; the order
//! inside `:processing` is observable by no SDK operation, so no case may pin it.

use std::borrow::Cow;
use std::sync::LazyLock;

use redis::Script;

use crate::fault::{self, Fault};

/// One script of the transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lua {
    ZsetMigrate,
    ZsetReserve,
    ZsetSettle,
    ProcessingReserve,
    ProcessingSettle,
    ProcessingSweep,
}

/// A broken variant of a script: `find` (once in the script) becomes `replace`.
struct Edit {
    fault: Fault,
    lua: Lua,
    find: &'static str,
    replace: &'static str,
}

const fn edit(fault: Fault, lua: Lua, find: &'static str, replace: &'static str) -> Edit {
    Edit { fault, lua, find, replace }
}

/// The gate line both settle scripts start with.
const GATE: &str = "if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then\n  return 0\nend";
/// The empty-list branch both reserve scripts have.
const EMPTY: &str = "if not raw then\n  return false\nend";
/// A sweep that returns after its first chunk: the loop is left before a second chunk is read.
const SWEEP_ONE_CHUNK: &str = "  if moved + orphaned + malformed > 0 then\n    return {moved, orphaned, malformed}\n  end\n  for _, member in ipairs(expired) do";

use Lua::*;

const EDITS: &[Edit] = &[
    edit(Fault::LuaZsetMigrateExclusiveNow, ZsetMigrate, "'-inf', ARGV[1]", "'-inf', '(' .. ARGV[1]"),
    edit(Fault::LuaZsetMigrateIgnoresNow, ZsetMigrate, "'-inf', ARGV[1]", "'-inf', '+inf'"),
    edit(Fault::LuaZsetMigrateOneChunk, ZsetMigrate, "moved = moved + #due", "do return moved + #due end"),
    edit(
        Fault::LuaZsetMigrateRemovesFirstOnly,
        ZsetMigrate,
        "redis.call('ZREM', KEYS[1], unpack(due))",
        "redis.call('ZREM', KEYS[1], due[1])",
    ),
    edit(Fault::LuaZsetMigratePushesToHead, ZsetMigrate, "'RPUSH', KEYS[2]", "'LPUSH', KEYS[2]"),
    edit(Fault::LuaZsetMigrateOneTokenPerChunk, ZsetMigrate, "for i = 1, #due do", "for i = 1, 1 do"),
    edit(Fault::LuaZsetMigrateReportsNone, ZsetMigrate, "return moved\n", "return 0\n"),
    edit(Fault::LuaZsetReservePopsTail, ZsetReserve, "'LPOP', KEYS[1]", "'RPOP', KEYS[1]"),
    edit(Fault::LuaZsetReserveEmptyGivesBody, ZsetReserve, EMPTY, "if not raw then\n  raw = ''\nend"),
    edit(Fault::LuaZsetReserveKeepsToken, ZsetReserve, "redis.call('LPOP', KEYS[3])\n", ""),
    edit(Fault::LuaZsetReserveUnguardedDecode, ZsetReserve, "pcall(cjson.decode, raw)", "true, cjson.decode(raw)"),
    edit(Fault::LuaZsetReserveSkipsObjectCheck, ZsetReserve, "decoded and type(body) == 'table' and", "decoded and"),
    edit(Fault::LuaZsetReserveSkipsAttemptsCheck, ZsetReserve, " and type(body.attempts) == 'number'", ""),
    edit(Fault::LuaZsetReserveUnguardedEncode, ZsetReserve, "pcall(cjson.encode, body)", "true, cjson.encode(body)"),
    edit(Fault::LuaZsetReserveAttemptsUnchanged, ZsetReserve, "body.attempts + 1", "body.attempts"),
    edit(Fault::LuaZsetReserveEverythingPoison, ZsetReserve, "member, poison = text, 0", "member, poison = text, 1"),
    edit(Fault::LuaZsetReserveIgnoresDeadline, ZsetReserve, "ARGV[1], member)", "'+inf', member)"),
    edit(Fault::LuaZsetReserveStoresRaw, ZsetReserve, "ARGV[1], member)", "ARGV[1], raw)"),
    edit(Fault::LuaZsetSettleUngated, ZsetSettle, GATE, "redis.call('ZREM', KEYS[1], ARGV[1])"),
    edit(
        Fault::LuaZsetSettleKeepsReservation,
        ZsetSettle,
        "redis.call('ZREM', KEYS[1], ARGV[1]) == 0",
        "redis.call('ZSCORE', KEYS[1], ARGV[1]) == false",
    ),
    edit(Fault::LuaZsetSettleScoreZero, ZsetSettle, "ARGV[4], ARGV[3]", "0, ARGV[3]"),
    edit(
        Fault::LuaZsetSettleDeadLetterWritesMember,
        ZsetSettle,
        "'RPUSH', KEYS[2], ARGV[3]",
        "'RPUSH', KEYS[2], ARGV[1]",
    ),
    edit(Fault::LuaZsetSettleSwapsTargets, ZsetSettle, "ARGV[2] == 'zadd'", "ARGV[2] ~= 'zadd'"),
    edit(Fault::LuaZsetSettleReleaseToReserved, ZsetSettle, "'ZADD', KEYS[2]", "'ZADD', KEYS[1]"),
    edit(Fault::LuaZsetSettleReportsNotApplied, ZsetSettle, "return 1", "return 0"),
    edit(Fault::LuaProcessingReserveTakesTail, ProcessingReserve, "'LEFT', 'RIGHT'", "'RIGHT', 'RIGHT'"),
    edit(Fault::LuaProcessingReserveEmptyGivesBody, ProcessingReserve, EMPTY, "if not raw then\n  raw = ''\nend"),
    edit(
        Fault::LuaProcessingReserveNoDeadline,
        ProcessingReserve,
        "redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1] .. ':' .. raw)\n",
        "",
    ),
    edit(Fault::LuaProcessingReserveIgnoresDeadline, ProcessingReserve, "KEYS[3], ARGV[2],", "KEYS[3], '+inf',"),
    edit(Fault::LuaProcessingReserveMemberWithoutToken, ProcessingReserve, "ARGV[1] .. ':' .. raw", "raw"),
    edit(Fault::LuaProcessingReserveStaysInReady, ProcessingReserve, "KEYS[1], KEYS[2],", "KEYS[1], KEYS[1],"),
    edit(Fault::LuaProcessingReserveHandsMember, ProcessingReserve, "return raw", "return ARGV[1] .. ':' .. raw"),
    edit(Fault::LuaProcessingSettleUngated, ProcessingSettle, GATE, "redis.call('ZREM', KEYS[1], ARGV[1])"),
    edit(
        Fault::LuaProcessingSettleKeepsMember,
        ProcessingSettle,
        "redis.call('ZREM', KEYS[1], ARGV[1]) == 0",
        "redis.call('ZSCORE', KEYS[1], ARGV[1]) == false",
    ),
    edit(Fault::LuaProcessingSettleLremAll, ProcessingSettle, "KEYS[2], 1, ARGV[2]", "KEYS[2], 0, ARGV[2]"),
    edit(Fault::LuaProcessingSettleLremMember, ProcessingSettle, "KEYS[2], 1, ARGV[2]", "KEYS[2], 1, ARGV[1]"),
    edit(Fault::LuaProcessingSettleWritesNothing, ProcessingSettle, "if KEYS[3] then", "if false then"),
    edit(Fault::LuaProcessingSettleWritesRaw, ProcessingSettle, "KEYS[3], ARGV[3]", "KEYS[3], ARGV[2]"),
    edit(Fault::LuaProcessingSettlePushesToHead, ProcessingSettle, "'RPUSH', KEYS[3]", "'LPUSH', KEYS[3]"),
    edit(Fault::LuaProcessingSettleReportsNotApplied, ProcessingSettle, "return 1", "return 0"),
    edit(Fault::LuaProcessingSweepExclusiveNow, ProcessingSweep, "'-inf', ARGV[1]", "'-inf', '(' .. ARGV[1]"),
    edit(Fault::LuaProcessingSweepIgnoresNow, ProcessingSweep, "'-inf', ARGV[1]", "'-inf', '+inf'"),
    edit(Fault::LuaProcessingSweepOneChunk, ProcessingSweep, "  for _, member in ipairs(expired) do", SWEEP_ONE_CHUNK),
    edit(
        Fault::LuaProcessingSweepRemovesFirstOnly,
        ProcessingSweep,
        "redis.call('ZREM', KEYS[1], member)",
        "redis.call('ZREM', KEYS[1], expired[1])",
    ),
    edit(
        Fault::LuaProcessingSweepSkipsFormatCheck,
        ProcessingSweep,
        "if not string.find(member, token) then",
        "if false then",
    ),
    edit(Fault::LuaProcessingSweepTokenAnyCase, ProcessingSweep, "'[0-9a-f]'", "'[0-9a-fA-F]'"),
    edit(Fault::LuaProcessingSweepToken31Hex, ProcessingSweep, "'[0-9a-f]', 32)", "'[0-9a-f]', 31)"),
    edit(Fault::LuaProcessingSweepTokenUnanchored, ProcessingSweep, "'^' .. string.rep", "string.rep"),
    edit(Fault::LuaProcessingSweepAnySeparator, ProcessingSweep, "32) .. ':'", "32) .. '.'"),
    edit(Fault::LuaProcessingSweepRawWithColon, ProcessingSweep, "string.sub(member, 34)", "string.sub(member, 33)"),
    edit(Fault::LuaProcessingSweepLremAll, ProcessingSweep, "KEYS[2], 1, raw", "KEYS[2], 0, raw"),
    edit(Fault::LuaProcessingSweepOrphanCountedMoved, ProcessingSweep, "orphaned = orphaned + 1", "moved = moved + 1"),
    edit(
        Fault::LuaProcessingSweepMalformedCountedOrphan,
        ProcessingSweep,
        "malformed = malformed + 1",
        "orphaned = orphaned + 1",
    ),
    edit(Fault::LuaProcessingSweepRequeuesOrphans, ProcessingSweep, "1, raw) == 1 then", "1, raw) >= 0 then"),
    edit(Fault::LuaProcessingSweepPushesToHead, ProcessingSweep, "'RPUSH', KEYS[3], raw", "'LPUSH', KEYS[3], raw"),
];

static SCRIPTS: LazyLock<[Script; 6]> = LazyLock::new(|| Lua::ALL.map(|l| Script::new(l.source())));

impl Lua {
    const ALL: [Lua; 6] = [ZsetMigrate, ZsetReserve, ZsetSettle, ProcessingReserve, ProcessingSettle, ProcessingSweep];

    /// The script's text, as its file has it.
    fn source(self) -> &'static str {
        match self {
            ZsetMigrate => include_str!("lua/zset_migrate.lua"),
            ZsetReserve => include_str!("lua/zset_reserve.lua"),
            ZsetSettle => include_str!("lua/zset_settle.lua"),
            ProcessingReserve => include_str!("lua/processing_reserve.lua"),
            ProcessingSettle => include_str!("lua/processing_settle.lua"),
            ProcessingSweep => include_str!("lua/processing_sweep.lua"),
        }
    }

    /// The script to run: the real one, or the broken variant of it that is switched on.
    pub(super) fn script(self) -> Cow<'static, Script> {
        match EDITS.iter().find(|e| e.lua == self && fault::active(e.fault)) {
            Some(e) => Cow::Owned(Script::new(&self.source().replacen(e.find, e.replace, 1))),
            None => Cow::Borrowed(&SCRIPTS[self as usize]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_edit_applies_to_exactly_one_place() {
        for e in EDITS {
            assert_eq!(e.lua.source().matches(e.find).count(), 1, "{}: {:?} in {:?}", e.fault, e.find, e.lua);
            assert_ne!(e.find, e.replace, "{}", e.fault);
        }
    }

    #[test]
    fn every_lua_variant_of_the_catalogue_has_exactly_one_edit() {
        for f in Fault::ALL {
            let edits = EDITS.iter().filter(|e| e.fault == *f).count();
            let lua = f.name().starts_with("lua-");
            assert_eq!(edits, usize::from(lua), "{f}: {edits} edits");
        }
    }

    #[test]
    fn a_script_is_its_file_unless_a_variant_is_on() {
        for l in Lua::ALL {
            assert_eq!(l.script().get_hash(), Script::new(l.source()).get_hash());
        }
        fault::with(Fault::LuaZsetSettleReportsNotApplied, || {
            assert_ne!(ZsetSettle.script().get_hash(), Script::new(ZsetSettle.source()).get_hash());
            assert_eq!(ProcessingSettle.script().get_hash(), Script::new(ProcessingSettle.source()).get_hash());
        });
    }
}
