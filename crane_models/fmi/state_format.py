"""Saved FMU states as bytes without pickle: a versioned, self-describing format that can only make data.

Why not pickle: ``pickle.loads`` on bytes a host hands over (``fmi2DeSerializeFMUstate``) runs whatever the
bytes say -- a crafted state file would execute code in the host. Here decoding builds nothing but
``None``, booleans, numbers, strings, lists, tuples, dicts with string keys, numeric numpy arrays and the
few classes of :data:`CLASSES` (allow-listed by name, rebuilt from their plain data). The checksum below is
integrity, not authenticity (anyone can recompute it): what the bytes decode to is checked against the model
before it is used -- ``saved_states.state_problem`` (identity, variables, parameters through the initialization's
range checks) and ``CoSimulation.state_problem`` (every array's dtype and shape, finiteness, the cached
evaluation's layout) -- and the kernel compares the lengths of the buffers it writes. So corrupt or hostile
bytes can at worst be refused.

Layout: the magic line ``CRANE-COSIM-STATE``, a newline, the format version (decimal) and a newline, the
SHA-256 of the rest in hex and a newline, then UTF-8 JSON ``{"fmu": identity, "state": tree}``. The
identity (model name, GUID, project version, variable list digest) is compared on reading, so a state of
another FMU, build or version is refused before anything is changed. Floats are JSON numbers (Python
writes the shortest repr that reads back to the same double, NaN and infinities included), arrays are
their raw little-endian bytes in base64: a restored state is bit-identical.
"""
from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import math
from typing import Any, Callable

import numpy as np

__all__ = ["StateFormatError", "encode_state", "decode_state", "FORMAT_VERSION", "MAGIC", "register_class"]

MAGIC = b"CRANE-COSIM-STATE"
FORMAT_VERSION = 1
MAX_DEPTH = 64  # nesting of the state tree; a deeper document is refused (no recursion blow-up)
_ARRAY_KINDS = {"f", "i", "u", "b"}  # numeric arrays only: never object arrays


class StateFormatError(ValueError):
    """The bytes are not a saved state of this FMU (foreign, truncated, corrupt or of another version)."""


# name -> (class, to plain data, from plain data)
CLASSES: dict = {}


def register_class(name: str, cls: type, to_data: Callable[[Any], Any], from_data: Callable[[Any], Any]) -> None:
    """Allow instances of ``cls`` in saved states, written as ``to_data(obj)`` and read back with
    ``from_data(data)`` (both plain data as above)."""
    CLASSES[name] = (cls, to_data, from_data)


def _class_name(obj) -> str | None:
    for name, (cls, _, _) in CLASSES.items():
        if type(obj) is cls:
            return name
    return None


def _to_tree(obj, depth: int = 0):
    if depth > MAX_DEPTH:
        raise StateFormatError("state nested too deeply")
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):
        return {"f": repr(obj)} if not math.isfinite(obj) else obj
    if isinstance(obj, np.generic):
        return _to_tree(obj.item(), depth + 1)
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in _ARRAY_KINDS:
            raise StateFormatError(f"cannot save an array of dtype {obj.dtype}")
        a = np.ascontiguousarray(obj, dtype=obj.dtype.newbyteorder("<"))
        return {"a": [a.dtype.str, list(a.shape), base64.b64encode(a.tobytes()).decode("ascii")]}
    if isinstance(obj, tuple):
        return {"t": [_to_tree(v, depth + 1) for v in obj]}
    if isinstance(obj, list):
        return [_to_tree(v, depth + 1) for v in obj]
    if isinstance(obj, dict):
        if not all(isinstance(k, str) for k in obj):
            raise StateFormatError("only string keys can be saved")
        return {"d": {k: _to_tree(v, depth + 1) for k, v in obj.items()}}
    name = _class_name(obj)
    if name is None:
        raise StateFormatError(f"cannot save an object of type {type(obj).__qualname__}")
    return {"o": name, "v": _to_tree(CLASSES[name][1](obj), depth + 1)}


def _array_from(spec) -> np.ndarray:
    if not (isinstance(spec, list) and len(spec) == 3 and isinstance(spec[0], str) and isinstance(spec[2], str)):
        raise StateFormatError("malformed array")
    dtype = np.dtype(spec[0])  # a dtype string such as '<f8' (np.dtype never evaluates code)
    shape = spec[1]
    if dtype.kind not in _ARRAY_KINDS or not (isinstance(shape, list) and all(
            isinstance(s, int) and s >= 0 for s in shape)):
        raise StateFormatError("malformed array")
    raw = base64.b64decode(spec[2].encode("ascii"), validate=True)
    if len(raw) != dtype.itemsize * math.prod(shape):
        raise StateFormatError("array size does not match its shape")
    return np.frombuffer(raw, dtype=dtype).reshape(shape).astype(dtype.newbyteorder("="), copy=True)


def _from_tree(node, depth: int = 0):
    if depth > MAX_DEPTH:
        raise StateFormatError("state nested too deeply")
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if isinstance(node, list):
        return [_from_tree(v, depth + 1) for v in node]
    if not isinstance(node, dict) or len(node) not in (1, 2):
        raise StateFormatError("malformed state tree")
    if "f" in node and len(node) == 1 and node["f"] in ("nan", "inf", "-inf"):
        return float(node["f"])
    if "a" in node and len(node) == 1:
        return _array_from(node["a"])
    if "t" in node and len(node) == 1 and isinstance(node["t"], list):
        return tuple(_from_tree(v, depth + 1) for v in node["t"])
    if "d" in node and len(node) == 1 and isinstance(node["d"], dict):
        return {k: _from_tree(v, depth + 1) for k, v in node["d"].items()}
    if "o" in node and "v" in node and node["o"] in CLASSES:
        return CLASSES[node["o"]][2](_from_tree(node["v"], depth + 1))
    raise StateFormatError("malformed state tree")


def encode_state(state, identity: dict) -> bytes:
    """The bytes of ``state`` (a tree of the types above) for the FMU described by ``identity``."""
    body = json.dumps({"fmu": identity, "state": _to_tree(state)}, separators=(",", ":"),
                      allow_nan=False).encode("utf-8")
    digest = hashlib.sha256(body).hexdigest().encode("ascii")
    return MAGIC + b"\n" + str(FORMAT_VERSION).encode("ascii") + b"\n" + digest + b"\n" + body


def decode_state(data: bytes, identity: dict):
    """The state saved in ``data``; :class:`StateFormatError` says why when the bytes are not a state of
    this FMU (another FMU, build or format version; truncated or corrupt)."""
    data = bytes(data)
    parts = data.split(b"\n", 3)
    if len(parts) != 4 or parts[0] != MAGIC:
        raise StateFormatError("not a crane-cosim FMU state")
    if parts[1] != str(FORMAT_VERSION).encode("ascii"):
        raise StateFormatError(f"state format version {parts[1][:16]!r} is not {FORMAT_VERSION}")
    if hashlib.sha256(parts[3]).hexdigest().encode("ascii") != parts[2]:
        raise StateFormatError("the state is truncated or corrupt (checksum mismatch)")
    try:
        doc = json.loads(parts[3].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise StateFormatError(f"the state is not readable: {exc}") from None
    if not isinstance(doc, dict) or doc.get("fmu") != identity:
        found = doc.get("fmu") if isinstance(doc, dict) else None
        raise StateFormatError(f"the state belongs to another FMU or version ({found!r}, expected {identity!r})")
    try:
        return _from_tree(doc.get("state"))
    except (TypeError, ValueError, KeyError, RecursionError) as exc:
        raise StateFormatError(f"the state is malformed: {exc}") from None


def register_dataclass(name: str, cls: type) -> None:
    """Allow a dataclass (its fields are saved by name)."""
    fields = [f.name for f in dataclasses.fields(cls)]

    def from_data(data):
        if not isinstance(data, dict) or set(data) != set(fields):
            raise StateFormatError(f"malformed {name}")
        return cls(**data)

    register_class(name, cls, lambda obj: {f: getattr(obj, f) for f in fields}, from_data)
