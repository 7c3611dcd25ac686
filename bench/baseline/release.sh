#!/usr/bin/env bash
# Baseline: the release asset the seed pipeline built with standard tools (GNU tar + gzip -n +
# sha256sum), for timing beside `bqsuite release` (bench/compare.sh). Not a supported tool.
# usage: release.sh SUITE_DIR OUT_DIR [GZIP_LEVEL]
#
# Same work as `bqsuite release`: the same files under one root directory
# babelqueue-conformance-<version>/ (a directory of symlinks into the suite, archived with -h),
# so the uncompressed ustar stream is byte-identical to bqsuite's (bench/compare.sh checks it),
# compressed at the asset's level 9 (GZIP_LEVEL overrides, e.g. 6 for plain `gzip -n`), and
# the SHA256SUMS line. It does not run bqsuite's validate pass first.
set -euo pipefail
suite=$(cd "$1" && pwd) out=$2 level=${3:-9}
v=$(tr -d '[:space:]' < "$suite/CONFORMANCE_VERSION")
root="babelqueue-conformance-$v"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$root" "$out"
for f in CONFORMANCE_VERSION manifest.json schema fixtures LICENSE; do ln -s "$suite/$f" "$stage/$root/$f"; done
tar --format=ustar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
  --mode=u=rwX,go=rX -h -C "$stage" -cf - "$root" \
  | gzip -n "-$level" > "$out/$root.tar.gz"
(cd "$out" && sha256sum "$root.tar.gz" > SHA256SUMS)
