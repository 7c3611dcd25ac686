#!/usr/bin/env bash
# Baseline: the old `sync.sh --check` loop (diff -q per file, diff -qr per directory, for every
# vendored copy), for timing beside `bqsuite sync --check` (bench/compare.sh). Not a supported
# tool. usage: sync-check.sh SUITE_DIR ROOT TARGETS_FILE   (TARGETS_FILE: "repo path" lines)
set -uo pipefail
suite=$1 root=$2 targets=$3
drift=0
while read -r repo path; do
  [ -d "$root/$repo" ] || continue
  dest="$root/$repo/$path"
  for f in CONFORMANCE_VERSION manifest.json; do
    diff -q "$suite/$f" "$dest/$f" >/dev/null || drift=1
  done
  for d in schema fixtures; do
    diff -qr "$suite/$d" "$dest/$d" >/dev/null || drift=1
  done
done < "$targets"
exit $drift
