#!/usr/bin/env python3
"""The report of bench/mutants.sh: what the suite catches of the mutants of src/core.

    mutants_report.py --out DIR --accepted FILE [--partial]

Reads every cargo-mutants output under DIR (DIR/shard-*/mutants.out, then DIR/iterate/mutants.out,
whose outcomes replace the shards' for the same mutant), the oracle's `oracle-fail` lines in each
mutant's log (which sections caught it) and DIR/lua/kill-matrix.md (the Lua variants of the
kill matrix), and writes DIR/report.json and DIR/report.md.

The figure: caught = the oracle failed (a timeout counts as caught: a hanging SDK fails a run;
timeouts are reported apart); viable = caught + missed + timeout; unviable mutants (they do not
build) are not counted.

The accepted list (bench/mutants-accepted.txt) has one line per accepted mutant,
`<file>: <description>  ## <reason>`, where <file>: <description> is the mutant's cargo-mutants
name without its line and column (so an edit elsewhere in the file does not break the list); a
line repeated n times accepts n such mutants. Lines starting with # and blank lines are
comments. Checked: every missed mutant is accepted (else a new miss); every accepted entry is
used by a missed mutant (else: it is now caught, or, on a full run, no longer generated). With
--partial (a filter, one shard, an iteration) entries whose mutant was not examined are not
reported.

Exit 0 when clean, 1 when there is a new miss, a stale acceptance or an uncaught Lua variant,
2 when it could not read its inputs.
"""

import argparse
import collections
import glob
import json
import os
import re
import sys

POSITION = re.compile(r"^(?P<file>[^:]+):\d+:\d+: (?P<what>.*)$")
KINDS = ("caught", "missed", "timeout", "unviable")
SUMMARY = {"CaughtMutant": "caught", "MissedMutant": "missed", "Timeout": "timeout", "Unviable": "unviable"}


def key_of(name):
    """A mutant's name without its line and column."""
    m = POSITION.match(name)
    return f"{m['file']}: {m['what']}" if m else name


def module_of(path):
    """src/core/redis/mod.rs -> redis/mod."""
    p = path[len("src/core/"):] if path.startswith("src/core/") else path
    return p[:-3] if p.endswith(".rs") else p


def read_outcomes(out):
    """Mutant name -> (outcome, record, the directory its log is relative to)."""
    found = {}
    dirs = sorted(glob.glob(os.path.join(out, "shard-*", "mutants.out")))
    dirs += [d for d in [os.path.join(out, "iterate", "mutants.out")] if os.path.isdir(d)]
    if not dirs:
        raise SystemExit(f"mutants_report: no cargo-mutants output under {out}")
    incomplete = []
    for d in dirs:
        path = os.path.join(d, "outcomes.json")
        shard = os.path.dirname(d)
        if not os.path.exists(path):
            # A shard with no mutant in it writes no outcomes; one that did not finish is named.
            if not os.path.exists(os.path.join(shard, "done")):
                incomplete.append(os.path.basename(shard))
            continue
        if os.path.basename(shard).startswith("shard-") and not os.path.exists(os.path.join(shard, "done")):
            incomplete.append(os.path.basename(shard))
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            print(f"mutants_report: {path}: {e}", file=sys.stderr)
            sys.exit(2)
        for o in data.get("outcomes", []):
            m = o.get("scenario", {})
            if not isinstance(m, dict) or "Mutant" not in m:
                continue  # the baseline
            kind = SUMMARY.get(o.get("summary"))
            if kind is None:
                continue
            found[m["Mutant"]["name"]] = (kind, m["Mutant"], os.path.join(d, o.get("log_path") or ""))
    return found, incomplete


def caught_by(log):
    """The (section, case id) pairs the oracle printed as failing in one mutant's log."""
    pairs = []
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("oracle-fail\t"):
                    parts = line.rstrip("\n").split("\t")
                    if len(parts) >= 3:
                        pairs.append((parts[1], parts[2]))
    except OSError:
        pass
    return pairs


def read_accepted(path):
    """Key -> [reason, ...] (one reason per accepted mutant)."""
    accepted = collections.defaultdict(list)
    problems = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            head, sep, reason = line.rpartition("  ## ")
            if not sep or not reason.strip() or not head.startswith("src/"):
                problems.append(f"{path}:{n}: not `<file>: <description>  ## <reason>`")
                continue
            accepted[head.strip()].append(reason.strip())
    return accepted, problems


# The kinds of reason bench/mutants-accepted.txt gives, by how a reason starts; anything else is a
# behaviour the 1.6.0 spec leaves unasserted (or that R20 keeps a case from pinning), quoted in
# the reason itself.
KINDS = (
    ("message text", "message text: no case pins wording, and none should"),
    ("fault switch", "fault switch: the catalogue's own branch, off in every real run"),
    ("payload_schema", "payload_schema: R20 and the 1.6.0 version history rule the case out"),
    ("equivalent", "equivalent: no input tells it from the reference"),
)
UNASSERTED = "unasserted: the 1.6.0 spec leaves it open, or R20 keeps a case from pinning it"
NOT_SDK = ("message text", "fault switch")


def kind_of(reason):
    for prefix, kind in KINDS:
        if reason.startswith(prefix):
            return prefix, kind
    return "unasserted", UNASSERTED


def read_kill_matrix(path):
    """The rows of `bqsuite dev kill-matrix`: name -> {breaks, sections: {section: failing}}."""
    rows = {}
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]
    header = next((line for line in lines if line.startswith("| variant |")), None)
    if header is None:
        return rows
    columns = [c.strip() for c in header.strip("|").split("|")][2:]
    for line in lines:
        m = re.match(r"^\| `([^`]+)` \| (.*)$", line)
        if not m:
            continue
        cells = re.split(r"(?<!\\)\|", m[2])
        breaks = cells[0].strip().replace("\\|", "|")
        counts = [c.strip() for c in cells[1:1 + len(columns)]]
        sections = {s: int(c) for s, c in zip(columns, counts) if c}
        rows[m[1]] = {"breaks": breaks, "sections": sections}
    return rows


def cell(text):
    """Text for a Markdown table cell."""
    return text.replace("|", "\\|")


def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "n/a"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--accepted", required=True)
    ap.add_argument("--partial", action="store_true")
    a = ap.parse_args()

    outcomes, incomplete = read_outcomes(a.out)
    if incomplete:
        a.partial = True
    accepted, problems = read_accepted(a.accepted)
    quota = {k: list(v) for k, v in accepted.items()}

    modules = collections.defaultdict(collections.Counter)
    sections = collections.Counter()
    mutants = []
    new_misses = []
    for name in sorted(outcomes, key=lambda n: (outcomes[n][1]["file"], n)):
        kind, m, log = outcomes[name]
        key = key_of(name)
        modules[module_of(m["file"])][kind] += 1
        rec = {"name": name, "key": key, "module": module_of(m["file"]), "outcome": kind}
        if kind == "caught":
            pairs = caught_by(log)
            rec["sections"] = sorted({s for s, _ in pairs})
            rec["cases"] = [f"{s}/{i}" for s, i in pairs]
            for s in rec["sections"]:
                sections[s] += 1
        if kind == "missed":
            if quota.get(key):
                rec["accepted"] = quota[key].pop()
            else:
                new_misses.append(name)
        mutants.append(rec)

    examined = {key_of(n) for n in outcomes}
    now_caught, not_generated = [], []
    for key, left in sorted(quota.items()):
        if not left:
            continue
        if any(key_of(n) == key and outcomes[n][0] in ("caught", "timeout") for n in outcomes):
            now_caught += [key] * len(left)
        elif key not in examined and not a.partial:
            not_generated += [key] * len(left)

    total = collections.Counter()
    for c in modules.values():
        total.update(c)
    viable = total["caught"] + total["missed"] + total["timeout"]
    detected = total["caught"] + total["timeout"]
    accepted_misses = sum(1 for r in mutants if r.get("accepted"))
    # What the accepted misses are, by kind, and what follows from them: a suite that caught
    # every mutant not accepted would stand at the ceiling; the share of the viable mutants that
    # are SDK behaviour (not a message text or a fault switch) is the "of the rest".
    by_kind = collections.Counter(kind_of(r["accepted"])[1] for r in mutants if r.get("accepted"))
    not_sdk = sum(1 for r in mutants if r.get("accepted") and kind_of(r["accepted"])[0] in NOT_SDK)
    ceiling = (viable - accepted_misses) / viable if viable else None
    of_sdk = detected / (viable - not_sdk) if viable > not_sdk else None

    kill = read_kill_matrix(os.path.join(a.out, "lua", "kill-matrix.md"))
    lua = None
    if kill is not None:
        variants = {n: r for n, r in kill.items() if n.startswith("lua-")}
        lua = {
            "variants": [{"name": n, "breaks": r["breaks"], "caught": bool(r["sections"]), "sections": r["sections"]}
                         for n, r in sorted(variants.items())],
            "all_variants": len(kill),
            "all_caught": sum(1 for r in kill.values() if r["sections"]),
        }
    lua_missed = [v["name"] for v in (lua or {}).get("variants", []) if not v["caught"]]

    report = {
        "partial": a.partial,
        "incomplete_shards": incomplete,
        "totals": dict(total, viable=viable, detected=detected, accepted_misses=accepted_misses,
                       caught_share=(detected / viable if viable else None),
                       ceiling=ceiling, not_sdk_behaviour=not_sdk, caught_share_of_sdk_behaviour=of_sdk),
        "accepted_by_kind": dict(sorted(by_kind.items(), key=lambda kv: (-kv[1], kv[0]))),
        "modules": {m: dict(c) for m, c in sorted(modules.items())},
        "sections": dict(sorted(sections.items(), key=lambda kv: (-kv[1], kv[0]))),
        "new_misses": new_misses,
        "accepted_now_caught": now_caught,
        "accepted_not_generated": not_generated,
        "accepted_problems": problems,
        "lua": lua,
        "mutants": mutants,
    }
    tmp = os.path.join(a.out, "report.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    os.replace(tmp, os.path.join(a.out, "report.json"))

    md = []
    w = md.append
    w("# Suite power: mutants of src/core, the suite as the only oracle\n")
    if a.partial:
        w("Partial run (a filter, one shard or an iteration): the figures cover the mutants examined.\n")
    if incomplete:
        w(f"Unfinished shards: {', '.join(incomplete)}.\n")
    w(f"**{detected} of {viable} viable mutants caught ({pct(detected, viable)})**"
      f" ({total['caught']} caught, {total['timeout']} timed out); {total['missed']} missed"
      f" ({accepted_misses} of them accepted in bench/mutants-accepted.txt); {total['unviable']} unviable.\n")
    w("| module | caught | missed | timeout | unviable | caught share |")
    w("|---|---:|---:|---:|---:|---:|")
    for m, c in sorted(modules.items()):
        v = c["caught"] + c["missed"] + c["timeout"]
        w(f"| {m} | {c['caught']} | {c['missed']} | {c['timeout']} | {c['unviable']} | {pct(c['caught'] + c['timeout'], v)} |")
    w(f"| **total** | {total['caught']} | {total['missed']} | {total['timeout']} | {total['unviable']} | {pct(detected, viable)} |\n")
    if accepted_misses:
        w("## What the accepted misses are\n")
        w("| kind | mutants | share of viable |")
        w("|---|---:|---:|")
        for k, n in report["accepted_by_kind"].items():
            w(f"| {k} | {n} | {pct(n, viable)} |")
        w("")
        w(f"Every accepted mutant is one the suite may not catch under the reasons given, so the most"
          f" it could catch on this run is {viable - accepted_misses} of {viable}"
          f" ({pct(viable - accepted_misses, viable)}); a higher figure needs fewer acceptances"
          f" (a new section in the next MINOR, or code leaving the core).\n")
        w(f"Leaving out the {not_sdk} mutants that are not SDK behaviour (message texts and fault"
          f" switches), the suite catches {detected} of {viable - not_sdk} ({pct(detected, viable - not_sdk)}).\n")
    w("## The sections that caught them\n")
    w("A mutant caught by several sections counts once in each.\n")
    w("| section | mutants caught |")
    w("|---|---:|")
    for s, n in report["sections"].items():
        w(f"| {s} | {n} |")
    w("")
    if lua is not None:
        w("## Redis Lua variants (the kill matrix)\n")
        w("cargo-mutants does not mutate Lua: every branch and every key / argument use of each script in"
          " src/core/redis/lua/ is a broken variant of the catalogue.\n")
        w(f"{sum(1 for v in lua['variants'] if v['caught'])} of {len(lua['variants'])} Lua variants caught"
          f" (all variants of the catalogue: {lua['all_caught']} of {lua['all_variants']} caught).\n")
        w("| variant | what it breaks | caught by (failing cases) |")
        w("|---|---|---|")
        for v in lua["variants"]:
            by = ", ".join(f"{s} ({n})" for s, n in sorted(v["sections"].items())) or "**not caught**"
            w(f"| `{v['name']}` | {cell(v['breaks'])} | {by} |")
        w("")
    w("## Against the accepted list\n")
    if not (new_misses or now_caught or not_generated or problems or lua_missed):
        w("Clean: every missed mutant is accepted, every accepted entry is a missed mutant"
          + (", every Lua variant is caught." if lua is not None else "."))
    for title, items in (("New misses (neither caught nor accepted)", new_misses),
                         ("Accepted, but now caught (remove from the list)", now_caught),
                         ("Accepted, but no longer generated (remove or update)", not_generated),
                         ("Unreadable lines of the accepted list", problems),
                         ("Lua variants no case catches", lua_missed)):
        if items:
            w(f"### {title}\n")
            for i in items:
                w(f"- `{i}`")
            w("")
    w("\n## Missed mutants\n")
    w("| mutant | accepted because |")
    w("|---|---|")
    for r in mutants:
        if r["outcome"] == "missed":
            w(f"| `{cell(r['name'])}` | {cell(r.get('accepted') or '**not accepted**')} |")
    w("")
    tmp = os.path.join(a.out, "report.md.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    os.replace(tmp, os.path.join(a.out, "report.md"))

    print(f"{detected} of {viable} viable mutants caught ({pct(detected, viable)}; at most"
          f" {pct(viable - accepted_misses, viable)} under the accepted reasons); {total['missed']} missed,"
          f" {accepted_misses} accepted; {len(new_misses)} new misses, {len(now_caught) + len(not_generated)} stale"
          f" acceptances" + (f"; Lua variants {len(lua['variants']) - len(lua_missed)}/{len(lua['variants'])} caught"
                             if lua is not None else "") + f" -> {os.path.join(a.out, 'report.md')}")
    return 1 if (new_misses or now_caught or not_generated or problems or lua_missed) else 0


if __name__ == "__main__":
    sys.exit(main())
