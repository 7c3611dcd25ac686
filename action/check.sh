#!/usr/bin/env bash
# Step 2 of the BabelQueue conformance action (action.yml): run the checks with
# `--format github`, so that every finding is an annotation on the file it is about.
#
# Inputs (environment, set by action.yml):
#   BQ_BIN       the bqsuite that step 1 installed
#   BQ_VERSION   the suite version to check against
#   BQ_VENDORED  the `vendored` input: vendored copies, one directory per line
#   BQ_RESULTS   the `results` input: results files, one path per line
#   BQ_SHA256    the `sha256` input: the expected sha256 of the suite asset (optional)
#
# Every vendored copy is checked with `bqsuite fetch --check VERSION DIR` (drift is BQ900 added,
# BQ901 removed, BQ902 modified; LICENSE is ignored). The results files are checked together
# with `bqsuite results check FILE... --suite DIR` against the release itself, fetched and
# verified into the runner's temp directory (never against a vendored copy, which may have
# drifted). Paths are relative to the working directory (the workspace); one per line, blank
# lines ignored, no glob expansion, so a path may hold spaces. Every check runs even when an
# earlier one failed, so one job shows every problem; the step then exits with the worst status:
# 1 for drift or a Not compatible verdict, 2 when a check could not run. Giving neither input is
# a usage error.
set -uo pipefail

bin=${BQ_BIN:?BQ_BIN is not set: this script runs as a step of action.yml}
version=${BQ_VERSION:?BQ_VERSION is not set}

lines() { # lines TEXT: the non-blank lines of TEXT, trimmed, one per output line
  printf '%s\n' "$1" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d'
}
vendored=()
while IFS= read -r line; do vendored+=("$line"); done < <(lines "${BQ_VENDORED:-}")
results=()
while IFS= read -r line; do results+=("$line"); done < <(lines "${BQ_RESULTS:-}")
pin=()
if [ -n "${BQ_SHA256:-}" ]; then pin=(--sha256 "$BQ_SHA256"); fi

if [ "${#vendored[@]}" -eq 0 ] && [ "${#results[@]}" -eq 0 ]; then
  echo "::error title=BabelQueue conformance::nothing to check: set the input vendored (a vendored copy of the suite) or results (a results file), or both"
  exit 2
fi

worst=0
# run TITLE COMMAND...: run one check in a log group, print the command as it can be re-run
# locally, and keep the worst exit status.
run() {
  local title=$1 status
  shift
  echo "::group::$title"
  echo "+ bqsuite ${*:2}"
  "$@"
  status=$?
  echo "::endgroup::"
  case $status in
    0) ;;
    1) [ "$worst" -ge 1 ] || worst=1 ;;
    *)
      echo "::error title=BabelQueue conformance::$title could not run (exit $status); see the log"
      worst=2
      ;;
  esac
  return "$status"
}

for dir in ${vendored[@]+"${vendored[@]}"}; do
  run "fetch --check $dir" "$bin" fetch --check ${pin[@]+"${pin[@]}"} --format github -- "$version" "$dir"
done

if [ "${#results[@]}" -gt 0 ]; then
  temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
  suite=$(mktemp -d "$temp/bqsuite-suite-$version.XXXXXX")
  rmdir "$suite" # fetch unpacks into an absent or empty directory
  if run "fetch $version" "$bin" fetch ${pin[@]+"${pin[@]}"} -- "$version" "$suite"; then
    run "results check" "$bin" results check --suite "$suite" --format github -- "${results[@]}"
  fi
  rm -rf "$suite"
fi

exit "$worst"
