#!/usr/bin/env python3
"""A BabelQueue adapter in Python, standard library only.

It speaks the bqsuite adapter protocol (docs/adapter-protocol.md, version 1) on stdin and
stdout, over a small envelope codec of its own: decode with last-wins repeated keys and
case-sensitive keys, accepts, encode after attempts + 1, make (with meta entries and
carried-over extras), and the dead-letter move. It declares no bindings, so bqsuite runs only
the core sections through it, and only the five envelope operations are implemented: every
other core section fails with "not implemented".

    bqsuite run --sdk "python3 examples/adapter-python/adapter.py" --section roundtrip ...

The codec follows the wire contract (message-envelope, ADR-0031, ADR-0032 §5 and §6) as the
suite's manifest describes it; it is an example, not a published SDK.
"""

import base64
import json
import sys
import time
import uuid

PROTOCOL = 1
SDK = "babelqueue-python-example"
VERSION = "0.1.0"
LANG = "python"
OPERATIONS = ["decode", "accepts", "reemit", "dead_letter_move", "make"]

# The contract's whitespace: exactly these six ASCII characters (ADR-0032 §5).
WHITESPACE = " \t\n\x0b\x0c\r"
CORE_META = ["id", "queue", "lang", "schema_version", "created_at"]
CANONICAL_TOP = ["job", "trace_id", "data", "meta", "attempts", "dead_letter"]
FORBIDDEN_TOP = ["timestamp", "urn"]
FORBIDDEN_META = ["max_retries", "attempts", "source", "ts"]


class Rejected(Exception):
    """The body is not an acceptable envelope."""


class Refused(Exception):
    """Encode (or make) refuses the message."""


def is_blank(s):
    return s.strip(WHITESPACE) == ""


def is_integer(v):
    # JSON Schema integers: 1.0 is the integer 1, true is not a number.
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    return isinstance(v, float) and v.is_integer()


def _no_constants(name):
    raise ValueError("not JSON: " + name)


def _lone_surrogate(value):
    """The first string (key or value) holding a lone surrogate, which json.loads lets through
    from an escape such as \\ud800 but strict JSON (RFC 8259 text, valid Unicode) refuses."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if any("\ud800" <= c <= "\udfff" for c in v):
                return v
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return None


def parse_object(body):
    """One strict JSON object; a repeated key is last-wins, never merged; keys match exactly."""
    try:
        text = body.decode("utf-8")
        value = json.loads(text, parse_constant=_no_constants)
    except (UnicodeDecodeError, ValueError) as e:
        raise Rejected("the body is not JSON: %s" % e)
    if _lone_surrogate(value) is not None:
        raise Rejected("the body is not JSON: a string holds a lone surrogate escape")
    if not isinstance(value, dict):
        raise Rejected("the body is not a JSON object")
    return value


class Envelope:
    """A message: the canonical fields plus the unknown keys, in order, as [key, value] pairs."""

    def __init__(self, job, trace_id, data, meta, attempts):
        self.job = job
        self.trace_id = trace_id
        self.data = data
        self.meta = meta  # the canonical meta keys present: name -> value
        self.meta_extras = []  # [key, value] pairs, written after the canonical meta keys
        self.attempts = attempts
        self.dead_letter = None
        self.top_extras = []  # [key, value] pairs, written after the canonical keys


def decode(body):
    """(envelope, warnings) or Rejected. A warning is {"pointer", "message"}."""
    obj = parse_object(body)
    warnings = []

    def warn(pointer, why):
        warnings.append({"pointer": pointer, "message": "%s: %s" % (pointer, why)})

    job = obj.get("job")
    urn = obj.get("urn")
    if "job" in obj and not isinstance(job, str):
        warn("/job", "a non-string job is ignored")
        job = None
    if isinstance(job, str) and not is_blank(job):
        identity = job
        if "urn" in obj:
            warn("/urn", "urn beside a usable job is a non-canonical key and is dropped")
    elif isinstance(urn, str) and not is_blank(urn):
        identity = urn
    else:
        raise Rejected("no usable identity (job, or urn as its alias)")

    trace_id = obj.get("trace_id")
    if not isinstance(trace_id, str) or is_blank(trace_id):
        raise Rejected("trace_id is not a non-blank string")
    data = obj.get("data")
    if not isinstance(data, dict):
        raise Rejected("data is not a JSON object")
    meta = obj.get("meta")
    if not isinstance(meta, dict):
        raise Rejected("meta is not a JSON object")
    version = meta.get("schema_version")
    if not is_integer(version) or version != 1:
        raise Rejected("meta.schema_version %r is not 1" % (version,))
    attempts = obj.get("attempts", 0)
    if not is_integer(attempts) or attempts < 0:
        raise Rejected("attempts is not a non-negative integer")

    env = Envelope(identity, trace_id, data, {}, int(attempts))
    for key, value in meta.items():
        if key in CORE_META:
            env.meta[key] = value
        elif key in FORBIDDEN_META:
            warn("/meta/" + key, "a non-canonical meta key is dropped")
        else:
            env.meta_extras.append([key, value])
    env.meta["schema_version"] = 1
    if isinstance(obj.get("dead_letter"), dict):
        env.dead_letter = obj["dead_letter"]
    for key, value in obj.items():
        if key in CANONICAL_TOP or key == "urn":
            continue
        if key in FORBIDDEN_TOP:
            warn("/" + key, "a non-canonical key is dropped")
            continue
        env.top_extras.append([key, value])
    return env, warnings


def accepts(body):
    try:
        decode(body)
        return True
    except Rejected:
        return False


def _refuse_repeats(pairs, where):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise Refused("refusing to encode %s key %r twice" % (where, key))
        seen.add(key)


def encode(env):
    """Compact JSON text of the message, or Refused: a forbidden, colliding or repeated key."""
    for key, _ in env.top_extras:
        if key in FORBIDDEN_TOP:
            raise Refused("refusing to encode forbidden key '/%s'" % key)
        if key in CANONICAL_TOP:
            raise Refused("refusing to encode '/%s': it collides with a canonical key" % key)
    for key, _ in env.meta_extras:
        if key in FORBIDDEN_META:
            raise Refused("refusing to encode forbidden key '/meta/%s'" % key)
        if key in CORE_META:
            raise Refused("refusing to encode '/meta/%s': it collides with a core meta key" % key)
    _refuse_repeats(env.top_extras, "top-level")
    _refuse_repeats(env.meta_extras, "meta")
    meta = {k: env.meta[k] for k in CORE_META if k in env.meta}
    meta.update((k, v) for k, v in env.meta_extras)
    out = {"job": env.job, "trace_id": env.trace_id, "data": env.data, "meta": meta, "attempts": env.attempts}
    if env.dead_letter is not None:
        out["dead_letter"] = env.dead_letter
    out.update((k, v) for k, v in env.top_extras)
    try:
        return json.dumps(out, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError as e:
        raise Refused("cannot encode: %s" % e)


def now_ms():
    return int(time.time() * 1000)


def make(urn, data, queue, trace_id=None, meta=()):
    """The producer API. meta: [key, value] entries of the meta write API, in order."""
    urn = urn.strip(WHITESPACE)
    if urn == "":
        raise Refused("make needs a non-empty URN")
    if trace_id is None or is_blank(trace_id):
        trace_id = str(uuid.uuid4())
    else:
        trace_id = trace_id.strip(WHITESPACE)
    core = {"id": str(uuid.uuid4()), "queue": queue, "lang": LANG, "schema_version": 1, "created_at": now_ms()}
    env = Envelope(urn, trace_id, dict(data or {}), core, 0)
    env.meta_extras = [list(entry) for entry in meta]
    return env


def dead_letter(env, reason, original_queue, error):
    """The SDK's dead-letter move: the same message (extras kept) with a dead_letter block."""
    env.dead_letter = {
        "reason": reason,
        "error": error,
        "exception": None,
        "failed_at": now_ms(),
        "original_queue": original_queue,
        "attempts": env.attempts,
        "lang": LANG,
    }
    return env


# ---- the protocol --------------------------------------------------------------------------


def body_of(request):
    return base64.b64decode(request["body"], validate=True)


def op_decode(r):
    try:
        env, warnings = decode(body_of(r))
    except Rejected as e:
        return {"kind": "rejected", "message": str(e)}
    meta = dict(env.meta)
    meta.update((k, v) for k, v in env.meta_extras)
    view = {"urn": env.job, "trace_id": env.trace_id, "data": env.data, "meta": meta, "attempts": env.attempts}
    if env.dead_letter is not None:
        view["dead_letter"] = env.dead_letter
    return {"kind": "decoded", "envelope": view, "warnings": warnings}


def op_accepts(r):
    return accepts(body_of(r))


def reemit(r, move=None):
    try:
        env, warnings = decode(body_of(r))
    except Rejected as e:
        return {"kind": "rejected", "message": str(e)}
    if r["attempts_plus_one"]:
        env.attempts += 1
    if move is not None:
        dead_letter(env, move["reason"], move["original_queue"], move.get("error"))
    try:
        return {"kind": "encoded", "json": encode(env), "warnings": warnings}
    except Refused as e:
        return {"kind": "refused", "message": str(e)}


def op_make(r):
    try:
        env = make(r["urn"], r["data"], r["queue"], r.get("trace_id"), r.get("meta") or [])
    except Refused as e:
        return {"kind": "refused", "stage": "make", "message": str(e)}
    try:
        carried_top, carried_meta = r.get("carried_top") or [], r.get("carried_meta") or []
        if carried_top or carried_meta:
            # Carried-over extras: the message goes out and comes back in, then the extras are
            # placed into its preserved unknown-key containers (this codec's test access).
            env, _ = decode(encode(env).encode("utf-8"))
            env.top_extras.extend(list(e) for e in carried_top)
            env.meta_extras.extend(list(e) for e in carried_meta)
        return {"kind": "made", "json": encode(env)}
    except Refused as e:
        return {"kind": "refused", "stage": "encode", "message": str(e)}


HANDLERS = {
    "decode": op_decode,
    "accepts": op_accepts,
    "reemit": reemit,
    "dead_letter_move": lambda r: reemit(r, move=r),
    "make": op_make,
}


def answer(msg):
    cmd = msg.get("cmd")
    if cmd == "hello":
        return {
            "reply": "hello",
            "protocol": PROTOCOL,
            "sdk": SDK,
            "version": VERSION,
            "language": LANG,
            "bindings": [],
            "operations": OPERATIONS,
            # main() reads one call at a time from a buffered stdin and answers each in turn,
            # so bqsuite may write calls ahead of the answers.
            "pipeline": True,
        }
    seq = msg["seq"]
    request = msg["request"]
    handler = HANDLERS.get(request.get("op"))
    if handler is None:
        return {"reply": "not_implemented", "seq": seq}
    try:
        result = handler(request)
    except Exception as e:  # an unexpected failure of the SDK: the case fails with it
        return {"reply": "error", "seq": seq, "message": "%s: %s" % (type(e).__name__, e)}
    return {"reply": "result", "seq": seq, "response": {"op": request["op"], "result": result}}


def main():
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        if msg.get("cmd") == "shutdown":
            break
        reply = answer(msg)
        out.write(json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n")
        out.flush()
        if msg.get("cmd") == "call":
            print("%s %s: %s" % (msg.get("section"), msg.get("case"), msg["request"].get("op")), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
