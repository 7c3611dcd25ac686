#!/usr/bin/env bash
# The steps of .github/workflows/release.yml that are more than one command, kept here so that
# they run the same on a maintainer's machine and in CI (tests/release_workflow.rs runs each one
# and `.ci/dist` runs `collect` on a real wheel). Run from the root of a suite checkout; the
# `bqsuite` used is $BQSUITE, else the one on PATH.
#
#   scripts/release.sh check-tag TAG        TAG (v1.6.0 or refs/tags/v1.6.0) must be
#                                           v$(cat CONFORMANCE_VERSION), and that version must not
#                                           be a -pre one. Writes version=X.Y.Z to $GITHUB_OUTPUT.
#   scripts/release.sh build OUT [ARG...]   `bqsuite release --out OUT ARG...`: the release gate
#                                           (validate, and whatever else `release` checks) and the
#                                           first build of the suite asset and its SHA256SUMS.
#   scripts/release.sh verify DIR           the second, independent build: `bqsuite release
#                                           --verify` (no gate: it ran with `build`) builds this
#                                           checkout again in a temporary directory and compares
#                                           the asset and its SHA256SUMS line with DIR's byte for
#                                           byte. DIR may also be a downloaded GitHub release: its
#                                           SHA256SUMS lists more files than the asset, and only
#                                           the asset's line counts.
#   scripts/release.sh collect IN OUT       the files of the GitHub release, into OUT (must not
#                                           exist): from IN/suite/ the asset, from each
#                                           IN/wheel-<target>/ its wheel and bqsuite-<target>.tar.gz
#                                           (.zip on Windows) holding that wheel's executable and
#                                           LICENSE, from IN/sdist/ the sdist; then SHA256SUMS over
#                                           every file in OUT, in which the asset's line is the
#                                           one `bqsuite release` wrote.
#   scripts/release.sh notes VERSION        the CHANGELOG.md entry for VERSION, as release notes:
#                                           the entry the release gate reads (`bqsuite dev
#                                           changelog-entry`: `## VERSION` or `## [VERSION] -
#                                           date`; for 1.7.0-rc.1 else `## 1.7.0`). Exit 1
#                                           when CHANGELOG.md has no such entry.
#
# Rulings written here (and in the README's release procedure): the binary archives are named by
# target triple only (bqsuite-x86_64-unknown-linux-musl.tar.gz), not by version, so a download
# URL differs between releases only in the tag; each platform is compiled once, and its archive
# carries exactly the executable of its wheel; the archives hold the executable and LICENSE at
# the top level. Exit status: 0 done, 1 a check failed (tag mismatch, hashes differ), 2 usage
# error or a missing input.
set -euo pipefail

prog=scripts/release.sh
# Scratch space for every command, removed on exit whatever happens.
# `collect` stages its output beside OUT (`staged`) and renames it into place at the end.
work=$(mktemp -d)
staged=
trap 'rm -rf "$work" ${staged:+"$staged"}' EXIT

# An error: a workflow annotation under GitHub Actions, a plain line elsewhere.
die() { # die STATUS MESSAGE
  local status=$1
  shift
  if [ "${GITHUB_ACTIONS:-}" = true ]; then echo "::error title=release::$*"; fi
  echo "$prog: error: $*" >&2
  exit "$status"
}
usage() { die 2 "usage: $prog check-tag TAG | build OUT [ARG...] | verify DIR | collect IN OUT | notes VERSION"; }
say() { echo "$prog: $*" >&2; }

bqsuite() {
  local exe=${BQSUITE:-bqsuite}
  type -P "$exe" >/dev/null || die 2 "$exe not found: build it (cargo build --release --locked) and put it on PATH, or set BQSUITE"
  command "$exe" "$@"
}

# sha256sum where it exists (Linux, Git Bash), else macOS's shasum.
sha256sum_() { if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi; }
sha256() { sha256sum_ -- "$1" | cut -d' ' -f1; } # sha256 FILE: its lowercase hex sha256

# The suite version of the checkout: CONFORMANCE_VERSION without its line ending.
suite_version() {
  [ -f CONFORMANCE_VERSION ] || die 2 "no CONFORMANCE_VERSION here: run from the root of a suite checkout"
  local v
  v=$(tr -d '\r\n' <CONFORMANCE_VERSION)
  [ -n "$v" ] || die 1 "CONFORMANCE_VERSION is empty"
  printf '%s' "$v"
}

# The one suite asset in DIR.
asset_in() { # asset_in DIR
  local found='' n=0 f
  for f in "$1"/babelqueue-conformance-*.tar.gz; do
    if [ -f "$f" ]; then found=$f n=$((n + 1)); fi
  done
  [ "$n" -eq 1 ] || die 2 "$1 must hold exactly one babelqueue-conformance-*.tar.gz (found $n)"
  printf '%s' "$found"
}

check_tag() { # check_tag TAG
  local tag=${1#refs/tags/} version
  version=$(suite_version)
  case $version in *-pre) die 1 "CONFORMANCE_VERSION is $version: a -pre version is not released; bump it to the release's version first" ;; esac
  [ "$tag" = "v$version" ] || die 1 "the tag $tag is not v\$(cat CONFORMANCE_VERSION) = v$version: tag the commit whose CONFORMANCE_VERSION it names"
  say "tag $tag matches CONFORMANCE_VERSION $version"
  if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "version=$version" >>"$GITHUB_OUTPUT"; fi
}

build() { # build OUT [ARG...]
  local out=$1
  shift
  bqsuite release --out "$out" "$@"
}

verify() { # verify DIR
  local dir=$1 published name fresh=$work/verify first lines
  published=$(asset_in "$dir")
  name=$(basename "$published")
  [ -f "$dir/SHA256SUMS" ] || die 2 "$dir/SHA256SUMS is missing"
  # release --verify compares SHA256SUMS whole; a GitHub release's SHA256SUMS also lists the
  # binaries and wheels, so hand it the asset's line alone (there must be exactly one, and
  # release --verify then checks it is the line release writes).
  mkdir -p "$fresh/published"
  cp "$published" "$fresh/published/$name"
  awk -v n="$name" '$2 == n || $2 == "*" n' "$dir/SHA256SUMS" >"$fresh/published/SHA256SUMS"
  lines=$(awk 'END { print NR }' "$fresh/published/SHA256SUMS")
  [ "$lines" -eq 1 ] || die 1 "$dir/SHA256SUMS must have exactly one line for $name (it has $lines)"
  first=$(sha256 "$published")
  say "published: $first  $name"
  # The second, independent build: `release --verify` builds this checkout again in a temporary
  # directory and compares it byte for byte with the published asset and its line. It runs no
  # release gate (that ran with `build`), so it needs no --no-previous, which release refuses
  # where an earlier release tag exists.
  bqsuite release --verify --out "$fresh/published" ||
    die 1 "this checkout does not build $name byte for byte as published ($first): the release is not reproducible (bqsuite above says what differs)"
}

# The executable inside a maturin `bin` wheel, written to DEST (mode 0755).
wheel_executable() { # wheel_executable WHEEL DEST
  python3 - "$1" "$2" <<'PY'
import os, sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.split("/")[1:3] in (["scripts", "bqsuite"], ["scripts", "bqsuite.exe"])
             and n.split("/")[0].endswith(".data")]
    if len(names) != 1:
        sys.exit(f"{wheel}: expected one <name>.data/scripts/bqsuite[.exe], found {names}")
    with z.open(names[0]) as src, open(dest, "wb") as out:
        out.write(src.read())
os.chmod(dest, 0o755)
PY
}

# bqsuite-TARGET.tar.gz (or .zip for a Windows target) in OUT from the executable in WHEEL.
package() { # package WHEEL TARGET OUT
  local wheel=$1 target=$2 out=$3 stage=$work/package-$2 exe
  mkdir "$stage"
  case $target in
    *-windows-*)
      exe=bqsuite.exe
      wheel_executable "$wheel" "$stage/$exe"
      cp LICENSE "$stage/LICENSE"
      python3 - "$stage" "$out/bqsuite-$target.zip" "$exe" <<'PY'
import sys, zipfile
stage, archive, exe = sys.argv[1:]
with zipfile.ZipFile(archive, "x", zipfile.ZIP_DEFLATED) as z:
    for name, mode in ((exe, 0o755), ("LICENSE", 0o644)):
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        with open(f"{stage}/{name}", "rb") as f:
            z.writestr(info, f.read())
PY
      ;;
    *)
      exe=bqsuite
      wheel_executable "$wheel" "$stage/$exe"
      cp LICENSE "$stage/LICENSE"
      chmod 0644 "$stage/LICENSE"
      tar --format=ustar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
        -C "$stage" -cf - "$exe" LICENSE | gzip -n >"$out/bqsuite-$target.tar.gz"
      ;;
  esac
}

collect() { # collect IN OUT
  local in=$1 out=$2 asset name line dir target wheels n=0 f
  [ -d "$in" ] || die 2 "$in is not a directory"
  [ ! -e "$out" ] || die 2 "$out already exists: collect writes a fresh directory"
  asset=$(asset_in "$in/suite")
  name=$(basename "$asset")
  [ -f "$in/suite/SHA256SUMS" ] || die 2 "$in/suite/SHA256SUMS is missing"
  line=$(cat "$in/suite/SHA256SUMS")
  [ "$line" = "$(sha256 "$asset")  $name" ] || die 1 "$in/suite/SHA256SUMS does not hold the asset's sha256 as release writes it"
  staged=$(dirname "$out")/.$(basename "$out").partial.$$
  mkdir "$staged"
  cp "$asset" "$staged/"
  for dir in "$in"/wheel-*/; do
    [ -d "$dir" ] || continue
    target=$(basename "$dir")
    target=${target#wheel-}
    wheels=("$dir"*.whl)
    if [ ! -f "${wheels[0]}" ] || [ "${#wheels[@]}" -ne 1 ]; then die 2 "$dir must hold exactly one wheel"; fi
    cp "${wheels[0]}" "$staged/"
    package "${wheels[0]}" "$target" "$staged"
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || die 2 "$in has no wheel-<target>/ directory"
  for f in "$in"/sdist/*.tar.gz; do if [ -f "$f" ]; then cp "$f" "$staged/"; fi; done
  # One line per file, as sha256sum writes them, sorted by name; the asset's line is then the
  # one release wrote (same hash, same name, same format).
  (
    cd "$staged"
    LC_ALL=C
    for f in *; do printf '%s  %s\n' "$(sha256 "$f")" "$f"; done >"$work/SHA256SUMS"
  )
  mv "$work/SHA256SUMS" "$staged/SHA256SUMS"
  grep -qxF "$line" "$staged/SHA256SUMS" || die 1 "SHA256SUMS lost the asset's line"
  (cd "$staged" && sha256sum_ --quiet -c SHA256SUMS) || die 1 "SHA256SUMS does not verify"
  mv "$staged" "$out"
  staged=
  say "$(awk 'END { print NR }' "$out/SHA256SUMS") files in $out, each with its line in SHA256SUMS"
}

notes() { # notes VERSION
  local version=$1 status=0
  [ -f CHANGELOG.md ] || die 2 "no CHANGELOG.md here"
  # bqsuite reads the entry exactly as the release gate did (src/suite/changelog.rs), so a
  # CHANGELOG the gate passed always gives notes.
  bqsuite dev changelog-entry "$version" --file CHANGELOG.md >"$work/notes" || status=$?
  [ "$status" -eq 0 ] || die "$status" "no release notes for $version"
  cat "$work/notes"
}

[ $# -ge 1 ] || usage
command=$1
shift
case $command in
  check-tag) [ $# -eq 1 ] || usage; check_tag "$1" ;;
  build) [ $# -ge 1 ] || usage; build "$@" ;;
  verify) [ $# -eq 1 ] || usage; verify "$1" ;;
  collect) [ $# -eq 2 ] || usage; collect "$1" "$2" ;;
  notes) [ $# -eq 1 ] || usage; notes "$1" ;;
  *) usage ;;
esac
