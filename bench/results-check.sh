#!/usr/bin/env bash
# `bqsuite results check` is linear in its findings (issue 14), measured with hyperfine.
#
#   bench/results-check.sh [--runs N] [--out DIR]
#
# Builds the release binary, writes two results files against the canonical suite: a complete
# passing file plus F/2 reported cases that are not case ids of the suite and failed, so each
# gives two findings (BQ609 unknown case, BQ612 failed), for F = 60,000 (about 5 MB) and
# F = 600,000 (about 50 MB, every reason eighty characters); checks that each gives exactly
# F findings, then times both in one hyperfine run. Writes DIR/results-check.json and .md
# (hyperfine's exports) and DIR/summary.md: the medians, the ratio of the two (ten times the
# findings should take at most twelve times as long) and the file sizes. Default DIR:
# target/bench-results-check. Nothing here is a test: it reports, it never fails on a time
# (exit 0 unless it could not run).
#
# Needs: cargo, python3, hyperfine.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out="$repo/target/bench-results-check"
runs=(--runs 5)
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=(--runs "$2"); shift 2 ;;
    --out) out=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
    *) echo "usage: bench/results-check.sh [--runs N] [--out DIR]" >&2; exit 2 ;;
  esac
done
command -v hyperfine >/dev/null || { echo "results-check.sh: hyperfine is missing" >&2; exit 2; }
mkdir -p "$out"

echo "== building the release binary" >&2
(cd "$repo" && cargo build --release --locked --quiet)
bq="$repo/target/release/bqsuite"

echo "== writing the results files" >&2
"$bq" ids --suite "$repo" --format json > "$out/ids.json"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
ids = json.load(open(f"{out}/ids.json"))
base = {s: {i: {"status": "pass"} for i in v["ids"]} for s, v in ids["sections"].items() if v["scope"] == "core"}
reason = "expected the envelope to be rejected, but the SDK accepted it and re-emitted it"
for findings in (60_000, 600_000):
    sections = {s: dict(c) for s, c in base.items()}
    sections["cases"].update({f"not-a-case-{n:07d}": {"status": "fail", "reason": reason} for n in range(findings // 2)})
    doc = {"sdk": "babelqueue-bench", "version": "0.0.0", "conformance_version": ids["conformance_version"],
           "generated_at": "2026-12-01T00:00:00Z", "bindings": [], "sections": sections}
    with open(f"{out}/findings-{findings}.json", "w") as f:
        json.dump(doc, f, indent=2)
PY

for f in 60000 600000; do
  # Exit 1 is the expected verdict (Not compatible); count the findings of the JSON report.
  got=$({ "$bq" results check "$out/findings-$f.json" --suite "$repo" --format json || true; } |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["findings"]))')
  [ "$got" = "$f" ] || { echo "results-check.sh: findings-$f.json gave $got findings, not $f" >&2; exit 2; }
done

echo "== timing" >&2
hyperfine --warmup 1 "${runs[@]}" -i \
  --export-json "$out/results-check.json" --export-markdown "$out/results-check.md" \
  -n "60,000 findings" "$bq results check $out/findings-60000.json --suite $repo" \
  -n "600,000 findings" "$bq results check $out/findings-600000.json --suite $repo" >&2

python3 - "$out" <<'PY'
import json, os, statistics, sys
out = sys.argv[1]
res = {r["command"]: statistics.median(r["times"]) for r in json.load(open(f"{out}/results-check.json"))["results"]}
small, large = res["60,000 findings"], res["600,000 findings"]
size = lambda f: os.path.getsize(f"{out}/findings-{f}.json") / 1e6
lines = [
    "| results check | file | median |",
    "|---|---|---|",
    f"| 60,000 findings | {size(60000):.1f} MB | {small:.2f} s |",
    f"| 600,000 findings | {size(600000):.1f} MB | {large:.2f} s |",
    "",
    f"×10 findings: ×{large / small:.2f} time (target ≤ ×12: {'holds' if large / small <= 12 else 'does not hold'})",
]
open(f"{out}/summary.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
