"""Saved FMU states without pickle (crane_models/fmi/state_format.py): exact round trips, and every kind of
foreign, truncated, corrupt or hostile byte string refused without running anything."""
from __future__ import annotations

import base64
import json
import math
import pickle

import numpy as np
import pytest

from crane_models.fmi.state_format import (FORMAT_VERSION, MAGIC, StateFormatError, decode_state, encode_state)

ID = {"model": "KnuckleBoomCrane", "guid": "{1234}", "version": "0.1.0", "variables": "abc"}


def _same(a, b) -> bool:
    """Equal as saved data, bit for bit: arrays by dtype, shape and bytes; floats by their bits."""
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, float):
        return isinstance(b, float) and np.float64(a).tobytes() == np.float64(b).tobytes()
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def test_round_trip_is_bit_identical():
    rng = np.random.default_rng(7)
    state = {"t": 0.1 + 0.2, "neg_zero": -0.0, "nan": math.nan, "inf": -math.inf, "tiny": 5e-324,
             "n": 3, "flag": True, "none": None, "name": "crane",
             "x": rng.normal(size=17), "M": rng.normal(size=(3, 4)), "idx": np.arange(5, dtype=np.int32),
             "mask": np.array([True, False]), "core": (1.5, [np.zeros(0), 2], {"h": 1e-3})}
    back = decode_state(encode_state(state, ID), ID)
    assert _same(state["core"], back["core"])
    for key in state:
        if key == "nan":
            assert math.isnan(back[key])
        else:
            assert _same(state[key], back[key]), key


def test_a_pickle_that_would_run_code_is_refused_and_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"

    class Exploit:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    payload = pickle.dumps(Exploit())
    for data in (payload, MAGIC + b"\n" + payload, MAGIC + b"\n1\n" + payload):
        with pytest.raises(StateFormatError):
            decode_state(data, ID)
    assert not marker.exists()


def _forge(doc) -> bytes:
    """A well-formed envelope (correct checksum) around an arbitrary document (or raw JSON text): what an
    attacker can make."""
    import hashlib

    body = doc.encode() if isinstance(doc, str) else json.dumps(doc).encode()
    return MAGIC + b"\n" + str(FORMAT_VERSION).encode() + b"\n" + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


@pytest.mark.parametrize("tree", [
    {"o": "os.system", "v": "echo pwned"},                       # a class that is not allow-listed
    {"o": "NoSuchClass", "v": {}},
    {"a": ["O", [1], base64.b64encode(pickle.dumps(1)).decode()]},  # object array
    {"a": ["<f8", [1000000000000], ""]},                            # shape larger than its data
    {"a": ["<f8", [-1], ""]},
    {"x": 1},                                                       # unknown node
    {"d": {"k": {"t": "not a list"}}},
], ids=["foreign-class", "unknown-class", "object-array", "huge-shape", "negative-shape", "unknown-node", "bad-tuple"])
def test_forged_trees_are_refused(tree):
    with pytest.raises(StateFormatError):
        decode_state(_forge({"fmu": ID, "state": tree}), ID)


def test_deep_nesting_is_refused_not_a_crash():
    deep = "[" * 100000 + "null" + "]" * 100000  # beyond both the JSON parser's and our depth limits
    with pytest.raises(StateFormatError):
        decode_state(_forge('{"fmu": ' + json.dumps(ID) + ', "state": ' + deep + "}"), ID)
    moderate = "[" * 200 + "null" + "]" * 200  # parses, but deeper than MAX_DEPTH
    with pytest.raises(StateFormatError, match="nested too deeply"):
        decode_state(_forge('{"fmu": ' + json.dumps(ID) + ', "state": ' + moderate + "}"), ID)


def test_truncated_corrupt_foreign_and_other_versions_are_refused():
    data = encode_state({"x": np.ones(4)}, ID)
    with pytest.raises(StateFormatError, match="truncated or corrupt"):
        decode_state(data[:-7], ID)
    flipped = bytearray(data)
    flipped[-3] ^= 0x01
    with pytest.raises(StateFormatError, match="truncated or corrupt"):
        decode_state(bytes(flipped), ID)
    with pytest.raises(StateFormatError, match="another FMU"):
        decode_state(data, {**ID, "model": "VesselCrane"})
    with pytest.raises(StateFormatError, match="another FMU"):
        decode_state(data, {**ID, "guid": "{other build}"})
    newer = data.replace(b"\n1\n", b"\n2\n", 1)
    with pytest.raises(StateFormatError, match="version"):
        decode_state(newer, ID)
    with pytest.raises(StateFormatError):
        decode_state(b"", ID)


def test_objects_that_are_not_allow_listed_cannot_be_saved():
    class Model:
        pass

    with pytest.raises(StateFormatError, match="cannot save"):
        encode_state({"m": Model()}, ID)
    with pytest.raises(StateFormatError, match="string keys"):
        encode_state({1: 2}, ID)
