#!/usr/bin/env bash
# Step 1 of the BabelQueue conformance action (action.yml): install the bqsuite of the action's
# own release, checksum-verified, and work out which suite version to check.
#
# Inputs (environment, set by action.yml):
#   BQ_INPUT_VERSION        the `version` input: the suite version to check (may be empty)
#   BQ_INPUT_ATTESTATION    the `attestation` input: auto (default), require or off
#   BQ_INPUT_SHA256         the `sha256` input: the workflow's own pin of the suite asset
#   BQ_ACTION_REF           ${{ github.action_ref }}: the ref the workflow used the action at
#   BQ_ACTION_REPOSITORY    ${{ github.action_repository }}: the action's repository, whose
#                           release workflow must have signed the binary's provenance
#                           (default BabelQueue/conformance)
#   GH_TOKEN                ${{ github.token }}, for gh's API calls
#   BQ_GH                   the gh executable (default: gh on PATH)
#   GITHUB_ACTION_PATH      the action's checkout (set by the runner)
#   BQ_CONFORMANCE_BASE_URL where release assets live instead of the GitHub release (optional;
#                           the same variable `bqsuite fetch` honours, `{version}` replaced
#                           by the release). An offline mirror holds, per release, what the
#                           GitHub release does for this job: the binary archive for each runner
#                           platform used (bqsuite-<target>.tar.gz, bqsuite-<target>.zip on
#                           Windows), the suite asset of every version checked
#                           (babelqueue-conformance-<version>.tar.gz) and SHA256SUMS with a line
#                           for each of them (the release's own SHA256SUMS, copied whole, has)
#   RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_PATH, GITHUB_SERVER_URL (set by
#                           the runner)
#
# Rulings (also in the README's "The release asset and fetch"):
# - The action's own release is its ref when that is a release tag (v1.6.0); otherwise (a
#   commit SHA, a branch, a major tag such as v1) the CONFORMANCE_VERSION file in the action's
#   checkout, which at a release tag always equals the tag (the release workflow refuses any
#   other tag). The ref comes through the step's env, because ${{ github.action_ref }} is empty
#   inside a composite action's `run:` text (actions/runner#2473). A -pre version there means an
#   unreleased commit: the step fails and asks for a release tag.
# - bqsuite is the release binary of that release for the runner's platform,
#   bqsuite-<target>.tar.gz (.zip on Windows), checked against the release's SHA256SUMS before it
#   is unpacked. That gives integrity, not authenticity: SHA256SUMS is published beside it, and
#   the binary is built after the tag, so no commit of the action can carry its checksum.
# - Authenticity comes from the archive's build provenance: the release workflow attests every
#   file it publishes (actions/attest-build-provenance), and `gh attestation verify` checks that
#   the archive's was signed by the action repository's .github/workflows/release.yml, for the
#   release's tag, on a GitHub-hosted runner. `attestation: auto` checks it when gh is on PATH
#   and the runner is on github.com (where the attestations are), whatever the download's base
#   (a mirror serves the same bytes), and otherwise says in a notice why it did not; `require`
#   checks it or fails (exit 2 when it cannot: no gh); `off` does not. An archive whose check
#   fails is not unpacked (exit 1): gh's own output, above the annotation, says why (no
#   attestation for those bytes, another signer, another ref, no network or token).
# - Where the binary's provenance is checked, so is the suite asset's when the version checked
#   is the action's own release and the workflow pins no `sha256` itself: the asset is
#   downloaded, checked against SHA256SUMS and gh, and its sha256 becomes the output
#   suite-sha256, which step 2 passes to every fetch as `--sha256`, so the checks read exactly
#   the bytes the release workflow built. Another version's asset is not checked (a notice says
#   so): releases made before this rule carry no attestation.
# - The suite version checked is the `version` input, or the action's release when it is empty:
#   a newer action can check an older vendored copy, and the binary always exists.
# - Inputs are trimmed (a YAML block scalar ends with a line feed: `1.6.0\n` must not become
#   part of a URL or end an annotation early), and one spanning several lines is refused; every
#   annotation's message is escaped as workflow commands require (% %25, CR %0D, LF %0A).
set -euo pipefail

error() { # error MESSAGE: an error annotation
  local s=${*//%/%25}
  s=${s//$'\r'/%0D}
  echo "::error title=BabelQueue conformance::${s//$'\n'/%0A}"
}
fail() { # fail MESSAGE: an annotation and a failed step (exit 2)
  error "$@"
  exit 2
}
# input NAME VALUE: VALUE with white space trimmed at both ends, in $input; a failed step when
# it spans several lines.
input() {
  input=$(printf '%s\n' "$2" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d')
  case $input in *$'\n'*) fail "$1: one value, not several lines" ;; esac
}
input version "${BQ_INPUT_VERSION:-}"
input_version=$input
input attestation "${BQ_INPUT_ATTESTATION:-}"
input_attestation=$input
input sha256 "${BQ_INPUT_SHA256:-}"
input_sha256=$input

semver='^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$'
action_dir=${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set: this script runs as a step of action.yml}

ref=${BQ_ACTION_REF:-}
if [[ $ref =~ ^v([0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?)$ ]]; then
  release=${BASH_REMATCH[1]}
  from="the action's ref $ref"
else
  [ -f "$action_dir/CONFORMANCE_VERSION" ] || fail "cannot tell the action's release: ref '${ref}' is not a release tag and $action_dir has no CONFORMANCE_VERSION"
  release=$(tr -d '\r\n' <"$action_dir/CONFORMANCE_VERSION")
  from="CONFORMANCE_VERSION of the action at ref '${ref:-unknown}'"
  case $release in
    *-pre) fail "the action at ref '${ref:-unknown}' carries the unreleased suite $release; use a release tag (uses: BabelQueue/conformance@vX.Y.Z)" ;;
  esac
fi
[[ $release =~ $semver ]] || fail "$from gives '$release', which is not a SemVer version"

version=${input_version:-$release}
version=${version#v}
[[ $version =~ $semver ]] || fail "version '$version' is not a SemVer version such as 1.6.0"

case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
  Linux/X64) target=x86_64-unknown-linux-musl ;;
  Linux/ARM64) target=aarch64-unknown-linux-musl ;;
  macOS/X64) target=x86_64-apple-darwin ;;
  macOS/ARM64) target=aarch64-apple-darwin ;;
  # Windows on Arm runs x86_64 executables under emulation.
  Windows/X64 | Windows/ARM64) target=x86_64-pc-windows-msvc ;;
  *) fail "no bqsuite release binary for runner ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}; install bqsuite yourself (pipx install bqsuite, or cargo install)" ;;
esac
case $target in
  *-windows-*) archive=bqsuite-$target.zip exe=bqsuite.exe ;;
  *) archive=bqsuite-$target.tar.gz exe=bqsuite ;;
esac

base=${BQ_CONFORMANCE_BASE_URL:-https://github.com/BabelQueue/conformance/releases/download/v$release}
base=${base//\{version\}/$release} # as bqsuite fetch reads it: one mirror setting for every version
base=${base%/}
# The base as shown in the log: without the credentials a mirror's URL may carry (user:password@
# or token@), as bqsuite shows it.
shown=$(printf '%s' "$base" | sed -E 's#^([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@]*@#\1***@#')
temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
if command -v cygpath >/dev/null 2>&1; then temp=$(cygpath -u "$temp"); fi
dir=$temp/bqsuite-$release-$target
rm -rf "$dir" "$dir.download"
mkdir -p "$dir.download"

echo "bqsuite $release ($from) for $target from $shown"
download() { curl --fail --silent --show-error --location --retry 3 --output "$dir.download/$1" "$base/$1" || fail "cannot download $shown/$1"; }
download SHA256SUMS
download "$archive"

# checksum NAME: NAME's sha256 (also left in $sha), which must be its line in SHA256SUMS; else
# the step fails and NAME is not used.
checksum() {
  local expected
  expected=$(awk -v n="$1" '$2 == n || $2 == "*" n { print $1 }' "$dir.download/SHA256SUMS")
  [[ $expected =~ ^[0-9a-f]{64}$ ]] || fail "$shown/SHA256SUMS has no single sha256 line for $1"
  if command -v sha256sum >/dev/null 2>&1; then
    sha=$(sha256sum "$dir.download/$1" | cut -d' ' -f1)
  else
    sha=$(shasum -a 256 "$dir.download/$1" | cut -d' ' -f1)
  fi
  if [ "$sha" != "$expected" ]; then
    error "$1 has sha256 $sha, but $shown/SHA256SUMS says $expected; not using it"
    exit 1
  fi
  echo "sha256 $sha  $1 (matches SHA256SUMS)"
}
checksum "$archive"

attestation=${input_attestation:-auto}
repo=${BQ_ACTION_REPOSITORY:-BabelQueue/conformance}
gh=${BQ_GH:-gh}
case $attestation in
  auto | require | off) ;;
  *) fail "attestation '$attestation' is not one of auto, require, off" ;;
esac
unchecked= # why the build provenance is not checked
if [ "$attestation" = off ]; then
  unchecked="the input attestation is off"
elif ! command -v "$gh" >/dev/null 2>&1; then
  unchecked="gh (the GitHub CLI) is not on PATH"
elif [ "$attestation" = auto ] && [ "${GITHUB_SERVER_URL:-https://github.com}" != https://github.com ]; then
  unchecked="the runner's server is $GITHUB_SERVER_URL, and the release's attestations are on github.com"
fi
# provenance NAME: NAME was built by the release workflow for the release's tag, on a
# GitHub-hosted runner; else the step fails and NAME is not used.
provenance() {
  if "$gh" attestation verify "$dir.download/$1" --repo "$repo" \
    --signer-workflow "$repo/.github/workflows/release.yml" --source-ref "refs/tags/v$release" \
    --deny-self-hosted-runners; then
    echo "build provenance verified: $1 was built by $repo's release workflow for v$release"
  else
    error "$1 has no valid build provenance from $repo's release workflow for v$release (gh attestation verify failed; its output is above); not using it. The input attestation: off relies on SHA256SUMS alone"
    exit 1
  fi
}
suite_sha= # the suite asset's sha256, once its provenance is verified
asset=babelqueue-conformance-$version.tar.gz
if [ -z "$unchecked" ]; then
  provenance "$archive"
  if [ -n "$input_sha256" ]; then
    echo "$asset: pinned by the input sha256"
  elif [ "$version" != "$release" ]; then
    echo "::notice title=BabelQueue conformance::build provenance of $asset not checked: only the action's own release ($release) is, and version is $version; SHA256SUMS gives integrity, not authenticity"
  else
    download "$asset"
    checksum "$asset"
    provenance "$asset"
    suite_sha=$sha
    echo "every fetch of $version is pinned to sha256 $suite_sha"
  fi
elif [ "$attestation" = require ]; then
  fail "attestation: require, but the build provenance of $archive cannot be checked: $unchecked"
else
  echo "::notice title=BabelQueue conformance::build provenance of $archive not checked ($unchecked): SHA256SUMS gives integrity, not authenticity"
fi

mkdir -p "$dir"
case $archive in
  *.zip)
    if command -v unzip >/dev/null 2>&1; then
      unzip -q -o "$dir.download/$archive" -d "$dir"
    else
      7z x -y -o"$dir" "$dir.download/$archive" >/dev/null
    fi
    ;;
  *) tar -xzf "$dir.download/$archive" -C "$dir" ;;
esac
rm -rf "$dir.download"
[ -f "$dir/$exe" ] || fail "$archive holds no $exe"
chmod +x "$dir/$exe"
"$dir/$exe" --version

path_dir=$dir
if command -v cygpath >/dev/null 2>&1; then path_dir=$(cygpath -w "$dir"); fi
echo "$path_dir" >>"${GITHUB_PATH:?}"
{
  echo "version=$version"
  echo "release=$release"
  echo "bqsuite=$dir/$exe"
  echo "suite-sha256=$suite_sha"
} >>"${GITHUB_OUTPUT:?}"
