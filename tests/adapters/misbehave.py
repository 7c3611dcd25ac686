#!/usr/bin/env python3
"""A deliberately misbehaving adapter, for bqsuite's robustness tests.

It relays the protocol between bqsuite (its stdin/stdout) and a real adapter it starts
(`bqsuite adapter`), and misbehaves once, at one call:

    misbehave.py BQSUITE MODE [AT] [--once FILE] [--record FILE] [--sequential]
                 [--hello JSON] [--skip SECTION:CASE]...

MODE is one of
    relay          misbehave never (with --record: write every line both ways to FILE)
    crash          exit with status 3 instead of answering call AT
    crash-held     as crash, leaving a helper behind that holds stdout open (no end of file)
    hang           stop answering at call AT (and sleep)
    no-newline     answer call AT without the line feed, flushed, then sleep
    garbage        answer call AT with a line that is not JSON
    wrong-seq      answer call AT with seq AT + 100
    seq-zero       answer call AT with seq 0
    duplicate      answer call AT twice
    swap           answer call AT + 1 before call AT (only possible when calls are written
                   ahead: the real adapter's hello declares `pipeline`)
    huge           answer call AT with a line of 9 MiB
    bad-result     answer call AT with a result of another operation
    inject         answer call AT with a reply kind holding a line break, a GitHub workflow
                   command, an ANSI escape and a bidi override, 100 KiB long
    bad-shape      answer call AT with a result of its operation whose value has the wrong type
                   (the text "yes" with a control character, where accepts answers a boolean)
    skip           answer call AT with a skip citing ADR-0032
    not-implemented  answer call AT with not_implemented, although the hello declares its
                   operation (an SDK that cannot make one variant of a call)
    long-error     answer call AT with an error whose message is 1 MiB long
    skip-redis     answer every call of a Redis operation (redis_*) with a skip citing ADR-0033
                   (the runner contract's: no live Redis), from call AT on
    linger         ignore the shutdown and the end of input (keep running)
    flood          answer the shutdown with short lines, without end, as fast as it can
    talk-after     answer the shutdown with one line, then exit as asked
    protocol       answer the hello with protocol 2
    lone-surrogate answer call AT with an error whose message ends in an escaped lone surrogate
                   ("\ud800")
    latin1         answer call AT with an error whose message is "café", the line in ISO-8859-1
                   (what a JVM whose platform encoding is not UTF-8 writes)
    crash-on-accepts  exit with status 3 instead of answering any `accepts` call, every time
    exit-after-accepts  answer every `accepts` call, then exit with status 3 (the next call is
                   charged for a crash it did not cause)
    crash-on-later-accepts  answer the run's first `accepts` call (the --once FILE marks it), crash
                   on every later one
    latin1-banner  answer call AT with a log line in ISO-8859-1 ("Démarrage…") instead
    floats         from call AT on, write every integer of the envelopes the SDK encodes (each
                   `json` member, each Kafka record's value) as a float: 1 as 1.0
    protocol-floats  write every integer of every reply, the hello's included, as a float
                   (what a library that holds numbers as doubles writes: `"seq": 3.0`)
    exit-at-once   exit with status 3 before reading anything
    not-json-hello answer the hello with a line that is not JSON
    bom-hello      answer the hello with a byte-order mark before it (a .NET UTF8Encoding(true))
    near-int       answer call AT with its reply's first `"attempts":0` written 0.0000000000000001
    bad-pointer    answer call AT (a decode) with a warning whose pointer is "timestamp", a key
                   named bare, not an RFC 6901 pointer
    deep           answer call AT (a decode) with an array nested 200 levels deep in the envelope's
                   data
AT counts the calls of this process from 1. With --once FILE the misbehaviour happens only
when FILE does not exist yet (the script creates it), so a restarted adapter behaves.
--hello JSON merges the members of the JSON object into the real adapter's hello (another
`sdk`, other `bindings`); --restarted-hello JSON does so only in a process started after the
--once FILE exists (a restarted adapter that comes back as another). --skip SECTION:CASE answers every call of that case (a CASE ending
in `/` is a prefix: every case of that block) with a skip citing ADR-0032, whatever the MODE.
--sequential starts the real adapter with --sequential (its hello then declares no
`pipeline`, so bqsuite writes one call at a time); without it the relay forwards the real
adapter's `pipeline: true` and reads the calls bqsuite writes ahead one after the other.
"""

import base64
import json
import os
import subprocess
import sys
import time


def floats(v):
    """Every integer of a JSON value as a float (booleans stay booleans)."""
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return float(v)
    if isinstance(v, list):
        return [floats(x) for x in v]
    if isinstance(v, dict):
        return {k: floats(x) for k, x in v.items()}
    return v


def float_envelopes(v):
    """The reply with every encoded envelope in it rewritten by `floats`."""
    if isinstance(v, list):
        return [float_envelopes(x) for x in v]
    if not isinstance(v, dict):
        return v
    out = {}
    for k, x in v.items():
        if k == "json" and isinstance(x, str):
            x = json.dumps(floats(json.loads(x)))
        elif k == "value" and "topic" in v and isinstance(x, str):
            x = base64.b64encode(json.dumps(floats(json.loads(base64.b64decode(x)))).encode()).decode()
        else:
            x = float_envelopes(x)
        out[k] = x
    return out


def main():
    args = sys.argv[1:]
    once = record = None
    if "--once" in args:
        i = args.index("--once")
        once = args[i + 1]
        del args[i : i + 2]
    if "--record" in args:
        i = args.index("--record")
        record = open(args[i + 1], "a", encoding="utf-8")
        del args[i : i + 2]
    hello_members = {}
    if "--hello" in args:
        i = args.index("--hello")
        hello_members = json.loads(args[i + 1])
        del args[i : i + 2]
    restarted_members = {}
    if "--restarted-hello" in args:
        i = args.index("--restarted-hello")
        restarted_members = json.loads(args[i + 1])
        del args[i : i + 2]
    skipped = []
    while "--skip" in args:
        i = args.index("--skip")
        skipped.append(args[i + 1])
        del args[i : i + 2]
    real_args = [args[0], "adapter"]
    if "--sequential" in args:
        args.remove("--sequential")
        real_args.append("--sequential")
    bqsuite, mode = args[0], args[1]
    at = int(args[2]) if len(args) > 2 else 0
    armed = True
    if once is not None:
        if os.path.exists(once):
            armed = False
        else:
            open(once, "w").close()
    if armed and mode == "exit-at-once":
        sys.exit(3)

    real = subprocess.Popen(real_args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = sys.stdout.buffer

    def write(line):
        if record:
            record.write("< " + line.decode("utf-8").rstrip("\n") + "\n")
            record.flush()
        out.write(line)
        out.flush()

    calls = 0
    held = None
    for line in sys.stdin.buffer:
        if record:
            record.write("> " + line.decode("utf-8").rstrip("\n") + "\n")
            record.flush()
        msg = json.loads(line)
        real.stdin.write(line)
        real.stdin.flush()
        if msg.get("cmd") == "shutdown":
            if mode == "linger":
                time.sleep(3600)
            if mode == "talk-after":
                out.write(b"goodbye\n")
                out.flush()
            if mode == "flood":
                chunk = b"x\n" * (1 << 15)
                while True:
                    out.write(chunk)
                    out.flush()
            break
        reply = real.stdout.readline()
        if msg.get("cmd") == "hello":
            members = dict(hello_members)
            if not armed:
                members.update(restarted_members)
            if members:
                hello = json.loads(reply)
                hello.update(members)
                reply = (json.dumps(hello) + "\n").encode()
            if armed and mode == "protocol":
                hello = json.loads(reply)
                hello["protocol"] = 2
                reply = (json.dumps(hello) + "\n").encode()
            elif armed and mode in ("unknown-binding", "binding-twice"):
                hello = json.loads(reply)
                hello["bindings"] = ["sqs", "nats"] if mode == "unknown-binding" else ["sqs", "kafka", "sqs"]
                reply = (json.dumps(hello) + "\n").encode()
            elif armed and mode == "protocol-floats":
                reply = (json.dumps(floats(json.loads(reply))) + "\n").encode()
            elif armed and mode == "bom-hello":
                reply = b"\xef\xbb\xbf" + reply
            elif armed and mode == "not-json-hello":
                reply = b"Starting babelqueue adapter...\n"
            write(reply)
            continue
        calls += 1
        if held is not None:
            write(reply)
            write(held)
            held = None
            continue
        case = msg["section"] + ":" + msg["case"]
        if any(case == c or (c.endswith("/") and case.startswith(c)) for c in skipped):
            seq = json.loads(reply)["seq"]
            write((json.dumps({"reply": "skip", "seq": seq, "reason": "ADR-0032: cannot carry it"}) + "\n").encode())
            continue
        if armed and mode == "skip-redis" and calls >= at and msg["request"]["op"].startswith("redis_"):
            seq = json.loads(reply)["seq"]
            write((json.dumps({"reply": "skip", "seq": seq, "reason": "ADR-0033: no Redis here"}) + "\n").encode())
            continue
        if mode == "crash-on-accepts" and msg["request"]["op"] == "accepts":
            sys.exit(3)
        if mode == "crash-on-later-accepts" and msg["request"]["op"] == "accepts":
            if os.path.exists(once + ".answered"):
                sys.exit(3)
            open(once + ".answered", "w").close()
        if mode == "exit-after-accepts" and msg["request"]["op"] == "accepts":
            write(reply)
            sys.exit(3)
        if armed and mode == "protocol-floats":
            write((json.dumps(floats(json.loads(reply))) + "\n").encode())
            continue
        if armed and mode == "floats" and calls >= at:
            write((json.dumps(float_envelopes(json.loads(reply))) + "\n").encode())
            continue
        if not armed or calls != at or mode in ("relay", "skip-redis"):
            write(reply)
            continue
        if mode == "swap":
            held = reply
            continue
        if mode == "crash":
            sys.exit(3)
        elif mode == "crash-held":
            subprocess.Popen(["sleep", "600"], stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            sys.exit(3)
        elif mode == "hang":
            time.sleep(3600)
        elif mode == "no-newline":
            write(reply.rstrip(b"\n"))
            time.sleep(3600)
        elif mode == "garbage":
            write(b"this is not json\n")
        elif mode == "wrong-seq":
            r = json.loads(reply)
            r["seq"] += 100
            write((json.dumps(r) + "\n").encode())
        elif mode == "seq-zero":
            r = json.loads(reply)
            r["seq"] = 0
            write((json.dumps(r) + "\n").encode())
        elif mode == "duplicate":
            write(reply)
            write(reply)
        elif mode == "huge":
            write(b"x" * (9 << 20) + b"\n")
        elif mode == "long-error":
            seq = json.loads(reply)["seq"]
            write((json.dumps({"reply": "error", "seq": seq, "message": "boom " + "x" * (1 << 20)}) + "\n").encode())
        elif mode == "skip":
            seq = json.loads(reply)["seq"]
            write((json.dumps({"reply": "skip", "seq": seq, "reason": "ADR-0032: cannot carry it"}) + "\n").encode())
        elif mode == "not-implemented":
            seq = json.loads(reply)["seq"]
            write((json.dumps({"reply": "not_implemented", "seq": seq}) + "\n").encode())
        elif mode == "wrong-op":
            r = json.loads(reply)
            r["response"]["op"] = "decode"
            write((json.dumps(r) + "\n").encode())
        elif mode == "string-seq":
            r = json.loads(reply)
            r["seq"] = str(r["seq"])
            write((json.dumps(r) + "\n").encode())
        elif mode == "inject":
            seq = json.loads(reply)["seq"]
            kind = "x\n::error title=Injected::forged\n::endgroup::\n\x1b[2J\u202e" + "y" * (100 << 10)
            write((json.dumps({"reply": kind, "seq": seq}) + "\n").encode())
        elif mode == "bad-shape":
            r = json.loads(reply)
            r["response"]["result"] = "yes\x07"
            write((json.dumps(r) + "\n").encode())
        elif mode == "lone-surrogate":
            seq = json.loads(reply)["seq"]
            write((json.dumps({"reply": "error", "seq": seq, "message": "boom \ud800"}) + "\n").encode())
        elif mode == "latin1":
            seq = json.loads(reply)["seq"]
            line = json.dumps({"reply": "error", "seq": seq, "message": "caf\u00e9"}, ensure_ascii=False)
            write((line + "\n").encode("latin-1"))
        elif mode == "near-int":
            write(reply.replace(b'"attempts":0', b'"attempts":0.0000000000000001', 1))
        elif mode == "latin1-banner":
            write("D\u00e9marrage du service\n".encode("latin-1"))
        elif mode == "bad-pointer":
            r = json.loads(reply)
            r["response"]["result"]["warnings"] = [{"pointer": "timestamp", "message": "ignored"}]
            write((json.dumps(r) + "\n").encode())
        elif mode == "deep":
            line = json.dumps(json.loads(reply)).replace('"data": {', '"data": {"deep": %s1%s, ' % ("[" * 200, "]" * 200), 1)
            write((line + "\n").encode())
        elif mode == "bad-result":
            r = json.loads(reply)
            r["response"] = {"op": "kafka_default_tiers", "result": [1]}
            write((json.dumps(r) + "\n").encode())
        else:
            sys.exit("unknown mode " + mode)
    real.stdin.close()
    sys.exit(real.wait())


if __name__ == "__main__":
    main()
