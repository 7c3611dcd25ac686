#!/usr/bin/env bash
# Baseline: the release asset the seed pipeline built with standard tools (GNU tar + gzip -n +
# sha256sum), for timing beside `bqsuite release` (bench/compare.sh). Not a supported tool.
# usage: release.sh SUITE_DIR OUT_DIR
set -euo pipefail
suite=$1 out=$2
v=$(tr -d '[:space:]' < "$suite/CONFORMANCE_VERSION")
root="babelqueue-conformance-$v"
mkdir -p "$out"
tar --format=ustar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
  --mode=u=rwX,go=rX --transform "s,^,$root/," -C "$suite" \
  -cf - CONFORMANCE_VERSION manifest.json schema fixtures LICENSE \
  | gzip -n -9 > "$out/$root.tar.gz"
(cd "$out" && sha256sum "$root.tar.gz" > SHA256SUMS)
