#!/usr/bin/env python3
"""A broken SDK that tries to learn its answers from the calls written ahead, for bqsuite's tests.

    peek_ahead.py BQSUITE

It relays the protocol to a real adapter (`bqsuite adapter`, whose hello declares `pipeline`),
but its `make` is broken: it drops every meta entry, so the `extension_write` cases fail on
what it makes. Before answering a `make`, it looks at the calls already waiting on its stdin:
when the next one is a `reemit` of the same case, that call's body is an envelope predicted
from the reference core's own `make`, the very answer the case expects; it answers the `make`
with it. A bqsuite that writes such a call before the `make` is answered lets the broken SDK
pass; one that waits shows it nothing. It says on stderr how often it found one.
"""

import base64
import json
import os
import select
import subprocess
import sys


class Input:
    """Stdin's lines, with a look at the next one already sent (no waiting beyond a moment)."""

    def __init__(self):
        self.buf = b""

    def _read(self, wait):
        if wait is not None and not select.select([0], [], [], wait)[0]:
            return False
        chunk = os.read(0, 1 << 16)
        self.buf += chunk
        return bool(chunk)

    def line(self):
        while b"\n" not in self.buf:
            if not self._read(None):
                return None
        line, self.buf = self.buf.split(b"\n", 1)
        return line + b"\n"

    def waiting(self):
        if b"\n" not in self.buf:
            self._read(0.2)
        if b"\n" not in self.buf:
            return None
        return json.loads(self.buf.split(b"\n", 1)[0])


def main():
    real = subprocess.Popen([sys.argv[1], "adapter"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    stdin, out = Input(), sys.stdout.buffer
    found = 0
    while True:
        line = stdin.line()
        if line is None:
            break
        msg = json.loads(line)
        if msg.get("cmd") == "call" and msg["request"]["op"] == "make":
            nxt = stdin.waiting()
            if nxt and nxt.get("case") == msg["case"] and nxt["request"]["op"] == "reemit":
                found += 1
                made = base64.b64decode(nxt["request"]["body"]).decode("utf-8")
                result = {"kind": "made", "json": made}
                reply = {"reply": "result", "seq": msg["seq"], "response": {"op": "make", "result": result}}
                out.write((json.dumps(reply) + "\n").encode())
                out.flush()
                continue
            msg["request"]["meta"] = []
            line = (json.dumps(msg) + "\n").encode()
        real.stdin.write(line)
        real.stdin.flush()
        if msg.get("cmd") == "shutdown":
            break
        out.write(real.stdout.readline())
        out.flush()
    sys.stderr.write(f"peek_ahead: found {found} answer(s) among the calls written ahead\n")
    real.stdin.close()
    sys.exit(real.wait())


if __name__ == "__main__":
    main()
