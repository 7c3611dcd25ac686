"""The distribution, tested on this machine (run by .ci/dist, which .ci/run calls):

- the wheel: built by maturin (`bin` bindings) from the dev profile, reusing the `target/` that
  `cargo test` filled, so CI does not compile bqsuite a second time; its version is the Cargo
  package's; it installs into a fresh virtual environment, whose `bqsuite --version` and
  `bqsuite validate` work;
- the GitHub release: `scripts/release.sh collect` over the suite asset, this wheel (standing in
  for the x86_64 musl build, which this machine cannot compile), a Windows wheel made here and the
  sdist gives every file with its line in SHA256SUMS, binary archives that carry exactly their
  wheel's executable, a release that `bqsuite fetch` reads and `scripts/release.sh verify` accepts;
- the action: action.yml's `run:` steps (.ci/action_harness.py) against fake SDK trees served
  that release through BQ_CONFORMANCE_BASE_URL: in-sync copies and a Compatible results file
  pass, and so does the reference adapter run through the release (`adapter`, with and without
  a Redis), each under the `sdk` it names; drift, a failing adapter, a Not compatible verdict
  and a results file of another SDK than `sdk` fail with `::error` annotations on the right
  files (none on a file outside the workspace); a check that cannot run says why on the page and
  in the job summary, a missing results file hides no other verdict, and inputs are trimmed; a tampered binary is not installed, nor one whose build
  provenance gh (a stand-in here) refuses, and a suite asset whose provenance is verified pins
  every fetch; provenance that cannot be checked is said in a notice (auto) or fails the step
  (require); the default version
  follows the action's ref, else its CONFORMANCE_VERSION; a -pre action and a missing input
  fail;
- the workflow files parse as YAML and have the shape the README promises.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import unittest
import zipfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import action_harness  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
CARGO_VERSION = tomllib.loads((REPO / "Cargo.toml").read_text())["package"]["version"]
SUITE_VERSION = (REPO / "CONFORMANCE_VERSION").read_text().strip()
ASSET = f"babelqueue-conformance-{SUITE_VERSION}.tar.gz"
# What action/install.sh picks for this machine (the harness reports RUNNER_OS / RUNNER_ARCH as
# a GitHub runner would).
HOST_TARGET = {"X64": "x86_64-unknown-linux-musl", "ARM64": "aarch64-unknown-linux-musl"}[action_harness.runner_arch()]
WINDOWS_TARGET = "x86_64-pc-windows-msvc"

SCRATCH = Path(tempfile.mkdtemp(prefix="bqsuite-dist-"))
BQSUITE = REPO / "target" / "debug" / "bqsuite"


def sh(*args, cwd=REPO, env=None, check=True) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [str(a) for a in args], cwd=cwd, env={**os.environ, **(env or {})}, text=True, capture_output=True
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"{args} exited {proc.returncode}\n--- stdout\n{proc.stdout}--- stderr\n{proc.stderr}")
    return proc


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def wheel_executable(wheel: Path) -> bytes:
    with zipfile.ZipFile(wheel) as z:
        (name,) = [n for n in z.namelist() if re.fullmatch(r"[^/]+\.data/scripts/bqsuite(\.exe)?", n)]
        return z.read(name)


class Built:
    """Made once: the dev wheel, the sdist, and the release `collect` makes from them."""

    wheel: Path
    release: Path
    artifacts: Path

    @classmethod
    def make(cls) -> None:
        wheels = SCRATCH / "wheels"
        sh(sys.executable, "-m", "maturin", "build", "--profile", "dev", "--locked", "--out", wheels)
        (cls.wheel,) = wheels.glob("*.whl")
        cls.artifacts = SCRATCH / "artifacts"
        env = {"BQSUITE": str(BQSUITE)}
        # A test release of this checkout, not a real one: no previous release to compare with,
        # and the checkout as it is, uncommitted edits included (BQ959 would refuse them).
        sh("bash", "scripts/release.sh", "build", cls.artifacts / "suite", "--no-previous", "--allow-dirty", env=env)
        host = cls.artifacts / f"wheel-{HOST_TARGET}"
        host.mkdir(parents=True)
        shutil.copy(cls.wheel, host)
        windows = cls.artifacts / f"wheel-{WINDOWS_TARGET}"
        windows.mkdir()
        with zipfile.ZipFile(windows / f"bqsuite-{CARGO_VERSION}-py3-none-win_amd64.whl", "w") as z:
            z.writestr(f"bqsuite-{CARGO_VERSION}.data/scripts/bqsuite.exe", b"MZ stands in for a Windows build")
            z.writestr(f"bqsuite-{CARGO_VERSION}.dist-info/WHEEL", "Wheel-Version: 1.0\n")
        sh(sys.executable, "-m", "maturin", "sdist", "--out", cls.artifacts / "sdist")
        cls.release = SCRATCH / "release"
        sh("bash", "scripts/release.sh", "collect", cls.artifacts, cls.release, env=env)


def setUpModule() -> None:
    Built.make()


def tearDownModule() -> None:
    shutil.rmtree(SCRATCH, ignore_errors=True)


class Wheel(unittest.TestCase):
    def test_version_is_the_cargo_package_version(self):
        self.assertTrue(Built.wheel.name.startswith(f"bqsuite-{CARGO_VERSION}-py3-none-"), Built.wheel.name)
        with zipfile.ZipFile(Built.wheel) as z:
            metadata = z.read(f"bqsuite-{CARGO_VERSION}.dist-info/METADATA").decode()
            names = z.namelist()
        self.assertIn(f"\nVersion: {CARGO_VERSION}\n", metadata)
        self.assertIn(f"bqsuite-{CARGO_VERSION}.dist-info/licenses/LICENSE", names)
        self.assertEqual(wheel_executable(Built.wheel), BQSUITE.read_bytes(), "the wheel carries the dev build")

    def test_installs_into_a_fresh_venv_and_runs(self):
        venv = SCRATCH / "fresh-venv"
        sh(sys.executable, "-m", "venv", venv)
        sh(venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--no-index", Built.wheel)
        exe = venv / "bin" / "bqsuite"
        version = sh(exe, "--version")
        self.assertRegex(version.stdout, rf"^bqsuite {re.escape(CARGO_VERSION)}\b")
        validate = sh(exe, "validate", cwd=REPO, check=False)
        self.assertEqual(validate.returncode, 0, validate.stdout + validate.stderr)
        self.assertIn(f"validate: clean (suite {SUITE_VERSION}", validate.stdout)


class Release(unittest.TestCase):
    def sums(self) -> dict[str, str]:
        lines = (Built.release / "SHA256SUMS").read_text().splitlines()
        return {name: digest for digest, name in (line.split("  ", 1) for line in lines)}

    def test_sha256sums_covers_every_attached_file(self):
        sums = self.sums()
        files = sorted(p.name for p in Built.release.iterdir() if p.name != "SHA256SUMS")
        self.assertEqual(sorted(sums), files)
        for name, digest in sums.items():
            self.assertEqual(sha256(Built.release / name), digest, name)
        expected = {
            ASSET,
            Built.wheel.name,
            f"bqsuite-{CARGO_VERSION}-py3-none-win_amd64.whl",
            f"bqsuite-{CARGO_VERSION}.tar.gz",
            f"bqsuite-{HOST_TARGET}.tar.gz",
            f"bqsuite-{WINDOWS_TARGET}.zip",
        }
        self.assertEqual(set(files), expected)
        release_line = (Built.artifacts / "suite" / "SHA256SUMS").read_text()
        self.assertIn(release_line, (Built.release / "SHA256SUMS").read_text(), "the asset's line as release wrote it")
        sh("sha256sum", "--strict", "-c", "SHA256SUMS", cwd=Built.release)

    def test_binary_archives_carry_their_wheels_executable(self):
        with tarfile.open(Built.release / f"bqsuite-{HOST_TARGET}.tar.gz") as t:
            members = {m.name: m for m in t.getmembers()}
            self.assertEqual(sorted(members), ["LICENSE", "bqsuite"])
            self.assertEqual(members["bqsuite"].mode, 0o755)
            self.assertEqual(t.extractfile("bqsuite").read(), wheel_executable(Built.wheel))
            self.assertEqual(t.extractfile("LICENSE").read(), (REPO / "LICENSE").read_bytes())
        windows = next((Built.artifacts / f"wheel-{WINDOWS_TARGET}").glob("*.whl"))
        with zipfile.ZipFile(Built.release / f"bqsuite-{WINDOWS_TARGET}.zip") as z:
            self.assertEqual(sorted(z.namelist()), ["LICENSE", "bqsuite.exe"])
            self.assertEqual(z.read("bqsuite.exe"), wheel_executable(windows))

    def test_fetch_and_verify_read_the_published_release(self):
        base = {"BQ_CONFORMANCE_BASE_URL": Built.release.as_uri(), "BQSUITE": str(BQSUITE)}
        dest = SCRATCH / "fetched"
        sh(BQSUITE, "fetch", SUITE_VERSION, dest, env=base)
        self.assertEqual((dest / "CONFORMANCE_VERSION").read_text().strip(), SUITE_VERSION)
        verify = sh("bash", "scripts/release.sh", "verify", Built.release, env=base)
        self.assertIn("rebuild byte for byte", verify.stderr)

    def test_collect_refuses_to_overwrite_and_leaves_nothing_behind(self):
        again = sh("bash", "scripts/release.sh", "collect", Built.artifacts, Built.release, check=False)
        self.assertEqual(again.returncode, 2, again.stderr)
        broken = SCRATCH / "broken-artifacts"
        shutil.copytree(Built.artifacts, broken)
        (broken / "suite" / "SHA256SUMS").write_text(f"{'0' * 64}  {ASSET}\n")
        out = SCRATCH / "broken-release"
        bad = sh("bash", "scripts/release.sh", "collect", broken, out, check=False)
        self.assertEqual(bad.returncode, 1, bad.stderr)
        self.assertFalse(out.exists())
        self.assertEqual([p for p in SCRATCH.iterdir() if ".partial." in p.name], [])


class Action(unittest.TestCase):
    """action.yml's steps against fake SDK trees, the release above standing in for GitHub's."""

    @classmethod
    def setUpClass(cls):
        # One fake SDK tree, copied for each test: two vendored copies, fetched from the release,
        # and the reference core's results file, which is Compatible (without Redis its Redis
        # cases are skips that cite ADR-0033).
        # A stand-in for gh, which the install step asks to check build provenance: it writes
        # each call's arguments to $FAKE_GH_LOG, one call per line, tab-separated, and exits 1
        # when an argument holds $FAKE_GH_REFUSE (never when unset), else 0, so no test reaches
        # GitHub (a GitHub-hosted runner has a real gh).
        fake_gh = SCRATCH / "fake-gh"
        fake_gh.mkdir()
        (fake_gh / "gh").write_text(
            "#!/usr/bin/env bash\n"
            'printf "%s\\t" "$@" >>"$FAKE_GH_LOG"; echo >>"$FAKE_GH_LOG"\n'
            'if [ -n "${FAKE_GH_REFUSE:-}" ]; then case "$*" in *"$FAKE_GH_REFUSE"*) echo "fake gh: refused" >&2; exit 1 ;; esac; fi\n'
            'echo "fake gh: verified" >&2\n'
        )
        (fake_gh / "gh").chmod(0o755)
        cls.env = {"BQ_CONFORMANCE_BASE_URL": Built.release.as_uri(), "BQ_GH": str(fake_gh / "gh")}
        cls.template = SCRATCH / "sdk-template"
        for copy in ["tests/conformance", "packages/kafka/test/conformance"]:
            (cls.template / copy).parent.mkdir(parents=True)
            sh(BQSUITE, "fetch", SUITE_VERSION, cls.template / copy, env=cls.env)
        quiet = {k: v for k, v in os.environ.items() if k not in ("BQ_REDIS_URL", "BQ_REQUIRE_REDIS")}
        subprocess.run(
            [BQSUITE, "run", "--out", cls.template / "results.json"], cwd=REPO, env=quiet, capture_output=True, check=True
        )

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(dir=SCRATCH))
        self.sdk = self.tmp / "sdk"
        shutil.copytree(self.template, self.sdk)
        self.gh_calls = self.tmp / "gh-calls"

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def action(self, inputs, ref=f"v{SUITE_VERSION}", action_dir=REPO, env=None, sdk="bqsuite-reference"):
        """Run the action. The fake SDK's results are the reference core's (its adapter's too), so
        with `results` or `adapter` the `sdk` input names it unless `inputs` gives one or `sdk`
        is None."""
        env = {**self.env, "FAKE_GH_LOG": str(self.gh_calls), **(env or {})}
        if sdk and "sdk" not in inputs and ("results" in inputs or "adapter" in inputs):
            inputs = {**inputs, "sdk": sdk}
        return action_harness.run(action_dir, self.sdk, inputs, ref, env, self.tmp / "runner-temp")

    def assert_ok(self, outcome):
        self.assertEqual(outcome.status, 0, outcome.log)
        self.assertEqual(outcome.annotations(), [], outcome.log)

    def test_in_sync_copies_and_a_compatible_result_pass(self):
        out = self.action({"vendored": "tests/conformance\n\n  packages/kafka/test/conformance  \n", "results": "results.json"})
        self.assert_ok(out)
        self.assertEqual(out.outputs["version"], SUITE_VERSION)
        self.assertEqual(out.path, [str(Path(out.outputs["bqsuite"]).parent)], "bqsuite is on PATH for later steps")
        self.assertIn("(matches SHA256SUMS)", out.log)
        pin = sha256(Built.release / ASSET)  # its provenance verified by the install step
        self.assertIn(
            f"+ bqsuite fetch --check --sha256 {pin} --format github -- {SUITE_VERSION} packages/kafka/test/conformance", out.log
        )
        self.assertIn("results.json: Compatible", out.log)
        self.assertIn("Compatible", out.summary, "results check writes the verdicts to the job summary")

    def test_an_input_that_looks_like_an_option_is_a_path(self):
        # Paths go after `--`: a `vendored` or `results` value of --help used to print the
        # help and pass.
        out = self.action({"vendored": "--help"})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("--help: no such directory", out.log)
        out = self.action({"results": "--help"})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("cannot read --help", out.log)

    def test_drift_fails_with_an_annotation_per_file(self):
        copy = self.sdk / "packages/kafka/test/conformance"
        (copy / "fixtures" / "stray.json").write_text("{}\n")
        fixture = sorted((copy / "fixtures").glob("*.json"))[0]
        fixture.unlink()
        manifest = copy / "manifest.json"
        manifest.write_text(manifest.read_text().replace('"valid": true', '"valid": false', 1))
        out = self.action({"vendored": "tests/conformance\npackages/kafka/test/conformance"})
        self.assertEqual((out.status, out.failed_step), (1, "Check against the released suite"), out.log)
        errors = out.annotations()
        rel = "packages/kafka/test/conformance"
        for code, path in [
            ("BQ900", f"{rel}/fixtures/stray.json"),
            ("BQ901", f"{rel}/fixtures/{fixture.name}"),
            ("BQ902", f"{rel}/manifest.json"),
        ]:
            self.assertTrue(any(f"file={path}," in e and f"title={code} " in e for e in errors), f"{code} {path}: {errors}")
        self.assertEqual(len(errors), 3, "the in-sync copy adds nothing")

    def test_a_not_compatible_result_fails_with_annotations(self):
        results = self.sdk / "results.json"
        text = results.read_text()
        self.assertIn('"status": "pass"', text)
        results.write_text(text.replace('"status": "pass"', '"status": "fail", "reason": "broken on purpose"', 1))
        out = self.action({"results": "results.json", "vendored": "tests/conformance"})
        self.assertEqual(out.status, 1, out.log)
        self.assertIn("results.json: Not compatible", out.log)
        errors = out.annotations()
        self.assertTrue(any(e.startswith("::error file=results.json,") and "BQ612" in e for e in errors), errors)

    def test_an_adapter_run_through_the_release_is_checked(self):
        # The reference adapter, without Redis: its Redis cases are skips citing ADR-0033, so it
        # is Compatible; the results file is where `adapter-results` says, and is the output.
        out = self.action({"adapter": f"{BQSUITE} adapter", "adapter-results": "build/results.json"})
        self.assert_ok(out)
        written = self.sdk / "build" / "results.json"
        self.assertEqual(out.outputs["adapter-results"], "build/results.json")
        self.assertIn('"status": "pass"', written.read_text())
        self.assertIn("+ bqsuite run --suite ", out.log)
        # The command is printed as bash can re-run it: the adapter command is one word.
        self.assertIn(f" --sdk {BQSUITE}\\ adapter --out=build/results.json ", out.log)
        self.assertIn("build/results.json: Compatible", out.log)
        self.assertTrue((self.sdk / "build" / "adapter.log").exists(), "the adapter's stderr beside the results")
        # By default the file goes to the runner's temp directory.
        out = self.action({"adapter": f"{BQSUITE} adapter", "results": "results.json"})
        self.assert_ok(out)
        default = self.tmp / "runner-temp" / "babelqueue-conformance" / "results.json"
        self.assertEqual(out.outputs["adapter-results"], str(default))
        self.assertTrue(default.exists())
        self.assertIn("results.json: Compatible", out.log)

    def test_a_failing_adapter_fails_with_annotations_and_its_log(self):
        # A relay that crashes instead of answering its fifth call: that case fails, the verdict
        # is Not compatible, and the end of the adapter's stderr is printed.
        relay = f"python3 {shlex.quote(str(REPO / 'tests/adapters/misbehave.py'))} {shlex.quote(str(BQSUITE))} crash 5"
        out = self.action({"adapter": relay, "adapter-results": "results-adapter.json"})
        self.assertEqual((out.status, out.failed_step), (1, "Check against the released suite"), out.log)
        self.assertIn("results-adapter.json: Not compatible", out.log)
        errors = out.annotations()
        self.assertTrue(any(e.startswith("::error file=results-adapter.json,") for e in errors), errors)
        self.assertIn("the end of the adapter's log (", out.log, "bqsuite prints it, escaped")
        # User report: the command the log printed named the runner's temp copy of the suite,
        # gone after the step. The log and the summary say how to run it locally instead: on the
        # vendored copy found clean (else fetched), same adapter, and where the rules are. Run
        # as printed, in the SDK's tree, it reproduces the failure.
        out = self.action({"adapter": relay, "adapter-results": "results-adapter.json", "vendored": "tests/conformance"})
        self.assertEqual(out.status, 1, out.log)
        command = f"  bqsuite run --suite tests/conformance --sdk {shlex.quote(relay)} --out results-adapter.json\n"
        self.assertIn(command, out.log)
        self.assertIn("### BabelQueue conformance: reproduce the adapter's run", out.summary)
        self.assertIn(command, out.summary)
        self.assertIn(f"/tree/v{SUITE_VERSION}/docs/sections", out.summary)
        self.assertIn("what a case holds an SDK to: bqsuite explain --suite tests/conformance SECTION/ID", out.summary)
        (self.sdk / "results-adapter.json").unlink()
        bin_dir = str(Path(BQSUITE).parent)
        local = subprocess.run(
            ["bash", "-c", command.strip()], cwd=self.sdk, capture_output=True, text=True,
            env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"},
        )
        self.assertEqual(local.returncode, 1, local.stderr)
        self.assertIn("run: ", local.stderr + local.stdout)
        self.assertTrue((self.sdk / "results-adapter.json").exists())
        # Without a vendored copy the suite is fetched first; a Redis given is a placeholder,
        # never the job's URL; the adapter's own options are carried.
        out = self.action(
            {"adapter": relay, "redis-url": "redis://user:s3cret-pass@127.0.0.1:1/", "adapter-timeout": "7.5",
             "adapter-max-restarts": " 2\n"}
        )
        self.assertIn(out.status, (1, 2), out.log)
        self.assertIn(f"  bqsuite fetch {SUITE_VERSION} suite-{SUITE_VERSION}\n", out.log)
        self.assertIn(
            f"  bqsuite run --suite suite-{SUITE_VERSION} --sdk {shlex.quote(relay)} --out conformance-results.json "
            "--redis-url redis://localhost:6379 --timeout=7.5 --max-restarts=2\n", out.summary
        )
        self.assertIn("--timeout=7.5 --max-restarts=2", out.log.split("+ bqsuite run ", 1)[1].splitlines()[0])
        self.assertNotIn("s3cret", out.summary)
        # A results path in a directory: the directory is made first (--out's must exist).
        out = self.action({"adapter": relay, "adapter-results": "build/conformance/results.json"})
        self.assertEqual(out.status, 1, out.log)
        self.assertIn(
            f"  mkdir -p build/conformance\n  bqsuite run --suite suite-{SUITE_VERSION} --sdk {shlex.quote(relay)} "
            "--out build/conformance/results.json\n", out.log
        )
        # A passing run prints none of it.
        out = self.action({"adapter": f"{BQSUITE} adapter"})
        self.assert_ok(out)
        self.assertNotIn("reproduce", out.summary + out.log)
        # An adapter that cannot start writes no results file: the check could not run.
        out = self.action({"adapter": "false", "vendored": "tests/conformance"})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("run --sdk could not run (exit 2)", " ".join(out.annotations()))
        self.assertIn("fetch --check", out.log, "the other checks still run")

    def test_a_known_failing_list_holds_the_job_to_what_the_sdk_has_reached(self):
        # One case fails; listed, the job is green and the verdict still Not compatible; a list
        # with an entry that passes (stale, BQ621 at its line) or without the failure is red.
        results = self.sdk / "results.json"
        doc = json.loads(results.read_text())
        doc["sections"]["cases"]["order-created"] = {"status": "fail", "reason": "broken on purpose"}
        results.write_text(json.dumps(doc, indent=2))
        (self.sdk / "known.txt").write_text("# lang is not stamped yet\ncases\torder-created\n")
        out = self.action({"results": "results.json", "known-failing": " known.txt "})
        self.assertEqual(out.status, 0, out.log)
        # The known failure is a warning annotation on a green job, not an error.
        self.assertEqual(out.annotations(), [], out.log)
        notes = [a for a in out.annotations("warning") if "BQ612" in a]
        self.assertEqual(len(notes), 1, out.log)
        self.assertTrue(notes[0].startswith("::warning file=results.json,"), notes)
        self.assertIn("(a known failure: known.txt line 2)", notes[0])
        self.assertIn("results.json: Not compatible", out.log)
        self.assertIn("results.json: known failures (known.txt): 1 listed, 1 still failing; the list holds", out.log)
        self.assertIn(" --known-failing=known.txt -- results.json", out.log)
        (self.sdk / "known.txt").write_text("cases order-created\ncases urn-alias\n")
        out = self.action({"results": "results.json", "known-failing": "known.txt"})
        self.assertEqual(out.status, 1, out.log)
        errors = out.annotations()
        self.assertTrue(any(e.startswith("::error file=known.txt,line=2,") and "BQ621" in e for e in errors), errors)
        # The adapter's run gets it too: the reference adapter fails nothing, so the entry is stale.
        out = self.action({"adapter": f"{BQSUITE} adapter", "known-failing": "known.txt"})
        self.assertEqual(out.status, 1, out.log)
        self.assertIn("is listed as a known failure, but it passed in this run", out.log)
        # Without results or adapter it would be ignored: an error.
        out = self.action({"vendored": "tests/conformance", "known-failing": "known.txt"})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("known-failing is set but neither results nor adapter is", " ".join(out.annotations()))

    def test_the_redis_url_reaches_the_run_and_never_the_log(self):
        # Nothing listens on port 1: a Redis given is a Redis required, so the cases that need
        # it fail (they are not skipped), and the log says why without the password.
        out = self.action({"adapter": f"{BQSUITE} adapter", "redis-url": "redis://:s3cret@127.0.0.1:1/0"})
        self.assertEqual(out.status, 1, out.log)
        self.assertIn("cannot reach Redis at redis://:***@127.0.0.1:1/0", out.log)
        self.assertIn(": Not compatible", out.log)
        # The adapter is given the URL; whatever it logs, the runner masks the credentials, in
        # the form given and percent-decoded.
        (self.sdk / "leak.sh").write_text("echo \"my redis: $BQ_REDIS_URL, password p@ssword1\" >&2\nexit 1\n")
        out = self.action({"adapter": "sh leak.sh", "redis-url": "redis://bob:p%40ssword1@127.0.0.1:1/0"})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("my redis: ***, password ***", out.log)
        # A password with an unencoded `/`: the parser reads a port and a path, the mask does not.
        out = self.action({"adapter": "sh leak.sh", "redis-url": "redis://default:1234/SEKRET@127.0.0.1:1/0"})
        self.assertNotIn("SEKRET", out.log)
        # A password too short to mask alone is masked only inside the whole URL: masking `ab`
        # would mask it in every line (babelqueue).
        out = self.action({"adapter": "sh leak.sh", "redis-url": "redis://:ab@127.0.0.1:1/0"})
        self.assertIn("my redis: ***, password p@ssword1", out.log)
        self.assertIn("babelqueue-conformance-1.6.0.tar.gz", out.log)

    def test_the_job_env_redis_does_not_reach_the_run_and_adapter_inputs_need_adapter(self):
        # A job-level BQ_REDIS_URL / BQ_REQUIRE_REDIS (the names SDK test suites use) does not
        # reach the run: without redis-url its Redis cases are skips, and it is Compatible.
        env = {"BQ_REDIS_URL": "redis://127.0.0.1:1/0", "BQ_REQUIRE_REDIS": "1"}
        out = self.action({"adapter": f"{BQSUITE} adapter"}, env=env)
        self.assert_ok(out)
        self.assertIn("no Redis is given (--redis-url, or a BQ_REDIS_URL that is not blank); the cases that need Redis are skipped", out.log)
        for name, value in [
            ("redis-url", "redis://127.0.0.1:1/0"), ("adapter-results", "r.json"), ("adapter-timeout", "30"),
            ("adapter-max-restarts", "1"),
        ]:
            out = self.action({"vendored": "tests/conformance", name: value})
            self.assertEqual(out.status, 2, out.log)
            self.assertIn(f"{name} is set but adapter is not", " ".join(out.annotations()))
        self.assertNotIn("s3cret", out.log + " ".join(out.annotations()))
        # The run's options are bqsuite's to judge: a bad value is a usage error on the page.
        out = self.action({"adapter": f"{BQSUITE} adapter", "adapter-timeout": "soon"})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("run --sdk could not run (exit 2): error: invalid value 'soon' for '--timeout", " ".join(out.annotations()))

    def test_an_adapter_runs_the_redis_cases_on_the_redis_given(self):
        redis = os.environ.get("BQ_REDIS_URL")
        if not redis:
            # .ci/run always gives one (BQ_REQUIRE_REDIS): only a hand run may skip.
            self.assertFalse(os.environ.get("BQ_REQUIRE_REDIS"), "BQ_REQUIRE_REDIS is set but BQ_REDIS_URL is not")
            self.skipTest("BQ_REDIS_URL is not set")
        out = self.action({"adapter": f"{BQSUITE} adapter", "redis-url": redis, "adapter-results": "r.json"})
        self.assert_ok(out)
        verdicts = [line for line in out.log.splitlines() if line.startswith("r.json: Compatible")]
        self.assertTrue(verdicts, out.log)
        self.assertTrue(all(line.endswith(", 0 skip") for line in verdicts), verdicts)

    def test_an_adapters_text_cannot_issue_workflow_commands(self):
        # An adapter that writes a workflow command to its stderr and exits before its hello:
        # the end of its log is printed, and bqsuite's stderr, with commands stopped.
        (self.sdk / "forge.sh").write_text("echo '::error title=Forged::from the adapter' >&2\necho '::endgroup::' >&2\nexit 1\n")
        out = self.action({"adapter": "sh forge.sh", "vendored": "tests/conformance"})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("::error title=Forged::from the adapter", out.log, "shown, as text")
        self.assertFalse(any("Forged" in c for c in out.commands()), out.commands())
        groups = [c.split("::")[1] for c in out.commands() if c.startswith(("::group::", "::endgroup::"))]
        self.assertEqual(groups, ["group", "endgroup"] * (len(groups) // 2), "no group closed early")
        self.assertIn("run --sdk could not run (exit 2)", " ".join(out.annotations()), "commands resume after it")
        # A reply kind holding a workflow command (bqsuite escapes it too).
        relay = f"python3 {shlex.quote(str(REPO / 'tests/adapters/misbehave.py'))} {shlex.quote(str(BQSUITE))} inject 1"
        out = self.action({"adapter": relay})
        self.assertEqual(out.status, 1, out.log)
        # Its text is in the BQ612 annotation of the case it failed, escaped, and nowhere else.
        self.assertFalse(any(c.startswith("::error title=Injected") for c in out.commands()), out.commands())
        self.assertEqual(len([c for c in out.commands() if "Injected" in c]), 1, out.commands())

    def test_adapter_results_is_trimmed_and_stale_files_go(self):
        # A YAML block scalar ends with a line feed: trimmed, like the other inputs.
        stale = self.sdk / "build" / "results.json"
        stale.parent.mkdir()
        stale.write_text("{}\n")
        out = self.action({"adapter": "false", "adapter-results": "  build/results.json\n"})
        self.assertEqual(out.status, 2, out.log)
        self.assertFalse(stale.exists(), "a results file the run did not write is not left for an upload")
        out = self.action({"adapter": "false", "adapter-results": "-"})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("adapter-results: a file, not - (stdout)", " ".join(out.annotations()))
        # A path that looks like an option is a path.
        out = self.action({"adapter": f"{BQSUITE} adapter", "adapter-results": "-r.json"})
        self.assert_ok(out)
        self.assertTrue((self.sdk / "-r.json").exists())

    def test_an_adapter_is_one_command_line(self):
        out = self.action({"adapter": f"{BQSUITE} adapter\n{BQSUITE} adapter"})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("one command line", " ".join(out.annotations()))
        # The results path is one line of GITHUB_OUTPUT: a second line would set another output.
        out = self.action({"adapter": f"{BQSUITE} adapter", "adapter-results": "r.json\nbqsuite=/tmp/evil"})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("adapter-results: one path", " ".join(out.annotations()))
        self.assertNotIn("+ bqsuite run", out.log, "nothing was run")

    def test_a_results_file_of_another_sdk_is_no_green(self):
        # User report (a false green): the reference core's own results, its adapter's, or a
        # sibling SDK's file went green. `sdk` is required with results or adapter, and every
        # file checked must name it (BQ622 at /sdk).
        out = self.action({"results": "results.json"}, sdk=None)
        self.assertEqual((out.status, out.failed_step), (2, "Check against the released suite"), out.log)
        self.assertIn("sdk is not set: with results or adapter", " ".join(out.annotations()))
        self.assertNotIn("+ bqsuite", out.log, "nothing ran")
        out = self.action({"results": "results.json", "sdk": "babelqueue-node"})
        self.assertEqual(out.status, 1, out.log)
        self.assertIn(" --sdk babelqueue-node --format github -- results.json", out.log)
        errors = out.annotations()
        self.assertTrue(
            any(e.startswith("::error file=results.json,line=") and "BQ622" in e and "the reference core's name" in e for e in errors),
            errors,
        )
        results = self.sdk / "results.json"
        doc = json.loads(results.read_text())
        doc["sdk"] = "babelqueue-go"
        results.write_text(json.dumps(doc))
        out = self.action({"results": "results.json", "sdk": "babelqueue-node"})
        self.assertEqual(out.status, 1, out.log)
        self.assertTrue(any("BQ622" in e and "another SDK's results file" in e for e in out.annotations()), out.log)
        self.assert_ok(self.action({"results": "results.json", "sdk": " babelqueue-go\n"}))
        # The adapter's results carry its hello's sdk: the reference adapter is not the SDK's.
        # Its file lies in the runner's temp directory, outside the workspace: no file= (GitHub
        # could not attach it), the path leading the message instead.
        out = self.action({"adapter": f"{BQSUITE} adapter", "sdk": "babelqueue-node"})
        self.assertEqual(out.status, 1, out.log)
        default = self.tmp / "runner-temp" / "babelqueue-conformance" / "results.json"
        (bq622,) = [e for e in out.annotations() if "BQ622" in e]
        self.assertTrue(bq622.startswith(f"::error title=BQ622 results-other-sdk::{default}:"), bq622)
        self.assertNotIn("file=", bq622)
        # A name no results file can have, or one that would be ignored.
        out = self.action({"results": "results.json", "sdk": "babelqueue node"})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("is not a package name", " ".join(out.annotations()))
        out = self.action({"vendored": "tests/conformance", "sdk": "babelqueue-node"})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("sdk is set but neither results nor adapter is", " ".join(out.annotations()))

    def test_a_check_that_cannot_run_says_why_on_the_page_and_in_the_summary(self):
        # User report: "could not run (exit 2); see the log", and nothing in the job summary.
        out = self.action({"vendored": "no-such-copy\ntests/conformance"})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn(
            "::error title=BabelQueue conformance::fetch --check no-such-copy could not run (exit 2): no-such-copy: no such "
            "directory (the vendored copy to check)",
            out.annotations(),
        )
        self.assertIn("fetch --check no-such-copy: could not run (exit 2)\nbqsuite: error: no-such-copy: no such directory", out.summary)
        self.assertLess(
            out.log.index("no-such-copy could not run (exit 2)"), out.log.index(f"{SUITE_VERSION} tests/conformance\n"), "the next check still ran"
        )
        # The reason is escaped as workflow commands require, and fenced in the summary: a path
        # (or an adapter's words) cannot end the annotation and start a command of its own, nor
        # close the summary's code block.
        out = self.action({"vendored": "x%0A::error title=Forged::````````y"})
        self.assertEqual(out.status, 2, out.log)
        (error,) = out.annotations()
        self.assertIn("x%250A::error title=Forged::````````y: no such directory", error)
        self.assertFalse(any(c.startswith("::error title=Forged") for c in out.commands()), out.commands())
        self.assertIn("\n`````````\nfetch --check x%0A::error title=Forged::````````y: could not run", out.summary)
        self.assertTrue(out.summary.rstrip().endswith("`````````"), out.summary)
        # A usage error is clap's line, not its closing "For more information" line.
        out = self.action({"vendored": "tests/conformance", "sha256": "abc"})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("could not run (exit 2): error: invalid value 'abc' for '--sha256 <HEX>'", " ".join(out.annotations()))
        # The adapter's stderr is streamed to the log and stays text; the reason is bqsuite's.
        (self.sdk / "forge.sh").write_text("echo 'bqsuite: error: forged ```' >&2\nexit 1\n")
        out = self.action({"adapter": "sh forge.sh"})
        self.assertEqual(out.status, 2, out.log)
        (error,) = out.annotations()
        self.assertIn("run --sdk could not run (exit 2): the adapter exited (exit status: 1) before its hello", error)
        self.assertNotIn("forged", error + out.summary)
        self.assertIn("  | bqsuite: error: forged", out.log)

    def test_a_results_file_that_cannot_be_read_hides_no_other_verdict(self):
        # User report: one missing file (exit 2) hid the verdicts of the good ones; a glob was
        # said only "cannot read build/*.json".
        out = self.action({"results": "build/*.json\nresults.json"})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("results.json: Compatible", out.log)
        self.assertIn("- results.json: Compatible", out.summary)
        (error,) = out.annotations()
        self.assertIn("results check could not run (exit 2): cannot read build/*.json", error)
        self.assertIn("globs are not expanded", error)
        # Many unreadable files: the first ten reasons, then how many more the log holds.
        missing = [f"gone-{i:02}.json" for i in range(12)]
        out = self.action({"results": "\n".join(missing + ["results.json"])})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("- results.json: Compatible", out.summary)
        (error,) = out.annotations()
        self.assertIn("cannot read gone-09.json", error)
        self.assertNotIn("gone-10.json", error)
        self.assertIn("… and 2 more such lines in the log", error)
        self.assertIn("… and 2 more such lines in the log", out.summary)

    def test_version_and_sha256_are_trimmed(self):
        # User report: a YAML block scalar gives `1.6.0\n`, which broke the install and split
        # the annotation, and a sha256 with a line feed was "not a sha256".
        pinned = sha256(Built.release / ASSET)
        out = self.action({"vendored": "tests/conformance", "version": f"{SUITE_VERSION}\n", "sha256": f"{pinned}\n", "attestation": " auto\n"})
        self.assert_ok(out)
        self.assertEqual(out.outputs["version"], SUITE_VERSION)
        self.assertIn(f"--sha256 {pinned} --format github -- {SUITE_VERSION} tests/conformance", out.log)
        for name in ["version", "sha256"]:
            out = self.action({"vendored": "tests/conformance", name: f"{SUITE_VERSION}\n0.9.0"})
            self.assertEqual(out.status, 2, out.log)
            self.assertIn(f"::error title=BabelQueue conformance::{name}: one value, not several lines", out.annotations())

    def test_a_copy_of_another_release_says_so_and_the_summary_gives_the_remedy(self):
        (self.sdk / "tests/conformance/CONFORMANCE_VERSION").write_text("1.5.0\n")
        out = self.action({"vendored": "tests/conformance"})
        self.assertEqual(out.status, 1, out.log)
        said = f"your copy is 1.5.0, checked against {SUITE_VERSION}"
        self.assertTrue(any(said in n for n in out.annotations("notice")), out.log)
        self.assertLess(out.summary.index(f"Note: {said}"), out.summary.index("| severity |"), out.summary)
        self.assertIn(f"`bqsuite fetch --update {SUITE_VERSION} tests/conformance`", out.summary)

    def test_default_version_falls_back_to_the_actions_conformance_version(self):
        for ref in ["main", "0123456789abcdef0123456789abcdef01234567", "v1"]:
            out = self.action({"vendored": "tests/conformance"}, ref=ref)
            self.assert_ok(out)
            self.assertEqual(out.outputs["version"], SUITE_VERSION, ref)
            self.assertIn(f"CONFORMANCE_VERSION of the action at ref '{ref}'", out.log)

    def test_an_unreleased_action_asks_for_a_tag(self):
        action = self.tmp / "action"
        action.mkdir()
        shutil.copy(REPO / "action.yml", action)
        shutil.copytree(REPO / "action", action / "action")
        (action / "CONFORMANCE_VERSION").write_text("1.7.0-pre\n")
        out = self.action({"vendored": "tests/conformance"}, ref="main", action_dir=action)
        self.assertEqual((out.status, out.failed_step), (2, "Install bqsuite"), out.log)
        self.assertIn("use a release tag", " ".join(out.annotations()))

    def test_a_release_that_does_not_verify_is_said_on_the_page_with_what_did_not_run(self):
        # A sha256 input the asset does not have: the vendored check fails verification (an
        # error annotation from bqsuite, not only a log line), and the results check, which
        # needs the release, says it did not run.
        out = self.action({"vendored": "tests/conformance", "results": "results.json", "sha256": "0" * 64})
        self.assertEqual(out.status, 1, out.log)
        errors = out.annotations()
        self.assertTrue(any(e.startswith("::error title=bqsuite fetch --check tests/conformance::verification failed: checksum mismatch") for e in errors), errors)
        self.assertTrue(
            any("did not fetch and verify" in e and "the results files were not checked" in e for e in errors), errors
        )
        self.assertNotIn("+ bqsuite results check", out.log)

    def test_a_tampered_binary_is_not_installed(self):
        release = self.tmp / "tampered"
        shutil.copytree(Built.release, release)
        archive = release / f"bqsuite-{HOST_TARGET}.tar.gz"
        archive.write_bytes(archive.read_bytes() + b"\0")
        out = self.action({"vendored": "tests/conformance"}, env={"BQ_CONFORMANCE_BASE_URL": release.as_uri()})
        self.assertEqual((out.status, out.failed_step), (1, "Install bqsuite"), out.log)
        self.assertIn("not using it", " ".join(out.annotations()))
        self.assertEqual(out.path, [])

    def calls(self):
        """The stand-in gh's calls, each its list of arguments."""
        if not self.gh_calls.exists():
            return []
        return [line.rstrip("\t").split("\t") for line in self.gh_calls.read_text().splitlines()]

    def test_build_provenance_is_checked_and_the_verified_asset_pins_every_fetch(self):
        out = self.action({"vendored": "tests/conformance"})
        self.assert_ok(out)
        identity = [
            "--repo", "BabelQueue/conformance",
            "--signer-workflow", "BabelQueue/conformance/.github/workflows/release.yml",
            "--source-ref", f"refs/tags/v{SUITE_VERSION}",
            "--deny-self-hosted-runners",
        ]  # fmt: skip
        calls = self.calls()
        self.assertEqual(len(calls), 2, calls)
        for call, name in zip(calls, [f"bqsuite-{HOST_TARGET}.tar.gz", ASSET]):
            self.assertEqual(call[:2], ["attestation", "verify"], call)
            self.assertTrue(call[2].endswith("/" + name), call)
            self.assertEqual(call[3:], identity)
        self.assertIn("build provenance verified", out.log)
        self.assertIn(f"--sha256 {sha256(Built.release / ASSET)}", out.log, "the fetch is pinned to the verified asset")
        # gh refuses the binary, or the asset: nothing is unpacked or put on PATH, and gh's own
        # words are in the log.
        for refused in [f"bqsuite-{HOST_TARGET}", ASSET]:
            out = self.action({"vendored": "tests/conformance"}, env={"FAKE_GH_REFUSE": refused})
            self.assertEqual((out.status, out.failed_step), (1, "Install bqsuite"), out.log)
            self.assertIn("no valid build provenance", " ".join(out.annotations()))
            self.assertIn(refused, " ".join(out.annotations()))
            self.assertIn("fake gh: refused", out.log)
            self.assertEqual(out.path, [])

    def test_a_pinned_or_other_suite_version_is_left_to_its_pin_or_its_checksums(self):
        pinned = sha256(Built.release / ASSET)
        out = self.action({"vendored": "tests/conformance", "sha256": pinned})
        self.assert_ok(out)
        self.assertEqual(len(self.calls()), 1, "the binary only")
        self.assertIn("pinned by the input sha256", out.log)
        self.gh_calls.unlink()
        out = self.action({"vendored": "tests/conformance", "version": "0.9.0"})
        self.assertEqual(len(self.calls()), 1, "the binary only")
        self.assertIn("only the action's own release", " ".join(out.annotations("notice")))

    def test_provenance_that_cannot_be_checked_is_said_or_required(self):
        vendored = {"vendored": "tests/conformance"}
        no_gh = {"BQ_GH": str(self.tmp / "no-such-gh")}
        out = self.action(vendored, env=no_gh)
        self.assert_ok(out)
        self.assertIn("gh (the GitHub CLI) is not on PATH", " ".join(out.annotations("notice")))
        out = self.action({**vendored, "attestation": "require"}, env=no_gh)
        self.assertEqual((out.status, out.failed_step), (2, "Install bqsuite"), out.log)
        self.assertIn("cannot be checked", " ".join(out.annotations()))
        self.assertEqual(out.path, [])
        # Another GitHub server: auto leaves gh alone and says why; require asks it all the same.
        ghes = {"GITHUB_SERVER_URL": "https://ghe.example.com"}
        out = self.action(vendored, env=ghes)
        self.assert_ok(out)
        self.assertFalse(self.gh_calls.exists())
        self.assertIn("https://ghe.example.com", " ".join(out.annotations("notice")))
        self.assert_ok(self.action({**vendored, "attestation": "require"}, env=ghes))
        self.assertTrue(self.gh_calls.exists())
        # off: gh is never asked, so its no does not matter.
        self.gh_calls.unlink()
        self.assert_ok(self.action({**vendored, "attestation": "off"}, env={"FAKE_GH_REFUSE": "tar.gz"}))
        self.assertFalse(self.gh_calls.exists())
        out = self.action({**vendored, "attestation": "maybe"})
        self.assertEqual((out.status, out.failed_step), (2, "Install bqsuite"), out.log)
        self.assertIn("not one of auto, require, off", " ".join(out.annotations()))

    def test_a_mirror_with_a_directory_per_version_and_a_password(self):
        # `{version}` in the base names each release's directory, for the install step as for
        # bqsuite; the credentials a mirror's URL carries never reach the log.
        mirror = self.tmp / "mirror"
        shutil.copytree(Built.release, mirror / f"v{SUITE_VERSION}")
        base = mirror.as_uri() + "/v{version}"
        out = self.action({"vendored": "tests/conformance", "results": "results.json"}, env={"BQ_CONFORMANCE_BASE_URL": base})
        self.assert_ok(out)
        self.assertIn(f"from {mirror.as_uri()}/v{SUITE_VERSION}", out.log)
        secret = base.replace("file://", "file://user:s3cret@", 1)
        out = self.action({"vendored": "tests/conformance"}, env={"BQ_CONFORMANCE_BASE_URL": secret})
        self.assertNotIn("s3cret", out.log + " ".join(out.annotations()))

    def test_a_wrong_sha256_pin_fails_and_the_right_one_passes(self):
        out = self.action({"vendored": "tests/conformance", "sha256": "0" * 64})
        self.assertEqual(out.status, 1, out.log)
        self.assertIn("verification failed", out.log)
        pinned = sha256(Built.release / ASSET)
        self.assert_ok(self.action({"vendored": "tests/conformance", "results": "results.json", "sha256": pinned}))

    def test_nothing_to_check_is_an_error(self):
        out = self.action({})
        self.assertEqual(out.status, 2, out.log)
        self.assertIn("nothing to check", " ".join(out.annotations()))

    def test_an_older_suite_version_is_checked_with_the_actions_bqsuite(self):
        out = self.action({"vendored": "tests/conformance", "version": "v0.9.0"})
        self.assertEqual(out.status, 2, "no 0.9.0 asset in this release: could not run")
        self.assertIn(f"bqsuite {SUITE_VERSION} (the action's ref v{SUITE_VERSION})", out.log)
        self.assertIn("fetch --check --format github -- 0.9.0 tests/conformance", out.log)

    def test_the_harness_refuses_what_it_does_not_reproduce(self):
        action = self.tmp / "action"
        action.mkdir()
        spec = yaml.safe_load((REPO / "action.yml").read_text())
        spec["runs"]["steps"][0]["run"] += "\necho ${{ inputs.version }}\n"
        (action / "action.yml").write_text(yaml.safe_dump(spec))
        with self.assertRaises(action_harness.HarnessError):
            action_harness.load(action)
        with self.assertRaises(action_harness.HarnessError):
            self.action({"no-such-input": "x"})


class Workflows(unittest.TestCase):
    def load(self, rel):
        return yaml.safe_load((REPO / rel).read_text())

    def uses(self, doc):
        found = []
        for job in doc["jobs"].values():
            found += [s["uses"] for s in job.get("steps", []) if "uses" in s]
        return found

    def test_every_workflow_parses_and_pins_its_actions(self):
        for rel in ["action.yml", *(str(p.relative_to(REPO)) for p in (REPO / ".github" / "workflows").glob("*.yml"))]:
            doc = self.load(rel)
            self.assertIsInstance(doc, dict, rel)
            if "jobs" in doc:
                for use in self.uses(doc):
                    # A released major version; dtolnay/rust-toolchain's ref names the toolchain.
                    pinned = r"^[\w.-]+/[\w.-]+@(v\d+(\.\d+)*|release/v\d+)$|^dtolnay/rust-toolchain@stable$"
                    self.assertRegex(use, pinned, f"{rel}: {use}")

    def test_the_fuzz_workflow_runs_every_fuzz_target(self):
        wf = self.load(".github/workflows/fuzz.yml")
        targets = wf["jobs"]["fuzz"]["strategy"]["matrix"]["target"]
        manifest = tomllib.loads((REPO / "fuzz" / "Cargo.toml").read_text())
        self.assertEqual(sorted(targets), sorted(b["name"] for b in manifest["bin"]))
        for target in targets:
            self.assertTrue((REPO / "fuzz" / "fuzz_targets" / f"{target}.rs").is_file(), target)
        seeding = "\n".join(s.get("run", "") for s in wf["jobs"]["fuzz"]["steps"])
        for target in targets:
            self.assertIn(f"{target})", seeding, f"{target} has a seed corpus")

    def test_action_inputs_and_outputs(self):
        action = self.load("action.yml")
        self.assertEqual(
            set(action["inputs"]),
            {"version", "vendored", "results", "sdk", "adapter", "adapter-results", "redis-url", "adapter-timeout", "adapter-max-restarts", "known-failing", "attestation", "sha256"},
        )
        self.assertTrue(all(not spec.get("required") for spec in action["inputs"].values()))
        self.assertEqual(set(action["outputs"]), {"version", "bqsuite", "adapter-results"})
        action_harness.load(REPO)

    def test_release_workflow(self):
        wf = self.load(".github/workflows/release.yml")
        # PyYAML reads the key `on` as True (YAML 1.1).
        self.assertEqual(wf[True], {"push": {"tags": ["v*"]}})
        jobs = wf["jobs"]
        needs = {name: set([job["needs"]] if isinstance(job.get("needs"), str) else job.get("needs", [])) for name, job in jobs.items()}
        self.assertEqual(
            needs,
            {"gate": set(), "reproduce": {"gate"}, "build": {"gate"}, "publish": {"gate", "reproduce", "build"}, "pypi": {"publish"}},
        )
        self.assertNotEqual(jobs["reproduce"]["runs-on"], jobs["gate"]["runs-on"], "the second build runs elsewhere")
        targets = {entry["target"] for entry in jobs["build"]["strategy"]["matrix"]["include"]}
        self.assertEqual(
            targets,
            {"x86_64-unknown-linux-musl", "aarch64-unknown-linux-musl", "x86_64-apple-darwin", "aarch64-apple-darwin", WINDOWS_TARGET},
        )
        runs = "\n".join(s.get("run", "") for job in jobs.values() for s in job["steps"])
        for command in ["check-tag", "build", "verify", "collect", "notes"]:
            self.assertIn(f"scripts/release.sh {command}", runs)
        publish = "\n".join(s.get("run", "") for s in jobs["publish"]["steps"])
        self.assertIn("*-*) pre=(--prerelease)", publish, "a release candidate is published as a pre-release")
        self.assertIn('"${pre[@]}"', publish)
        self.assertEqual(jobs["publish"]["permissions"], {"contents": "write", "id-token": "write", "attestations": "write"})
        # Every release file attested before it is published, and checked after, with the
        # identity action/install.sh asks of the binary.
        names = [s.get("name", s.get("uses", "")) for s in jobs["publish"]["steps"]]
        attest = [s for s in jobs["publish"]["steps"] if s.get("uses", "").startswith("actions/attest-build-provenance@")]
        self.assertEqual(len(attest), 1)
        self.assertEqual(attest[0]["with"], {"subject-path": "release/*"})
        self.assertLess(names.index(attest[0]["name"]), names.index("Publish"))
        self.assertLess(names.index("Release files and SHA256SUMS over all of them"), names.index(attest[0]["name"]))
        self.assertIn('gh attestation verify "$file"', publish)
        self.assertIn('--signer-workflow "$GITHUB_REPOSITORY/.github/workflows/release.yml"', publish)
        self.assertEqual(jobs["pypi"]["permissions"], {"id-token": "write"})
        self.assertEqual(wf["permissions"], {"contents": "read"})

    def test_ci_workflow_runs_ci_run(self):
        runs = [s.get("run", "") for s in self.load(".github/workflows/ci.yml")["jobs"]["ci"]["steps"]]
        self.assertIn(".ci/run", runs)


if __name__ == "__main__":
    unittest.main(verbosity=2)
