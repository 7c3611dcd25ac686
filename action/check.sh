#!/usr/bin/env bash
# Step 2 of the BabelQueue conformance action (action.yml): run the checks with
# `--format github`, so that every finding is an annotation on the file it is about.
#
# Inputs (environment, set by action.yml):
#   BQ_BIN       the bqsuite that step 1 installed
#   BQ_VERSION   the suite version to check against
#   BQ_VENDORED  the `vendored` input: vendored copies, one directory per line
#   BQ_RESULTS   the `results` input: results files, one path per line
#   BQ_SDK       the `sdk` input: the name the SDK writes as `sdk` in its results file
#   BQ_SHA256    the `sha256` input: the expected sha256 of the suite asset (optional)
#   BQ_SUITE_SHA256  the suite asset's sha256 whose build provenance step 1 verified (empty when
#                it did not): the pin when BQ_SHA256 is empty
#   BQ_ADAPTER   the `adapter` input: an adapter command to run through the suite (optional)
#   BQ_ADAPTER_RESULTS  the `adapter-results` input: where that run writes its results file
#   BQ_ADAPTER_REDIS    the `redis-url` input: a live Redis for that run (optional)
#   BQ_KNOWN_FAILING    the `known-failing` input: a list of cases expected to fail (optional)
#   BQ_ADAPTER_TIMEOUT, BQ_ADAPTER_MAX_RESTARTS  the `adapter-timeout` and `adapter-max-restarts`
#                inputs: the run's --timeout and --max-restarts (optional)
#   RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY (set by the runner)
#
# Every input is trimmed (a YAML block scalar ends with a line feed); one that holds a single
# value (sdk, sha256, known-failing, adapter, adapter-results, redis-url, adapter-timeout,
# adapter-max-restarts) is refused when it spans several lines.
#
# Every vendored copy is checked with `bqsuite fetch --check VERSION DIR` (drift is BQ900 added,
# BQ901 removed, BQ902 modified; LICENSE is ignored). The results files are checked together
# with `bqsuite results check --sdk SDK FILE... --suite DIR` against the release itself, fetched
# and verified into the runner's temp directory (never against a vendored copy, which may have
# drifted). One command for all of them, not one per file: bqsuite judges every file it can
# read and exits 2 naming each one it cannot, so a missing file hides no other verdict, while
# the step keeps one job summary, one annotation cap, and a known-failing list's entries for
# cases the suite lacks said once. Paths are relative to the working directory (the workspace); one per line, blank
# lines ignored, no glob expansion, so a path may hold spaces (bqsuite says so for a missing
# path that looks like a glob). Every check runs even when an
# earlier one failed, so one job shows every problem (but the adapter and the results checks
# need the release: when it does not fetch and verify, an error annotation says they did not
# run); the step then exits with the worst status:
# 1 for drift or a Not compatible verdict, 2 when a check could not run. Giving none of
# `vendored`, `results` and `adapter` is a usage error.
#
# `results:` trusts the file it is given: whoever wrote it decided what it says. `sdk` (required
# with `results` or `adapter`; a name as package registries write it: printable ASCII, no white
# space) is passed as `--sdk`, so a file that names another SDK (the reference core's own
# `bqsuite-reference`, a sibling SDK's file copied in) is Not compatible (BQ622) instead of a
# false green; the adapter's results file, which carries its hello's `sdk`, is checked the same
# way. `sdk: bqsuite-reference` itself draws a warning annotation and a summary line (the job
# then checks bqsuite's reference core, as bqsuite's own test bench does, not an SDK).
#
# A check that exits 2 (could not run) gets an error annotation carrying its reason: bqsuite's
# own `bqsuite: error: …` lines (else clap's `error: …` line, else the last non-empty line) from
# the command's stderr, which is streamed to the log as it comes (tee; a run may last minutes)
# and captured beside it; the annotation's message is escaped as workflow commands require
# (% as %25, CR as %0D, LF as %0A), so nothing in it, the adapter's words included, can end it
# and start a command of its own. The check and its reason are also appended to the job summary
# ($GITHUB_STEP_SUMMARY) in a fenced code block whose fence is longer than any run of backticks
# in it, so no text in it is read as Markdown.
#
# With `adapter`, the command is run from the workspace through that same released suite with
# `bqsuite run --sdk CMD` (docs/adapter-protocol.md: one command line, split like a shell would,
# no expansion), writing its results file to `adapter-results` (trimmed, one path, not `-`;
# default $RUNNER_TEMP/babelqueue-conformance/results.json, the adapter's stderr in adapter.log
# beside it); the path is the step's output `adapter-results`, written before the run so a later
# step can upload the file even when this one fails, and a file already there is removed first
# (a run that cannot start writes none). That results file is then checked with the others.
# `redis-url` reaches the run as BQ_REDIS_URL, never on a command line, and is never printed; a
# Redis given is a Redis required (BQ_REQUIRE_REDIS=1), so an unreachable one fails the cases
# that need it instead of skipping them. Without it those cases are skips citing ADR-0033, which
# the skip policy allows. When the adapter fails, bqsuite prints the end of its log itself
# (escaped, at most 4 KiB). What an adapter says is untrusted: the run's output is printed with
# workflow commands stopped (::stop-commands:: with a random token), and the URL's credentials
# are masked (::add-mask::), since the adapter is given the URL and may log it.
#
# `adapter-timeout` and `adapter-max-restarts` reach the run as --timeout and --max-restarts
# (bqsuite judges their values: a bad one is a usage error, exit 2, its reason on the page); like
# `redis-url`, they are an error without `adapter`. When the adapter's run fails (exit 1 or 2),
# the log and the job summary say how to run it on a contributor's machine: the suite from the
# first vendored copy that `fetch --check` found clean, else fetched into suite-VERSION; the same
# adapter command and options, relative results path kept (its directory made; else
# conformance-results.json); a placeholder for Redis when the job had one (never the job's URL);
# the bqsuite version to install; and where each section's rules are written (docs/sections at
# the release's tag).
#
# With `known-failing` (one path, trimmed), the adapter's run and the results check both get
# `--known-failing=PATH`: the verdicts stand, but only failures the list does not name, and
# entries that no longer fail (BQ621), fail the step. It means nothing without `results` or
# `adapter`, and is an error then.
set -uo pipefail

bin=${BQ_BIN:?BQ_BIN is not set: this script runs as a step of action.yml}
version=${BQ_VERSION:?BQ_VERSION is not set}
temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}

lines() { # lines TEXT: the non-blank lines of TEXT, trimmed, one per output line
  printf '%s\n' "$1" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d'
}
# escaped TEXT: TEXT as the data of a workflow command (% as %25, CR as %0D, LF as %0A), so that
# it ends nowhere but at the end of its line.
escaped() {
  local s=${1//%/%25}
  s=${s//$'\r'/%0D}
  printf '%s' "${s//$'\n'/%0A}"
}
error() { # error MESSAGE: an error annotation with MESSAGE escaped
  echo "::error title=BabelQueue conformance::$(escaped "$*")"
}
# one NAME VALUE: VALUE trimmed, in $one; an error annotation and exit 2 when it is several lines.
one() {
  one=$(lines "$2")
  case $one in
    *$'\n'*)
      error "$1: one value, not several lines"
      exit 2
      ;;
  esac
}
vendored=()
while IFS= read -r line; do vendored+=("$line"); done < <(lines "${BQ_VENDORED:-}")
results=()
while IFS= read -r line; do results+=("$line"); done < <(lines "${BQ_RESULTS:-}")
pin=()
one sha256 "${BQ_SHA256:-}"
if [ -n "$one" ]; then
  pin=(--sha256 "$one")
elif [ -n "${BQ_SUITE_SHA256:-}" ]; then
  pin=(--sha256 "$BQ_SUITE_SHA256")
fi

adapter=$(lines "${BQ_ADAPTER:-}")
case $adapter in
  *$'\n'*)
    error "adapter: one command line, not several"
    exit 2
    ;;
esac

# Whose results these are: a results file is judged for the SDK it names (BQ622 otherwise).
one sdk "${BQ_SDK:-}"
sdk=$one
if [ -z "$sdk" ] && { [ "${#results[@]}" -gt 0 ] || [ -n "$adapter" ]; }; then
  error "sdk is not set: with results or adapter, set sdk to the name your SDK writes as sdk in its results file (babelqueue-node), so that a file another SDK wrote, or the reference core (sdk bqsuite-reference), cannot pass as yours"
  exit 2
fi
if [ -n "$sdk" ] && ! (LC_ALL=C && [[ $sdk =~ ^[!-~]+$ ]]); then
  error "sdk '$sdk' is not a package name as a results file's sdk is written (printable ASCII without white space)"
  exit 2
fi
if [ -n "$sdk" ] && [ "${#results[@]}" -eq 0 ] && [ -z "$adapter" ]; then
  error "sdk is set but neither results nor adapter is, so it would be ignored"
  exit 2
fi
# The reference core's own name: a job that checks it checks bqsuite, not an SDK. Said on the
# job's page and in the summary (not refused: bqsuite's own test bench runs the action so).
if [ "$sdk" = bqsuite-reference ]; then
  echo "::warning title=BabelQueue conformance::sdk is bqsuite-reference, the reference core's name: this job checks bqsuite's reference core, not an SDK; set sdk to the name your SDK writes in its results file"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    printf '%s\n\n' "**sdk is bqsuite-reference**: the verdicts below are the reference core's, not an SDK's." >>"$GITHUB_STEP_SUMMARY"
  fi
fi

# The adapter's own inputs mean nothing without it: say so rather than ignore them.
if [ -z "$adapter" ]; then
  for input in adapter-results redis-url adapter-timeout adapter-max-restarts; do
    case $input in
      adapter-results) value=${BQ_ADAPTER_RESULTS:-} ;;
      redis-url) value=${BQ_ADAPTER_REDIS:-} ;;
      adapter-timeout) value=${BQ_ADAPTER_TIMEOUT:-} ;;
      *) value=${BQ_ADAPTER_MAX_RESTARTS:-} ;;
    esac
    if [ -n "$(lines "$value")" ]; then
      error "$input is set but adapter is not, so it would be ignored: set adapter (the command to run) or remove $input"
      exit 2
    fi
  done
fi
# The adapter run's own options, passed on as given (bqsuite judges the values).
adapter_options=()
one adapter-timeout "${BQ_ADAPTER_TIMEOUT:-}"
if [ -n "$one" ]; then adapter_options+=(--timeout="$one"); fi
one adapter-max-restarts "${BQ_ADAPTER_MAX_RESTARTS:-}"
if [ -n "$one" ]; then adapter_options+=(--max-restarts="$one"); fi
known=()
known_path=$(lines "${BQ_KNOWN_FAILING:-}")
case $known_path in
  '') ;;
  *$'\n'*)
    error "known-failing: one path, not several lines"
    exit 2
    ;;
  *)
    if [ "${#results[@]}" -eq 0 ] && [ -z "$adapter" ]; then
      error "known-failing is set but neither results nor adapter is, so it would be ignored"
      exit 2
    fi
    known=(--known-failing="$known_path")
    ;;
esac
if [ "${#vendored[@]}" -eq 0 ] && [ "${#results[@]}" -eq 0 ] && [ -z "$adapter" ]; then
  error "nothing to check: set the input vendored (a vendored copy of the suite), results (a results file) or adapter (an adapter command to run), or several"
  exit 2
fi

worst=0
# Set while a command's output holds an adapter's text (the run, the adapter's log): the runner
# then reads no workflow command in it (no forged annotation, no group closed early).
untrusted=
# stop_commands: stop the runner reading workflow commands until `::$stop_token::` (a random
# token the adapter cannot guess, set here).
stop_token=
stop_commands() {
  stop_token=bq$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  echo "::stop-commands::$stop_token"
}
# why FILE: why a command whose stderr FILE holds could not run: bqsuite's own `bqsuite: error:`
# lines (the first 10, then how many more the log holds), else clap's `error:` line (a usage
# error), else the last non-empty line; CRs dropped.
why() {
  local found total
  found=$(tr -d '\r' <"$1" | grep -a '^bqsuite: error: ' | head -n 10)
  total=$(tr -d '\r' <"$1" | grep -a -c '^bqsuite: error: ' || true)
  if [ "${total:-0}" -gt 10 ]; then
    found+=$'\n'"bqsuite: error: … and $((total - 10)) more such lines in the log"
  fi
  [ -n "$found" ] || found=$(tr -d '\r' <"$1" | grep -a '^error: ' | head -n 1)
  [ -n "$found" ] || found=$(tr -d '\r' <"$1" | grep -a -v '^[[:space:]]*$' | tail -n 1)
  printf '%s' "${found:-(nothing on stderr)}"
}
# summarize TEXT [HEADING]: append TEXT to the job summary under HEADING (default: a check could
# not run) in a fenced code block, its fence longer than any run of backticks in TEXT, so
# nothing in it is read as Markdown.
summarize() {
  local text=$1 heading=${2:-a check could not run} longest fence
  [ -n "${GITHUB_STEP_SUMMARY:-}" ] || return 0
  longest=$(printf '%s\n' "$text" | grep -o '`*' | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
  fence='```'
  while [ "${#fence}" -le "$longest" ]; do fence+='`'; done
  printf '### BabelQueue conformance: %s\n\n%s\n%s\n%s\n\n' "$heading" "$fence" "$text" "$fence" >>"$GITHUB_STEP_SUMMARY"
}
# run TITLE COMMAND...: run one check in a log group, print the command as it can be re-run
# locally (each word quoted for bash where it needs it), and keep the worst exit status. Its
# stderr goes to the log as it comes and to a file too, for the reason of an exit 2.
run() {
  local title=$1 status err reason what
  shift
  echo "::group::$(escaped "$title")"
  printf '+ bqsuite'
  printf ' %q' "${@:2}"
  printf '\n'
  err=$(mktemp "$temp/bqsuite-stderr.XXXXXX") || err=/dev/null
  if [ -n "$untrusted" ]; then stop_commands; fi
  "$@" 2>&1 1>&3 3>&- | tee -- "$err" >&2 3>&-
  status=${PIPESTATUS[0]}
  if [ -n "$untrusted" ]; then echo "::$stop_token::"; fi
  echo "::endgroup::"
  case $status in
    0) ;;
    1) [ "$worst" -ge 1 ] || worst=1 ;;
    *)
      reason=$(why "$err")
      # Whatever made it exit 2 (a results file it could not read, whose others it still
      # judged, or a list, a suite or an option it could not use) is in the reason.
      what="could not run (exit $status)"
      error "$title $what: ${reason//bqsuite: error: /}"
      summarize "$title: $what"$'\n'"$reason"
      worst=2
      ;;
  esac
  if [ "$err" != /dev/null ]; then rm -f -- "$err"; fi
  return "$status"
}
# The step's stdout, for the checks' own (their stderr is piped through tee, above).
exec 3>&1

# The first vendored copy found clean: the suite a contributor reproduces a failing run with.
clean_copy=
for dir in ${vendored[@]+"${vendored[@]}"}; do
  if run "fetch --check $dir" "$bin" fetch --check ${pin[@]+"${pin[@]}"} --format github -- "$version" "$dir"; then
    [ -n "$clean_copy" ] || clean_copy=$dir
  fi
done

# word TEXT: TEXT as one word of a POSIX shell command, single-quoted when it needs quoting.
word() {
  case $1 in
    '' | *[!A-Za-z0-9_./=:@%+,-]*) printf "'%s'" "${1//\'/\'\\\'\'}" ;;
    *) printf '%s' "$1" ;;
  esac
}
# reproduce OUT: the commands that run the failed adapter run on a contributor's machine (OUT:
# the run's results path), in the log and the job summary.
reproduce() {
  local out=$1 suite_dir text bq_version fetch_line='' option
  bq_version=$("$bin" --version 2>/dev/null | awk '{ print $2; exit }')
  case $out in /*) out=conformance-results.json ;; esac
  if [ -n "$clean_copy" ]; then
    suite_dir=$clean_copy
  else
    suite_dir=suite-$version
    fetch_line="  bqsuite fetch $(word "$version") $(word "$suite_dir")"$'\n'
  fi
  text="To run it on your machine (bqsuite ${bq_version:-of this release}: pipx install bqsuite==${bq_version:-VERSION}, or the release binary)"
  if [ -n "$clean_copy" ]; then text+=", on your vendored copy $clean_copy, which matches release $version"; fi
  case $out in */*) fetch_line+="  mkdir -p $(word "$(dirname -- "$out")")"$'\n' ;; esac
  text+=":"$'\n'"$fetch_line  bqsuite run --suite $(word "$suite_dir") --sdk $(word "$adapter") --out $(word "$out")"
  if [ -n "${BQ_ADAPTER_REDIS:-}" ]; then text+=" --redis-url redis://localhost:6379"; fi
  for option in ${adapter_options[@]+"${adapter_options[@]}"} ${known[@]+"${known[@]}"}; do
    text+=" $(word "$option")"
  done
  if [ -n "${BQ_ADAPTER_REDIS:-}" ]; then
    text+=$'\n'"(a Redis 7 of your own for --redis-url: the job's URL is not shown)"
  fi
  text+=$'\n'"To see one case, add the \`--section … --case … --trace\` the run printed; what a case"
  text+=" holds an SDK to: bqsuite explain --suite $(word "$suite_dir") SECTION/ID"
  text+=$'\n'"Each section's rules: https://github.com/BabelQueue/conformance/tree/v$version/docs/sections"
  printf '%s\n' "$text"
  summarize "$text" "reproduce the adapter's run"
}

# mask VALUE: have the runner mask VALUE, and its percent-decoded form, wherever it appears in
# the log. A value shorter than 6 characters is not masked alone (masking `redis` would mask it
# in every line), nor one holding a line break (it would end the command early).
mask() {
  local value=$1 decoded
  case $value in *$'\n'* | *$'\r'*) return 0 ;; esac
  [ "${#value}" -ge 6 ] || return 0
  echo "::add-mask::$value"
  case $value in
    *%[0-9A-Fa-f][0-9A-Fa-f]*)
      decoded=$(percent_decoded "$value")
      case $decoded in *$'\n'* | *$'\r'*) return 0 ;; esac
      if [ "$decoded" != "$value" ] && [ "${#decoded}" -ge 6 ]; then echo "::add-mask::$decoded"; fi
      ;;
  esac
}

# percent_decoded TEXT: TEXT with every %XX decoded, and nothing else interpreted.
percent_decoded() {
  local escaped
  escaped=$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/%\([0-9A-Fa-f][0-9A-Fa-f]\)/\\x\1/g')
  printf '%b' "$escaped"
}

# mask_url URL: mask URL's credentials wherever they appear in the log, as bqsuite's redact_url
# hides them: the password (or a user that stands alone, a token), the value of every query
# parameter whose name says credential (pass, pwd, token, secret, auth, key, cred, sig), and the
# whole URL when it holds any. bqsuite never prints them, but the adapter is given the URL and
# may log it.
mask_url() {
  local url=$1 rest authority info query key found='' pairs pair
  rest=${url#*://}
  authority=${rest%%[/?]*}
  case $authority in
    *@*)
      info=${authority%@*}
      found=1
      case $info in
        *:*) mask "${info#*:}" ;;
        *) mask "$info" ;;
      esac
      ;;
    *)
      # An @ after the authority (a password with an unencoded / or ?): what precedes it may
      # be the credential, as redact_url judges it.
      case $rest in
        *@*)
          found=1
          mask "${rest%@*}"
          ;;
      esac
      ;;
  esac
  case $url in
    *\?*)
      query=${url#*\?}
      IFS='&' read -r -a pairs <<<"$query"
      for pair in ${pairs[@]+"${pairs[@]}"}; do
        key=$(percent_decoded "${pair%%=*}" | tr '[:upper:]' '[:lower:]')
        case $key in
          # Not `user`: a user name is no secret, and masking `default` would mask it everywhere.
          *pass* | *pwd* | *token* | *secret* | *auth* | *key* | *cred* | *sig*)
            found=1
            mask "${pair#*=}"
            ;;
        esac
      done
      ;;
  esac
  if [ -n "$found" ]; then mask "$url"; fi
}

# run_adapter SUITE: run the adapter through SUITE, add its results file to those checked.
run_adapter() {
  local suite=$1 out=${BQ_ADAPTER_RESULTS:-} status log
  out=$(lines "$out")
  [ -n "$out" ] || out=$temp/babelqueue-conformance/results.json
  case $out in
    *$'\n'* | *$'\r'*)
      # It is written to GITHUB_OUTPUT as one line.
      error "adapter-results: one path, not several lines"
      worst=2
      return
      ;;
    -)
      error "adapter-results: a file, not - (stdout)"
      worst=2
      return
      ;;
  esac
  mkdir -p -- "$(dirname -- "$out")" || {
    error "adapter-results: cannot create the directory of $out"
    worst=2
    return
  }
  log=$(dirname -- "$out")/adapter.log
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "adapter-results=$out" >>"$GITHUB_OUTPUT"
  fi
  case ${BQ_ADAPTER_REDIS:-} in
    *$'\n'* | *$'\r'*)
      error "redis-url: one URL, not several lines"
      worst=2
      return
      ;;
  esac
  if [ -n "${BQ_ADAPTER_REDIS:-}" ]; then
    mask_url "$BQ_ADAPTER_REDIS"
    export BQ_REDIS_URL=$BQ_ADAPTER_REDIS BQ_REQUIRE_REDIS=1
  else
    # The input is the only Redis the run sees: not one the job's env names for other steps.
    unset BQ_REDIS_URL BQ_REQUIRE_REDIS
  fi
  # A file an earlier run left there is not this run's: gone before the run, so that an upload
  # after a run that could not start finds nothing.
  rm -f -- "$out"
  untrusted=1
  run "run --sdk" "$bin" run --suite "$suite" --sdk "$adapter" --out="$out" --adapter-log="$log" \
    ${adapter_options[@]+"${adapter_options[@]}"} ${known[@]+"${known[@]}"}
  status=$?
  untrusted=
  if [ "$status" -ne 0 ]; then reproduce "$out"; fi
  # A results file is written whenever the run ran (exit 0 or 1); exit 2 writes none.
  if [ "$status" -le 1 ] && [ -f "$out" ]; then
    results+=("$out")
  fi
}

if [ "${#results[@]}" -gt 0 ] || [ -n "$adapter" ]; then
  suite=$(mktemp -d "$temp/bqsuite-suite-$version.XXXXXX")
  rmdir "$suite" # fetch unpacks into an absent or empty directory
  if run "fetch $version" "$bin" fetch ${pin[@]+"${pin[@]}"} -- "$version" "$suite"; then
    if [ -n "$adapter" ]; then
      run_adapter "$suite"
    fi
    if [ "${#results[@]}" -gt 0 ]; then
      run "results check" "$bin" results check --suite "$suite" --sdk "$sdk" --format github ${known[@]+"${known[@]}"} -- "${results[@]}"
    fi
  else
    # Said on the job's page, not only in the log: what this job did not do.
    skipped="the results files were not checked"
    if [ -n "$adapter" ]; then skipped="the adapter was not run and $skipped"; fi
    error "the suite release $version did not fetch and verify (see the fetch $version group of the log), so $skipped"
  fi
  rm -rf "$suite"
fi

exit "$worst"
