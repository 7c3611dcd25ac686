#!/usr/bin/env bash
# Suite power, measured (issue 21): cargo-mutants over the reference core (src/core) with the
# suite as the only oracle, and a report of what it lets through.
#
#   bench/mutants.sh [--out DIR] [--rev REV] [--shards N] [--shard K] [--file GLOB]... [--re REGEX]
#                    [--iterate] [--report-only] [--no-lua]
#
# The oracle is one test, tests/suite_oracle.rs: load the repository's suite, run the reference
# core through every section with a live Redis, require every case to pass. The unit tests and
# the other integration tests are deliberately not run: they know the core's internals (a
# message text, a helper no SDK operation reaches), so a mutant they catch may still be a core
# that passes the whole suite. What this measures is what a broken SDK could get wrong and
# still pass the suite, which is the suite's promise ("two SDKs that pass it interoperate").
#
# How it runs. The commit REV (default HEAD: uncommitted changes are not measured) is checked
# out into a disposable clone DIR/tree, which keeps its own target directory, so a run resumes
# with incremental builds. cargo-mutants mutates that clone in place (never the working tree),
# building only the oracle (`--test=suite_oracle`, profile `mutants`: dev without debug info).
# The mutants are split into N shards (default 8, `--sharding slice`); each finished shard
# leaves DIR/shard-K/done, so an interrupted run started again with the same arguments skips
# the finished shards and redoes the unfinished one. A different REV or filter starts afresh
# (the old shards are moved to DIR/previous). `--shard K` runs shard K only (one CI job of a
# matrix); `--report-only` writes the report from the shards there are.
#
# `--iterate` re-tests only what the finished run did not catch (cargo-mutants --iterate,
# seeded with every shard's caught and unviable lists, results in DIR/iterate): quick while
# triaging, but a figure to quote comes from a full run.
#
# The report (bench/mutants_report.py) goes to DIR/report.md and DIR/report.json: caught /
# missed / unviable / timeout per core module, the sections that caught each mutant (from the
# oracle's `oracle-fail` lines), the missed mutants, the comparison with
# bench/mutants-accepted.txt, the accepted misses by kind of reason with the ceiling they put on
# the figure (viable minus accepted, of viable), and the Redis Lua variants of the kill matrix (cargo-mutants
# does not mutate Lua; each script's branches and key / argument uses are broken variants of
# the catalogue, run through the suite by `bqsuite dev kill-matrix`; `--no-lua` leaves them
# out). Exit 0: every viable mutant is caught or accepted and every Lua variant is caught;
# 1: a new miss, an accepted mutant that is now caught (or no longer generated, on a full
# run), or an uncaught Lua variant; 2: could not run.
#
# Needs: git, cargo, cargo-mutants (`cargo install --locked cargo-mutants`), python3 and a
# Redis: BQ_REDIS_URL, else a redis-server started on a free loopback port and stopped at exit.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out="$repo/target/suite-mutants"
rev=HEAD
shards=8
only=""
files=()
re=""
iterate=""
report_only=""
lua=1
usage() {
  sed -n '4,5p' "$0" | sed 's/^# *//' >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
    --rev) rev="$2"; shift 2 ;;
    --shards) shards="$2"; shift 2 ;;
    --shard) only="$2"; shift 2 ;;
    --file) files+=("$2"); shift 2 ;;
    --re) re="$2"; shift 2 ;;
    --iterate) iterate=1; shift ;;
    --report-only) report_only=1; shift ;;
    --no-lua) lua=""; shift ;;
    -h|--help) sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
case "$shards" in ''|*[!0-9]*|0) echo "mutants.sh: --shards needs a positive number" >&2; exit 2 ;; esac
if [ -n "$only" ]; then
  case "$only" in *[!0-9]*) echo "mutants.sh: --shard needs a number below --shards" >&2; exit 2 ;; esac
  [ "$only" -lt "$shards" ] || { echo "mutants.sh: --shard $only is not below --shards $shards" >&2; exit 2; }
fi
[ ${#files[@]} -gt 0 ] || files=('src/core/**')
for tool in git cargo python3; do
  command -v "$tool" >/dev/null || { echo "mutants.sh: $tool is missing" >&2; exit 2; }
done
report() {
  local args=(--accepted "$repo/bench/mutants-accepted.txt" --out "$out")
  if [ -n "$re" ] || [ -n "$only" ] || [ -n "$iterate" ] || [ "${files[*]}" != 'src/core/**' ]; then
    args+=(--partial)
  fi
  python3 "$repo/bench/mutants_report.py" "${args[@]}"
}
mkdir -p "$out"
if [ -n "$report_only" ]; then report; exit $?; fi
cargo mutants --version >/dev/null 2>&1 || { echo "mutants.sh: cargo-mutants is missing (cargo install --locked cargo-mutants)" >&2; exit 2; }

commit=$(git -C "$repo" rev-parse --verify "$rev^{commit}")
if [ "$rev" = HEAD ] && ! git -C "$repo" diff --quiet HEAD -- src manifest.json fixtures schema tests Cargo.toml Cargo.lock; then
  echo "mutants.sh: the working tree has uncommitted changes: they are not measured (commit $commit is)" >&2
fi

# What this run measures; shards of another run are stale.
key=$(printf '%s\n' "$commit" "$shards" "${files[@]}" "re=$re")
if [ -f "$out/run.key" ] && [ "$(cat "$out/run.key")" != "$key" ] && [ -z "$iterate" ]; then
  rm -rf "$out/previous"
  mkdir -p "$out/previous"
  for d in "$out"/shard-* "$out"/iterate "$out"/lua "$out"/run.key "$out"/report.*; do
    [ -e "$d" ] && mv "$d" "$out/previous/"
  done
fi

# The disposable clone (objects shared with the repository), at the commit measured.
tree="$out/tree"
if [ ! -d "$tree/.git" ]; then
  git clone --quiet --shared --no-checkout "$repo" "$tree"
fi
git -C "$tree" checkout --quiet --force --detach "$commit"
git -C "$tree" clean -fdq

# A Redis for the oracle.
if [ -z "${BQ_REDIS_URL:-}" ]; then
  command -v redis-server >/dev/null || { echo "mutants.sh: no BQ_REDIS_URL and no redis-server" >&2; exit 2; }
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  rdir=$(mktemp -d)
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
    --daemonize yes --pidfile "$rdir/redis.pid" --dir "$rdir" --logfile "$rdir/redis.log"
  stop_redis() {
    if [ -f "$rdir/redis.pid" ]; then kill "$(cat "$rdir/redis.pid")" 2>/dev/null || true; fi
    rm -rf "$rdir"
  }
  trap stop_redis EXIT
  for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && break; sleep 0.1; done
  export BQ_REDIS_URL="redis://127.0.0.1:$port/"
fi
export BQ_REQUIRE_REDIS=1
echo "mutants.sh: commit $commit, Redis $BQ_REDIS_URL, output $out" >&2

# The oracle must pass on the unmutated tree (cargo-mutants' own baseline is skipped: once is
# enough for all shards).
echo "== baseline: the oracle on the unmutated core" >&2
baseline() { # the oracle on the unmutated tree, appending to baseline.log; exits 2 when it fails
  (cd "$tree" && cargo test --locked --quiet --profile mutants --test suite_oracle >>"$out/baseline.log" 2>&1) || {
    echo "mutants.sh: the oracle fails on the unmutated core (see $out/baseline.log)" >&2
    exit 2
  }
}
: >"$out/baseline.log"
baseline
# The test timeout, from the oracle's own time once built (the second run; cargo's start
# included): a mutant whose oracle runs ten times as long, and at least 30 s, is stuck (a loop
# that no longer ends) and counts as caught. A fixed 120 s spent minutes of a full run on the
# few mutants that loop, while a missed mutant runs as long as the unmutated oracle, far inside
# the bound.
t0=$(date +%s%N)
baseline
test_timeout=$(( ($(date +%s%N) - t0) * 10 / 1000000000 ))
[ "$test_timeout" -lt 30 ] && test_timeout=30
echo "== test timeout ${test_timeout} s (ten times the oracle's time, at least 30 s)" >&2

common=(--in-place --baseline=skip --profile mutants --cargo-arg=--locked --cargo-arg=--test=suite_oracle
  --timeout "$test_timeout" --build-timeout 900 --no-shuffle --sharding slice --colors never)
for f in "${files[@]}"; do common+=(-f "$f"); done
[ -n "$re" ] && common+=(-F "$re")
printf '%s\n' "$key" >"$out/run.key"

run_mutants() { # run_mutants OUTPUT_DIR ARGS...: 0 when cargo-mutants finished (whatever it found)
  local dir=$1 rc=0
  shift
  git -C "$tree" checkout --quiet --force -- .
  (cd "$tree" && nice -n 10 cargo mutants "${common[@]}" -o "$dir" "$@") || rc=$?
  git -C "$tree" checkout --quiet --force -- .
  # cargo-mutants: 0 all caught, 2 some missed, 3 some timed out; anything else did not finish.
  case $rc in 0|2|3) return 0 ;; *) echo "mutants.sh: cargo-mutants exited $rc ($dir)" >&2; return 1 ;; esac
}

if [ -n "$iterate" ]; then
  dir="$out/iterate"
  mkdir -p "$dir/mutants.out"
  # Seed cargo-mutants' --iterate with everything a shard (or an earlier iteration) caught.
  cat "$out"/shard-*/mutants.out/caught.txt "$out"/shard-*/mutants.out/unviable.txt \
    "$dir"/mutants.out/caught.txt "$dir"/mutants.out/unviable.txt "$dir"/mutants.out/previously_caught.txt \
    2>/dev/null | sort -u >"$out/seen.txt" || true
  mv "$out/seen.txt" "$dir/mutants.out/previously_caught.txt"
  echo "== iterate: re-testing what was not caught" >&2
  run_mutants "$dir" --iterate || exit 2
else
  for k in $(seq 0 $((shards - 1))); do
    [ -z "$only" ] || [ "$only" = "$k" ] || continue
    dir="$out/shard-$k"
    if [ -f "$dir/done" ]; then echo "== shard $k/$shards: done before" >&2; continue; fi
    rm -rf "$dir"
    mkdir -p "$dir"
    echo "== shard $k/$shards" >&2
    run_mutants "$dir" --shard "$k/$shards" || exit 2
    date -u +%FT%TZ >"$dir/done"
  done
fi

# The Redis Lua variants: the kill matrix, with the same Redis.
if [ -n "$lua" ]; then
  echo "== the kill matrix (Lua variants)" >&2
  mkdir -p "$out/lua"
  if ! (cd "$tree" && cargo run --locked --quiet --profile mutants -- dev kill-matrix >"$out/lua/kill-matrix.md" 2>"$out/lua/kill-matrix.log"); then
    echo "mutants.sh: dev kill-matrix did not run (see $out/lua/kill-matrix.log)" >&2
    exit 2
  fi
fi
report
