#!/usr/bin/env python3
"""Summarise bench/compare.sh's hyperfine exports: medians, ratios and the issue's targets.

usage: summary.py [--strict] DIR   (DIR holds kind.json, validate.json, ... from compare.sh)
Prints Markdown: the machine, every command's median, and each target with its ratio and
whether it "holds" or "misses" (a target whose run is missing says "not measured"); the floor
row gives validate ×100 as "N× the floor". Reports only; never fails on a time.

DIR/kind.json says what kind of run made the exports: {"smoke", "profile", "factors": [1, mid,
big]}; the commands are named after the factors ("bqsuite validate (x100)"), and a smoke run
(compare.sh --smoke: debug binary, small suites, one run each) is announced as not a
measurement. Without kind.json (exports of an older compare.sh) the factors are 1, 10 and 100.
--strict: exit 1 when a target finds no command of its name in the exports ("not measured"),
so a renamed command in compare.sh cannot silently drop a target (CI runs it this way).
"""
import json
import os
import platform
import re
import subprocess
import sys


def medians(path):
    with open(path) as f:
        return {r["command"]: r["median"] for r in json.load(f)["results"]}


def cell(text):
    """Text for a Markdown table cell."""
    return text.replace("|", "\\|")


def ms(seconds):
    return f"{seconds * 1000:.1f} ms"


def version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "not found"


def cpu():
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
            return m.group(1) if m else platform.processor()
    except OSError:
        return platform.processor()


def run_kind(d):
    """(smoke, profile, mid, big) from DIR/kind.json, or the defaults of a full run."""
    try:
        with open(os.path.join(d, "kind.json")) as f:
            kind = json.load(f)
        _, mid, big = kind["factors"]
        return bool(kind["smoke"]), str(kind["profile"]), int(mid), int(big)
    except FileNotFoundError:
        return False, "release", 10, 100
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"summary.py: {os.path.join(d, 'kind.json')} is not a compare.sh run description: {e}")


def main(d, require_all=False):
    smoke, profile, mid, big = run_kind(d)
    x = lambda text: text.replace("x100", f"x{big}")
    load = lambda name: medians(os.path.join(d, f"{name}.json")) if os.path.exists(os.path.join(d, f"{name}.json")) else {}
    v, scale, v100 = load("validate"), load("validate-scale"), load("validate-x100")
    rel, rel100, sync, run = load("release"), load("release-x100"), load("sync-check"), load("run")
    rc100 = load("results-check-x100")
    find = lambda table, prefix: next((t for c, t in table.items() if c.startswith(prefix)), None)

    rows = []  # (target, measured, limit text, holds)

    def ratio(target, table, ours, theirs, limit, strict=False, unit="×"):
        a, b = find(table, ours), find(table, theirs)
        if a is None or b is None:
            rows.append((target, "not measured", f"{'<' if strict else '≤'} {limit}{unit}", None))
            return
        r = a / b
        rows.append((target, f"{ms(a)} / {ms(b)} = **{r:.3f}{unit}**", f"{'<' if strict else '≤'} {limit}{unit}",
                     r < limit if strict else r <= limit))

    def absolute(target, table, ours, limit):
        a = find(table, ours)
        if a is None:
            rows.append((target, "not measured", f"< {ms(limit)}", None))
            return
        rows.append((target, f"**{ms(a)}**", f"< {ms(limit)}", a < limit))

    # Issue 20's targets first, then the earlier issues' (10, 16) that still stand.
    ratio("validate (x100) vs validate.py (x100)", v100, "bqsuite validate", "validate.py", 0.1)
    ratio("validate (x100) vs the floor (x100): N× the floor", v100, "bqsuite validate", "floor:", 2.5)
    ratio("validate (x1) vs validate.py (x1)", v, "bqsuite validate", "validate.py", 0.03)
    ratio("release (x100, gate included) vs tar | gzip -n -9 | sha256sum (x100)", rel100, "bqsuite release",
          "tar | gzip -n -9", 1.0)
    absolute("results check, x100 reference results, every case failing", rc100, "bqsuite results check", 2.0)
    ratio("validate x100 / x1 (scaling)", scale, f"bqsuite validate (x{big})", "bqsuite validate (x1)", 100, unit="")
    absolute("validate (x100)", scale, f"bqsuite validate (x{big})", 1.0)
    ratio("release (x1) vs tar | gzip -n -9 | sha256sum", rel, "bqsuite release", "tar | gzip -n -9", 1.0)
    ratio("sync --check vs the diff loop", sync, "bqsuite sync --check", "sync-check.sh", 0.5)
    absolute("run, no Redis", run, "bqsuite run, no Redis", 0.2)
    absolute("run, local Redis", run, "bqsuite run, local Redis", 3.0)
    ratio("run --sdk 'bqsuite adapter' vs run, no Redis", run, "bqsuite run --sdk 'bqsuite adapter', no Redis",
          "bqsuite run, no Redis", 2.0)
    ratio("run --sdk 'bqsuite adapter' vs run, local Redis", run, "bqsuite run --sdk 'bqsuite adapter', local Redis",
          "bqsuite run, local Redis", 2.0)
    # Rows no run measured (run without Redis has no local-Redis rows) are left out.
    rows = [r for r in rows if r[3] is not None or not r[0].endswith("local Redis")]
    # The targets are the issues' words (x100); a run on other factors names its own.
    rows = [(x(target), *rest) for target, *rest in rows]

    info = []  # (comparison, measured)
    for label, table, ours, theirs in [
        ("floor (x100) vs validate.py (x100)", v100, "floor:", "validate.py"),
        ("release (x1) vs tar | gzip -n (level 6)", rel, "bqsuite release", "tar | gzip -n | sha256sum (x1, level 6)"),
    ]:
        a, b = find(table, ours), find(table, theirs)
        if a is not None and b is not None:
            info.append((x(label), f"{ms(a)} / {ms(b)} = {a / b:.3f}×"))

    if smoke:
        print(f"**Smoke run** (`bench/compare.sh --smoke`): the {profile} binary, suites ×{mid} and ×{big} in place of "
              "×10 and ×100, one run of each command. It checks that the pipeline works; its figures are not "
              "measurements, and no verdict below means anything.\n")
    print("### Machine\n")
    print(f"- `uname -a`: {version(['uname', '-a'])}")
    print(f"- CPU: {cpu()}; `nproc`: {os.cpu_count()}")
    jsonschema = version(["python3", "-c", "import importlib.metadata as m; print(m.version('jsonschema'))"])
    tools = [version(["hyperfine", "--version"]), version(["python3", "--version"]) + f" with jsonschema {jsonschema}",
             version(["tar", "--version"]), version(["gzip", "--version"]), version(["redis-server", "--version"])]
    print(f"- {'; '.join(tools)}")
    print("\n### Targets (each ratio from one paired hyperfine run)\n")
    print("| target | bqsuite / baseline (medians) | target | verdict |")
    print("|---|---|---|---|")
    for target, measured, limit, holds in rows:
        verdict = "not measured" if holds is None else "(smoke run)" if smoke else "holds" if holds else "**misses**"
        print(f"| {cell(target)} | {measured} | {limit} | {verdict} |")
    if info:
        print("\n### For information (no target)\n")
        print("| comparison | bqsuite / baseline (medians) |")
        print("|---|---|")
        for label, measured in info:
            print(f"| {cell(label)} | {measured} |")
    print("\n### Every command (median)\n")
    print("| run | command | median |")
    print("|---|---|---|")
    for name, table in [("validate", v), ("validate-scale", scale), ("validate-x100", v100), ("release", rel),
                        ("release-x100", rel100), ("results-check-x100", rc100), ("sync-check", sync), ("run", run)]:
        for command, t in table.items():
            print(f"| {name} | {cell(command)} | {ms(t)} |")
    missing = [target for target, _, _, holds in rows if holds is None]
    if require_all and missing:
        for target in missing:
            print(f"summary.py: no command in {d} measures the target {target!r}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    require_all = "--strict" in args
    args = [a for a in args if a != "--strict"]
    if len(args) != 1:
        sys.exit("usage: summary.py [--strict] DIR")
    sys.exit(main(args[0], require_all))
