#!/usr/bin/env bash
# Whole-process comparison of bqsuite with the tooling it replaces (issue 10), with hyperfine.
#
#   bench/compare.sh [--runs N] [--out DIR] [--smoke]
#
# Builds the release binary, generates the ×10 and ×100 suites (`bqsuite dev scale`), builds a
# fake tree of the 25 sync targets (`bqsuite sync` populates it), checks that each baseline does
# the same work as the bqsuite command it is timed against (same verdicts, same tar stream),
# then runs hyperfine once per comparison, each command and its baseline side by side in one
# paired run: `validate` ×100 beside `validate.py` ×100 and the floor (`bqsuite dev floor`: the
# same files read and parsed once with serde_json, no checks), `release` ×100 (built with
# `--file-cap`, since its 20 MB manifest is over fetch's default per-file cap) beside the tar |
# gzip pipeline, `results check` of the ×100 reference results with every case failing.
# Writes DIR/<comparison>.json and .md (hyperfine's exports) and DIR/summary.md: medians,
# ratios, "N× the floor", and whether each target of the issues holds ("holds" / "misses").
# Default DIR: target/bench-compare.
# Nothing here is a test: it reports, it never fails on a time (exit 0 unless it could not run).
#
# --smoke is the pipeline without the measurement, for CI (.ci/run), so the script cannot rot:
# the debug binary instead of a release build, ×2 and ×3 suites in place of ×10 and ×100, one run
# of each command and no warm-up. Every "same work" check still runs, and summary.py is asked to
# fail (exit 1) when a target it looks for has no command of that name in the exports. Its
# figures are not measurements and its summary says so.
#
# Needs: cargo, python3 (installs the `jsonschema` package when missing), GNU tar, gzip,
# sha256sum, diff, hyperfine (installed from Debian's packages when missing and possible) and,
# for the with-Redis row, redis-server (started on a free loopback port, stopped at exit).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out="$repo/target/bench-compare"
runs=()
smoke=
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) [ $# -ge 2 ] || { echo "compare.sh: --runs needs a number" >&2; exit 2; }; runs=(--runs "$2"); shift 2 ;;
    --out) [ $# -ge 2 ] || { echo "compare.sh: --out needs a directory" >&2; exit 2; }; out=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
    --smoke) smoke=1; shift ;;
    *) echo "usage: bench/compare.sh [--runs N] [--out DIR] [--smoke]" >&2; exit 2 ;;
  esac
done
if [ -n "$smoke" ]; then
  mid=2 big=3 warmup=0 profile=debug profile_flag=()
  runs=(--runs 1)
else
  mid=10 big=100 warmup=3 profile=release profile_flag=(--release)
  [ ${#runs[@]} -eq 0 ] && runs=(--min-runs 10)
fi

# Every command is timed offline (validate.py runs no Redis case either, and with a Redis
# `validate` and `release` would run the Redis cases through the reference core); the with-Redis
# rows of `run` pass the Redis this script starts.
unset BQ_REDIS_URL BQ_REQUIRE_REDIS

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v hyperfine >/dev/null; then
  as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine >/dev/null
fi
python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install --quiet jsonschema
for tool in tar gzip sha256sum diff; do command -v "$tool" >/dev/null || { echo "compare.sh: $tool is missing" >&2; exit 2; }; done

echo "== building the $profile binary" >&2
(cd "$repo" && cargo build --locked --quiet "${profile_flag[@]}")
bq="${CARGO_TARGET_DIR:-$repo/target}/$profile/bqsuite"
base="$repo/bench/baseline"

work="$out/work"
rm -rf "$work"
mkdir -p "$work"
# No export of an earlier run may stand in for one this run fails to write.
comparisons=(validate validate-scale validate-x100 release release-x100 sync-check results-check-x100 run)
for name in "${comparisons[@]}"; do rm -f "$out/$name.json" "$out/$name.md"; done
rm -f "$out/summary.md"
# What kind of run this is, for summary.py (the factors name its commands; a smoke run says so).
smoke_json=false
[ -n "$smoke" ] && smoke_json=true
printf '{"smoke": %s, "profile": "%s", "factors": [1, %d, %d]}\n' "$smoke_json" "$profile" "$mid" "$big" > "$out/kind.json"
x1="$repo"
echo "== generating the x$mid and x$big suites" >&2
"$bq" dev scale --suite "$x1" --factor "$mid" --out "$work/x$mid" 2>/dev/null
"$bq" dev scale --suite "$x1" --factor "$big" --out "$work/x$big" 2>/dev/null

echo "== building the fake tree of sync targets" >&2
# Outside the repository: `sync` never writes a copy inside the canonical suite's directory
# (BQ711), and the default --out lies in it.
tree=$(mktemp -d "${TMPDIR:-/tmp}/bqsuite-compare-tree.XXXXXX")
# At exit: the tree goes, and the Redis started below, if any, is stopped.
trap 'kill "$(cat "$work/redis.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$tree"' EXIT
version=$(tr -d '[:space:]' < "$x1/CONFORMANCE_VERSION")
mkdir -p "$tree"
python3 - "$x1/sync-targets.json" "$tree" "$version" > "$work/targets.txt" <<'PY'
import json, os, sys
targets, tree, version = json.load(open(sys.argv[1]))["targets"], sys.argv[2], sys.argv[3]
for t in targets:
    wf = os.path.join(tree, t["repo"], ".github", "workflows")
    os.makedirs(wf, exist_ok=True)
    with open(os.path.join(wf, "ci.yml"), "w") as f:
        f.write(f"# CI pins the suite it checks\n# git clone --depth 1 --branch v{version} conformance\n")
    print(t["repo"], t["path"])
PY
"$bq" sync --suite "$x1" --root "$tree" --strict >/dev/null
ntargets=$(wc -l < "$work/targets.txt")

echo "== checking that each baseline does the same work" >&2
same() { # same WHAT EXPECTED_STATUS CMD...
  local what=$1 want=$2 got=0
  shift 2
  "$@" >/dev/null 2>&1 || got=$?
  if [ "$got" != "$want" ]; then echo "compare.sh: $what exited $got, expected $want" >&2; exit 2; fi
}
for s in "$x1" "$work/x$mid" "$work/x$big"; do
  same "bqsuite validate $s" 0 "$bq" validate --suite "$s"
  same "validate.py $s" 0 python3 "$base/validate.py" "$s"
done
cp -r "$work/x$mid" "$work/broken"
python3 - "$work/broken/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["roundtrip"]["cases"][0]["expect_preserved"]["/no/such/key"] = 1
json.dump(m, open(sys.argv[1], "w"), indent=2)
PY
same "bqsuite validate on a broken suite" 1 "$bq" validate --suite "$work/broken"
same "validate.py on a broken suite" 1 python3 "$base/validate.py" "$work/broken"
asset="babelqueue-conformance-$version.tar.gz"
# --allow-dirty: the generated suites live under target/ (never committed) and the checkout may
# hold uncommitted edits; a benchmark publishes nothing, so BQ959 is not its business.
for s in "$x1" "$work/x$big"; do
  same "bqsuite release $s" 0 "$bq" release --no-previous --allow-dirty --file-cap $((64 << 20)) --suite "$s" --out "$work/release-bq"
  bash "$base/release.sh" "$s" "$work/release-baseline"
  cmp <(gzip -dc "$work/release-bq/$asset") <(gzip -dc "$work/release-baseline/$asset") \
    || { echo "compare.sh: the baseline's tar stream of $s differs from bqsuite's" >&2; exit 2; }
done
same "bqsuite sync --check" 0 "$bq" sync --check --suite "$x1" --root "$tree" --strict
same "sync-check.sh" 0 bash "$base/sync-check.sh" "$x1" "$tree" "$work/targets.txt"
last=$(tail -n 1 "$work/targets.txt")
drifted="$tree/${last%% *}/${last#* }/fixtures/$(find "$x1/fixtures" -maxdepth 1 -name '*.json' -printf '%f\n' | LC_ALL=C sort | tail -n 1)"
cp "$drifted" "$work/saved.json" && echo ' ' >> "$drifted"
same "bqsuite sync --check on a drifted tree" 1 "$bq" sync --check --suite "$x1" --root "$tree"
same "sync-check.sh on a drifted tree" 1 bash "$base/sync-check.sh" "$x1" "$tree" "$work/targets.txt"
cp "$work/saved.json" "$drifted"
same "bqsuite sync --check, restored" 0 "$bq" sync --check --suite "$x1" --root "$tree"

# results check: the x100 reference results (no Redis: the Redis sections skip) with every
# case turned into a failure, one finding (BQ612) per case.
env -u BQ_REDIS_URL -u BQ_REQUIRE_REDIS SOURCE_DATE_EPOCH=0 "$bq" run --suite "$work/x$big" --out "$work/results-x100.json" 2>/dev/null
python3 - "$work/results-x100.json" "$work/failing-x100.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for cases in doc["sections"].values():
    for case in cases:
        cases[case] = {"status": "fail", "reason": "expected the envelope to be rejected, but the SDK accepted it"}
json.dump(doc, open(sys.argv[2], "w"), indent=2)
PY
ncases=$(python3 -c 'import json,sys; print(sum(len(c) for c in json.load(open(sys.argv[1]))["sections"].values()))' "$work/failing-x100.json")
nfindings=$({ "$bq" results check "$work/failing-x100.json" --suite "$work/x$big" --format json || true; } |
  python3 -c 'import json,sys; print(len(json.load(sys.stdin)["findings"]))')
[ "$nfindings" = "$ncases" ] || { echo "compare.sh: results check gave $nfindings findings for $ncases failing cases" >&2; exit 2; }

# run --sdk through the reference adapter writes the in-process results byte for byte.
adapter="$bq adapter"
env -u BQ_REDIS_URL -u BQ_REQUIRE_REDIS SOURCE_DATE_EPOCH=0 "$bq" run --suite "$x1" --out "$work/in-process.json" 2>/dev/null
env -u BQ_REDIS_URL -u BQ_REQUIRE_REDIS SOURCE_DATE_EPOCH=0 "$bq" run --suite "$x1" --sdk "$adapter" \
  --out "$work/through-adapter.json" 2>/dev/null
cmp "$work/in-process.json" "$work/through-adapter.json" \
  || { echo "compare.sh: run --sdk '$adapter' gives other results than run" >&2; exit 2; }

redis_url=
if command -v redis-server >/dev/null; then
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --pidfile "$work/redis.pid" --dir "$work" --logfile "$work/redis.log"
  for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  redis_url="redis://127.0.0.1:$port/"
  same "bqsuite run with Redis" 0 env BQ_REDIS_URL="$redis_url" BQ_REQUIRE_REDIS=1 "$bq" run --suite "$x1" --out "$work/results.json"
else
  echo "compare.sh: redis-server is not installed; the with-Redis row is left out" >&2
fi

# hyperfine NAME [hyperfine args...] — one paired run, exported as NAME.json and NAME.md.
bench() {
  local name=$1
  shift
  echo "== $name" >&2
  hyperfine -N --style basic --warmup "$warmup" "${runs[@]}" \
    --export-json "$out/$name.json" --export-markdown "$out/$name.md" "$@" >&2
}
q() { printf '%q' "$1"; }
export NO_COLOR=1
bench validate \
  -n "bqsuite validate (x1)" "$bq validate --suite $(q "$x1")" \
  -n "validate.py (x1)" "python3 $(q "$base/validate.py") $(q "$x1")"
bench validate-scale \
  -n "bqsuite validate (x1)" "$bq validate --suite $(q "$x1")" \
  -n "bqsuite validate (x$mid)" "$bq validate --suite $(q "$work/x$mid")" \
  -n "bqsuite validate (x$big)" "$bq validate --suite $(q "$work/x$big")"
bench validate-x100 \
  -n "bqsuite validate (x$big)" "$bq validate --suite $(q "$work/x$big")" \
  -n "validate.py (x$big)" "python3 $(q "$base/validate.py") $(q "$work/x$big")" \
  -n "floor: read + serde_json parse (x$big)" "$bq dev floor --suite $(q "$work/x$big")"
bench release \
  -n "bqsuite release (x1)" "$bq release --no-previous --allow-dirty --suite $(q "$x1") --out $(q "$work/release-bq")" \
  -n "tar | gzip -n -9 | sha256sum (x1)" "bash $(q "$base/release.sh") $(q "$x1") $(q "$work/release-baseline") 9" \
  -n "tar | gzip -n | sha256sum (x1, level 6)" "bash $(q "$base/release.sh") $(q "$x1") $(q "$work/release-baseline") 6"
# The x100 manifest (20 MB) is over fetch's 16 MiB per-file cap, which release enforces by
# default; --file-cap raises it for this build only (the suite's own per-file cap, 64 MiB).
file_cap=$((64 << 20))
bench release-x100 \
  -n "bqsuite release (x$big)" "$bq release --no-previous --allow-dirty --file-cap $file_cap --suite $(q "$work/x$big") --out $(q "$work/release-bq")" \
  -n "tar | gzip -n -9 | sha256sum (x$big)" "bash $(q "$base/release.sh") $(q "$work/x$big") $(q "$work/release-baseline") 9"
bench sync-check \
  -n "bqsuite sync --check ($ntargets targets)" "$bq sync --check --suite $(q "$x1") --root $(q "$tree")" \
  -n "sync-check.sh ($ntargets targets)" "bash $(q "$base/sync-check.sh") $(q "$x1") $(q "$tree") $(q "$work/targets.txt")"
bench results-check-x100 -i \
  -n "bqsuite results check (x$big, $nfindings failing cases)" \
  "$bq results check $(q "$work/failing-x100.json") --suite $(q "$work/x$big")"
sdk=(--sdk "$(q "$adapter")")
run_args=(-n "bqsuite run, no Redis" "env -u BQ_REDIS_URL -u BQ_REQUIRE_REDIS $bq run --suite $(q "$x1") --out $(q "$work/results.json")"
  -n "bqsuite run --sdk 'bqsuite adapter', no Redis" "env -u BQ_REDIS_URL -u BQ_REQUIRE_REDIS $bq run --suite $(q "$x1") ${sdk[*]} --out $(q "$work/results.json")")
if [ -n "$redis_url" ]; then
  run_args+=(-n "bqsuite run, local Redis" "env BQ_REDIS_URL=$redis_url BQ_REQUIRE_REDIS=1 $bq run --suite $(q "$x1") --out $(q "$work/results.json")"
    -n "bqsuite run --sdk 'bqsuite adapter', local Redis" "env BQ_REDIS_URL=$redis_url BQ_REQUIRE_REDIS=1 $bq run --suite $(q "$x1") ${sdk[*]} --out $(q "$work/results.json")")
fi
bench run "${run_args[@]}"

python3 "$repo/bench/summary.py" ${smoke:+--strict} "$out" > "$out/summary.md" || status=$?
cat "$out/summary.md"
exit "${status:-0}"
