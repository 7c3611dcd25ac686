#!/usr/bin/env python3
"""Baseline: the checks the seed repository's CI ran on the suite, in Python.

This is what `bqsuite validate` replaces, doing the same work the old way, so the two can be
timed side by side (bench/compare.sh). It is a benchmark baseline, not a supported tool. Each
file is read and parsed once (as bqsuite does), so the comparison is not flattered by re-parsing.

Checks: every .json under schema/ and fixtures/ and manifest.json parses; schema_version is 1;
CONFORMANCE_VERSION is SemVer and equals conformance_version; the sections map and the blocks
agree; every top-level case's file exists, valid cases carry expect and invalid ones reason;
the Draft-07 cross-checks with the jsonschema package: roundtrip / forbidden_keys fixtures pass
the producer schema (except producer_schema_valid: false), data-array-rejected fails it, every
expect_preserved / forbidden_key pointer exists in its fixture, and the payload_schema and
payload_schema_unicode verdicts match.
"""
import json
import os
import re
import sys

import jsonschema

SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
# skip_policy (issue 14) is metadata too, not a section.
META = {"schema_version", "conformance_version", "description", "sections", "exceptions", "skip_policy"}


PARSED = {}


def load(root, rel):
    """Parse a suite file once: later checks reuse it, as bqsuite's in-memory suite does."""
    path = os.path.normpath(os.path.join(root, rel))
    if path not in PARSED:
        with open(path, encoding="utf-8") as f:
            PARSED[path] = json.load(f)
    return PARSED[path]


def pointer(doc, ptr):
    for tok in ptr.split("/")[1:]:
        tok = tok.replace("~1", "/").replace("~0", "~")
        if isinstance(doc, list):
            doc = doc[int(tok)]
        else:
            doc = doc[tok]
    return doc


def main(root):
    errors = []
    for top in ("schema", "fixtures"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if name.endswith(".json"):
                    try:
                        load(dirpath, name)
                    except ValueError as e:
                        errors.append(f"{name}: {e}")
    m = load(root, "manifest.json")
    if m.get("schema_version") != 1:
        errors.append("schema_version is not 1")
    with open(os.path.join(root, "CONFORMANCE_VERSION")) as f:
        version = f.read().strip()
    if not SEMVER.match(version) or version != m.get("conformance_version"):
        errors.append("CONFORMANCE_VERSION")
    blocks = [k for k in m if k not in META]
    for b in blocks:
        if b not in m["sections"]:
            errors.append(f"{b}: no scope")
    for b in m["sections"]:
        if b not in m:
            errors.append(f"{b}: no block")
    for c in m["cases"]:
        if not os.path.exists(os.path.join(root, c["file"])):
            errors.append(f"{c['name']}: missing file")
        if c["valid"] and "expect" not in c:
            errors.append(f"{c['name']}: no expect")
        if not c["valid"] and "reason" not in c:
            errors.append(f"{c['name']}: no reason")
    envelope = jsonschema.Draft7Validator(load(root, "schema/message-envelope.schema.json"))
    for section in ("roundtrip", "forbidden_keys"):
        for c in m.get(section, {}).get("cases", []):
            fixture = load(root, c["file"])
            ok = envelope.is_valid(fixture)
            if ok != c.get("producer_schema_valid", True):
                errors.append(f"{c['name']}: producer schema verdict")
            for p in list(c.get("expect_preserved", {})) + ([c["forbidden_key"]] if "forbidden_key" in c else []):
                try:
                    pointer(fixture, p)
                except (KeyError, IndexError, ValueError):
                    errors.append(f"{c['name']}: pointer {p} missing")
    for c in m.get("data_shape", {}).get("cases", []):
        if c.get("mode") == "decode" and envelope.is_valid(load(root, c["file"])):
            errors.append(f"{c['name']}: passes the producer schema")
    for section in ("payload_schema", "payload_schema_unicode"):
        block = m.get(section)
        if block:
            v = jsonschema.Draft7Validator(block["schema"])
            for c in block["cases"]:
                if v.is_valid(c["data"]) != c["valid"]:
                    errors.append(f"{section}/{c['name']}: verdict")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
