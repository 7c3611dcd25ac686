"""Run the `run:` steps of this repository's composite action (action.yml) the way a GitHub runner
does, on this machine, so that the action is tested as written (.ci/dist_test.py) and can be tried
on a local SDK checkout:

    python .ci/action_harness.py --workspace ../php-sdk --input vendored=tests/conformance \
        --ref v1.6.0 --env BQ_CONFORMANCE_BASE_URL=file:///tmp/release

What it reproduces, per step, in order: the step's `env:` with its `${{ }}` expressions evaluated,
the runner's variables (GITHUB_ACTION_PATH, GITHUB_WORKSPACE, GITHUB_OUTPUT, GITHUB_PATH,
GITHUB_STEP_SUMMARY, GITHUB_ACTIONS, GITHUB_SERVER_URL, RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP),
the `run:` text written to a file and run as `bash --noprofile --norc -eo pipefail FILE` in the workspace (GitHub's
`shell: bash`), step outputs read back from GITHUB_OUTPUT, directories added to GITHUB_PATH put
in front of PATH for the following steps, and a failing step ending the action with its status.

What it refuses, so that the action cannot grow a construct this harness does not reproduce:
any step key but name, id, shell, env and run; a shell other than bash; `uses:` steps; any
expression other than inputs.<name>, github.action_ref, github.action_path,
github.action_repository (BabelQueue/conformance here), github.token (a placeholder) and
steps.<id>.outputs.<name>; an expression inside `run:` text (GitHub leaves github.action_ref
empty there, and inputs pasted into a script are an injection risk: values go through `env:`);
an input the action does not declare.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
STEP_KEYS = {"name", "id", "shell", "env", "run"}


class HarnessError(Exception):
    """action.yml uses something this harness does not reproduce."""


@dataclasses.dataclass
class Outcome:
    status: int  # 0 when every step succeeded, else the failing step's exit status
    failed_step: str | None
    log: str  # stdout and stderr of every step that ran, in order
    outputs: dict[str, str]  # the action's outputs (empty strings for unset ones)
    path: list[str]  # directories the steps added to GITHUB_PATH
    summary: str  # what the steps wrote to GITHUB_STEP_SUMMARY

    def commands(self) -> list[str]:
        """The lines the runner would read as workflow commands, as GitHub's runner reads them: a
        line ends at LF or CR; one that starts with `::` once its leading white space is trimmed,
        or that holds the older form `##[command]` anywhere (returned from there), except
        between `::stop-commands::TOKEN` and `::TOKEN::`."""
        found, stopped = [], None
        for line in self.log.splitlines():
            line = line.lstrip()
            if stopped is not None:
                if line.rstrip() == f"::{stopped}::":
                    stopped = None
                continue
            if line.startswith("::stop-commands::"):
                stopped = line.removeprefix("::stop-commands::")
                continue
            if line.startswith("::"):
                found.append(line)
            elif "##[" in line:
                found.append(line[line.index("##["):])
        return found

    def annotations(self, level: str = "error") -> list[str]:
        return [line for line in self.commands() if line.startswith(f"::{level} ") or line.startswith(f"::{level}::")]


def load(action_dir: Path) -> dict:
    action = yaml.safe_load((action_dir / "action.yml").read_text(encoding="utf-8"))
    runs = action.get("runs") or {}
    if runs.get("using") != "composite":
        raise HarnessError("action.yml: runs.using must be composite")
    for i, step in enumerate(runs.get("steps") or []):
        where = f"action.yml: runs.steps[{i}] ({step.get('name', '?')})"
        unknown = set(step) - STEP_KEYS
        if unknown:
            raise HarnessError(f"{where}: keys {sorted(unknown)} are not reproduced by this harness")
        if step.get("shell") != "bash" or "run" not in step:
            raise HarnessError(f"{where}: only `shell: bash` steps with `run:` are reproduced")
        if EXPRESSION.search(step["run"]):
            raise HarnessError(f"{where}: an expression in run: text; pass values through env:")
    return action


def evaluate(text: str, inputs: dict[str, str], github: dict[str, str], steps: dict[str, dict[str, str]]) -> str:
    def one(m: re.Match) -> str:
        expr = m.group(1)
        parts = expr.split(".")
        if len(parts) == 2 and parts[0] == "inputs":
            if parts[1] not in inputs:
                raise HarnessError(f"${{{{ {expr} }}}}: no such input")
            return inputs[parts[1]]
        if len(parts) == 2 and parts[0] == "github" and parts[1] in github:
            return github[parts[1]]
        if len(parts) == 4 and parts[0] == "steps" and parts[2] == "outputs":
            if parts[1] not in steps:
                raise HarnessError(f"${{{{ {expr} }}}}: no earlier step with id {parts[1]}")
            return steps[parts[1]].get(parts[3], "")
        raise HarnessError(f"${{{{ {expr} }}}}: not an expression this harness evaluates")

    return EXPRESSION.sub(one, str(text))


def read_outputs(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT: `name=value` lines and `name<<DELIMITER` blocks."""
    out: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            out[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        name, sep, value = line.partition("=")
        if not sep:
            raise HarnessError(f"GITHUB_OUTPUT: malformed line {line!r}")
        out[name] = value
        i += 1
    return out


def runner_arch() -> str:
    machine = platform.machine().lower()
    return {"x86_64": "X64", "amd64": "X64", "aarch64": "ARM64", "arm64": "ARM64"}.get(machine, machine)


def run(
    action_dir: Path,
    workspace: Path,
    inputs: dict[str, str] | None = None,
    ref: str = "",
    env: dict[str, str] | None = None,
    runner_temp: Path | None = None,
) -> Outcome:
    """Run the action's steps with `inputs` (undeclared ones refused, missing ones defaulted)."""
    action_dir = action_dir.resolve()
    workspace = workspace.resolve()
    action = load(action_dir)
    declared = action.get("inputs") or {}
    given = dict(inputs or {})
    for name in given:
        if name not in declared:
            raise HarnessError(f"input {name!r} is not declared in action.yml")
    values = {name: str(given.get(name, spec.get("default", ""))) for name, spec in declared.items()}
    github = {
        "action_ref": ref,
        "action_path": str(action_dir),
        "action_repository": "BabelQueue/conformance",
        "token": "harness-token",
    }

    with tempfile.TemporaryDirectory(prefix="action-harness-") as scratch:
        return _steps(action, values, github, action_dir, workspace, Path(scratch), runner_temp, env)


def _steps(action, values, github, action_dir, workspace, scratch, runner_temp, env) -> Outcome:
    temp = runner_temp or scratch / "runner-temp"
    temp.mkdir(parents=True, exist_ok=True)
    path_file = scratch / "github_path"
    summary_file = scratch / "step_summary"
    path_file.touch()
    summary_file.touch()
    base_env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", str(scratch)),
        "LANG": "C.UTF-8",
        "GITHUB_ACTIONS": "true",
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_ACTION_PATH": str(action_dir),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_PATH": str(path_file),
        "GITHUB_STEP_SUMMARY": str(summary_file),
        "RUNNER_OS": {"Linux": "Linux", "Darwin": "macOS", "Windows": "Windows"}.get(platform.system(), platform.system()),
        "RUNNER_ARCH": runner_arch(),
        "RUNNER_TEMP": str(temp),
        **(env or {}),
    }

    log: list[str] = []
    steps: dict[str, dict[str, str]] = {}
    for i, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", f"step {i}")
        output_file = scratch / f"output-{i}"
        output_file.touch()
        script = scratch / f"step-{i}.sh"
        script.write_text(step["run"], encoding="utf-8")
        added = [line for line in path_file.read_text(encoding="utf-8").splitlines() if line]
        step_env = dict(base_env)
        step_env["PATH"] = os.pathsep.join([*reversed(added), base_env["PATH"]])
        step_env["GITHUB_OUTPUT"] = str(output_file)
        for key, value in (step.get("env") or {}).items():
            step_env[key] = evaluate(value, values, github, steps)
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env=step_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        log.append(f"##[step] {name}\n{proc.stdout}")
        if "id" in step:
            steps[step["id"]] = read_outputs(output_file)
        if proc.returncode != 0:
            return Outcome(proc.returncode, name, _masked(log), {}, _lines(path_file), summary_file.read_text())
    outputs = {
        name: evaluate(spec.get("value", ""), values, github, steps) for name, spec in (action.get("outputs") or {}).items()
    }
    return Outcome(0, None, _masked(log), outputs, _lines(path_file), summary_file.read_text())


def _masked(log: list[str]) -> str:
    """The log as GitHub shows it: an `::add-mask::VALUE` line is consumed, and VALUE is `***`
    wherever it appears after it."""
    masks: list[str] = []
    out = []
    for line in "".join(log).splitlines(keepends=True):
        if line.startswith("::add-mask::"):
            value = line.removeprefix("::add-mask::").rstrip("\r\n")
            if value:
                masks.append(value)
            continue
        for value in sorted(masks, key=len, reverse=True):
            line = line.replace(value, "***")
        out.append(line)
    return "".join(out)


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--action", type=Path, default=Path(__file__).resolve().parent.parent, help="the action's directory")
    p.add_argument("--workspace", type=Path, default=Path.cwd(), help="the SDK checkout (default: here)")
    p.add_argument("--input", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--ref", default="", help="the ref the action is used at (github.action_ref), e.g. v1.6.0")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="extra environment")
    a = p.parse_args()
    pairs = lambda items: dict(item.split("=", 1) for item in items)  # noqa: E731
    outcome = run(a.action, a.workspace, pairs(a.input), a.ref, pairs(a.env))
    sys.stdout.write(outcome.log)
    print(f"action: {'success' if outcome.status == 0 else f'failed in {outcome.failed_step!r} (exit {outcome.status})'}")
    return outcome.status


if __name__ == "__main__":
    sys.exit(main())
