#!/usr/bin/env bash
# Would the tests notice if a gate broke? cargo-mutants over the tool's own gates (results
# check, fetch's extraction, sync's copy checks, the release gate, validate), each group of
# files judged by the tests that reach it, as bench/gate-oracles.txt maps them.
#
#   bench/gate-mutants.sh [--out DIR] [--rev REV] [--group K]... [--list]
#
# bench/mutants.sh asks what the *suite* lets a broken SDK get away with; this asks what the
# *tests* let a broken bqsuite get away with: a mutant of a gate that every test reaching it
# passes is a verdict, a refusal or a message that could change unnoticed. Every such survivor
# is either closed by a test or listed in bench/gate-mutants-accepted.txt with the reason it is
# no gap (equivalent: no input tells it apart; or unreachable where the tests run).
#
# How it runs. The commit REV (default HEAD; uncommitted changes are not measured) is checked
# out into a disposable clone DIR/tree (default DIR: target/gate-mutants), which keeps its own
# target directory. For each group (all, or each `--group K`, K counting the groups of
# gate-oracles.txt from 1) cargo-mutants mutates that clone in place with profile `mutants`,
# runs the unit tests and the group's test binaries, and leaves its outcome in DIR/group-K.
# Then each group's missed mutants are compared with the accepted list (file and description;
# line and column are ignored, so an edit elsewhere keeps an entry).
#
# `--list` builds and runs nothing: it prints each group with its mutant count and checks that
# every accepted entry names a mutant cargo-mutants still generates (seconds; CI can run it).
#
# Exit 0: every missed mutant is accepted (and, with --list, no acceptance is stale); 1: a new
# miss or a stale acceptance; 2: could not run. A full run is hours on two cores (sync's tests
# take about 80 s per mutant, adapter_run's about 100 s); run one group at a time.
#
# Needs: git, cargo, cargo-mutants (`cargo install --locked cargo-mutants@27.1.0`), python3;
# redis-server for the tests that need one (they start it themselves).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out="$repo/target/gate-mutants"
rev=HEAD
groups=()
list=""
usage() {
  sed -n '6p' "$0" | sed 's/^# *//' >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || usage; out=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
    --rev) [ $# -ge 2 ] || usage; rev="$2"; shift 2 ;;
    --group) [ $# -ge 2 ] || usage; groups+=("$2"); shift 2 ;;
    --list) list=1; shift ;;
    -h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
for tool in git cargo python3; do
  command -v "$tool" >/dev/null || { echo "gate-mutants.sh: $tool is missing" >&2; exit 2; }
done
cargo mutants --version >/dev/null 2>&1 || { echo "gate-mutants.sh: cargo-mutants is missing (cargo install --locked cargo-mutants@27.1.0)" >&2; exit 2; }

oracles="$repo/bench/gate-oracles.txt"
accepted="$repo/bench/gate-mutants-accepted.txt"
# The groups: "files|tests" per line, comments and blank lines dropped.
mapfile -t all < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$oracles" | grep -v '^$')
[ ${#all[@]} -gt 0 ] || { echo "gate-mutants.sh: $oracles names no group" >&2; exit 2; }
if [ ${#groups[@]} -eq 0 ]; then
  mapfile -t groups < <(seq 1 ${#all[@]})
fi
for k in "${groups[@]}"; do
  case "$k" in ''|*[!0-9]*) echo "gate-mutants.sh: --group needs a number from 1 to ${#all[@]}" >&2; exit 2 ;; esac
  if [ "$k" -lt 1 ] || [ "$k" -gt ${#all[@]} ]; then
    echo "gate-mutants.sh: --group $k: there are ${#all[@]} groups" >&2
    exit 2
  fi
done

files_of() { echo "${all[$(($1 - 1))]}" | cut -d'|' -f1; }
tests_of() { echo "${all[$(($1 - 1))]}" | cut -d'|' -f2; }
file_args() { local f; for f in $(files_of "$1"); do printf -- '--file\n%s\n' "$f"; done; }

# Compare missed (or generated, with --list) mutants with the accepted list. In: files of
# "file:line:col: description" lines; prints what is new or stale, exits 1 for any, 2 for a
# malformed list.
compare() { # compare MODE FILE...: MODE missed | generated
  python3 - "$repo/bench" "$accepted" "$@" <<'EOF'
import sys
from collections import Counter
bench, accepted_path, mode, *paths = sys.argv[1:]
sys.path.insert(0, bench)
# The accepted list has bench/mutants-accepted.txt's format, read by the same code: an entry
# repeated n times accepts n mutants of that description (one function may hold several
# alike: two `>` of one function are one description).
from mutants_report import key_of, read_accepted
reasons, problems = read_accepted(accepted_path)
if problems:
    print("\n".join(problems))
    sys.exit(2)
accepted = Counter({entry: len(why) for entry, why in reasons.items()})
seen = Counter()
for p in paths:
    seen.update(key_of(l.strip()) for l in open(p, encoding="utf-8") if l.strip())
bad = 0
if mode == "missed":
    for k, count in sorted(seen.items()):
        if count > accepted[k]:
            print(f"new miss: {k}" + (f" ({count - accepted[k]} more than accepted)" if accepted[k] else ""))
            bad = 1
else:
    mutated = {k.split(": ", 1)[0] for k in seen}
    for entry, count in accepted.items():
        if entry.split(": ", 1)[0] in mutated and seen[entry] < count:
            print(f"stale acceptance: {entry}")
            bad = 1
sys.exit(bad)
EOF
}

commit=$(git -C "$repo" rev-parse --verify "$rev^{commit}")
tree="$out/tree"
mkdir -p "$out"
if [ ! -d "$tree/.git" ]; then
  git clone --quiet --shared --no-checkout "$repo" "$tree"
fi
git -C "$tree" checkout --quiet --force --detach "$commit"
git -C "$tree" clean -fdq

rc=0
if [ -n "$list" ]; then
  : >"$out/generated.txt"
  for k in "${groups[@]}"; do
    mapfile -t fa < <(file_args "$k")
    (cd "$tree" && cargo mutants --list "${fa[@]}") >"$out/list-$k.txt" || { echo "gate-mutants.sh: cargo mutants --list failed for group $k" >&2; exit 2; }
    printf 'group %s: %s mutants of %s, judged by --lib%s\n' "$k" "$(grep -c . "$out/list-$k.txt" || true)" \
      "$(files_of "$k" | sed 's/ *$//')" "$(tests_of "$k" | sed 's/ \([a-z_]\)/ --test \1/g')"
    cat "$out/list-$k.txt" >>"$out/generated.txt"
  done
  compare generated "$out/generated.txt" || rc=$?
  [ $rc -le 1 ] || exit 2
  [ $rc -eq 0 ] && echo "gate-mutants.sh: every accepted entry names a mutant still generated"
  exit $rc
fi

echo "gate-mutants.sh: commit $commit, output $out" >&2
missed=()
for k in "${groups[@]}"; do
  dir="$out/group-$k"
  rm -rf "$dir"
  mkdir -p "$dir"
  mapfile -t fa < <(file_args "$k")
  args=(--in-place --profile mutants --cargo-arg=--locked --cargo-arg=--lib --timeout 600 --colors never "${fa[@]}")
  for t in $(tests_of "$k"); do args+=("--cargo-arg=--test=$t"); done
  echo "== group $k:$(files_of "$k" | sed 's/ *$//') (tests:$(tests_of "$k"))" >&2
  git -C "$tree" checkout --quiet --force -- .
  status=0
  (cd "$tree" && nice -n 10 cargo mutants "${args[@]}" -o "$dir") || status=$?
  git -C "$tree" checkout --quiet --force -- .
  # cargo-mutants: 0 all caught, 2 some missed, 3 some timed out; anything else did not finish.
  case $status in 0|2|3) ;; *) echo "gate-mutants.sh: cargo-mutants exited $status (group $k, see $dir)" >&2; exit 2 ;; esac
  missed+=("$dir/mutants.out/missed.txt")
  for kind in caught missed unviable timeout; do
    printf '%s %s  ' "$kind" "$(grep -c . "$dir/mutants.out/$kind.txt" 2>/dev/null || true)"
  done
  echo
done
compare missed "${missed[@]}" || rc=$?
[ $rc -le 1 ] || exit 2
[ $rc -eq 0 ] && echo "gate-mutants.sh: every missed mutant is accepted"
exit $rc
