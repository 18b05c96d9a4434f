"""The wire format: plain data only, nothing pickled, malformed frames refused."""

from __future__ import annotations

import os
import pickle
import struct

import numpy as np
import pytest

from grader.sandbox.worker import wire


def roundtrip(value):
    r, w = os.pipe()
    try:
        wire.send(w, {"value": value})
        return wire.Reader(r).recv()["value"]
    finally:
        os.close(r)
        os.close(w)


def test_values_roundtrip_with_their_types():
    value = {"a": np.arange(6.0).reshape(2, 3), "b": (1, 2.5, None, True), "c": [np.float64(1.5), np.int64(3)],
             "nan": float("nan"), "inf": float("-inf"), "z": 1 + 2j, "s": "中文", "i": 2 ** 70}
    out = roundtrip(value)
    assert isinstance(out["a"], np.ndarray) and out["a"].shape == (2, 3) and out["a"].dtype == np.float64
    assert out["b"] == (1, 2.5, None, True) and isinstance(out["b"], tuple)
    assert type(out["c"][0]) is np.float64 and type(out["c"][1]) is np.int64
    assert np.isnan(out["nan"]) and out["inf"] == float("-inf")
    assert out["z"] == 1 + 2j and out["s"] == "中文" and out["i"] == 2 ** 70


def test_subclasses_come_back_as_plain_types():
    class Sneaky(np.ndarray):
        def __eq__(self, other):
            return True

    class LyingFloat(float):
        def __eq__(self, other):
            return True

    out = roundtrip([np.zeros(3).view(Sneaky), LyingFloat(2.0)])
    assert type(out[0]) is np.ndarray and type(out[1]) is float
    assert not (out[0] == np.ones(3)).all()


@pytest.mark.parametrize("bad", [np.array([object()]), np.array(["text"]), object(), {1j: 2}])
def test_non_numeric_values_are_refused(bad):
    with pytest.raises(wire.WireError):
        wire.pack({"value": bad})


def test_pickle_payloads_are_never_loaded():
    payload = pickle.dumps(np.arange(3))
    frame = wire.pack({"value": np.frombuffer(payload, dtype=np.uint8)})
    r, w = os.pipe()
    os.write(w, frame)
    out = wire.Reader(r).recv()["value"]
    assert out.dtype == np.uint8  # bytes stay bytes, never unpickled
    os.close(r)
    os.close(w)


@pytest.mark.parametrize("tag", [
    {"__nd__": [0, "|O", [1]]},
    {"__nd__": [0, "<f8", [1000]]},
    {"__nd__": [5, "<f8", [1]]},
    {"__nd__": [0, "<f8", [-1]]},
    {"__nd__": [0, "<f8", [1], 2]},          # a scalar's flag is 1
    {"__nd__": [0, "<f4", [2], 1]},          # a scalar has no shape
    {"__nd__": [0, "<f8"]},
    {"__nd__": 0, "dtype": "<f8", "shape": [1]},
    {"__unknown__": 1},
])
def test_malformed_tags_are_refused(tag):
    with pytest.raises(wire.WireError):
        wire.decode(tag, [b"\x00" * 8])


def test_truncated_and_oversized_frames():
    r, w = os.pipe()
    os.write(w, struct.pack(">II", wire.MAX_HEADER + 1, 0))
    with pytest.raises(wire.WireError, match="header too large"):
        wire.Reader(r).recv()
    os.write(w, struct.pack(">II", 2, wire.MAX_FRAME + 1))
    with pytest.raises(wire.WireError, match="frame too large"):
        wire.Reader(r).recv()
    os.write(w, struct.pack(">II", 100, 0) + b"{")
    os.close(w)
    with pytest.raises(wire.Closed):
        wire.Reader(r).recv()
    os.close(r)


def test_recv_times_out():
    r, w = os.pipe()
    with pytest.raises(wire.Timeout):
        import time
        wire.Reader(r).recv(time.monotonic() + 0.05)
    os.close(r)
    os.close(w)


def test_send_to_a_peer_that_stops_reading_times_out():
    import time
    r, w = os.pipe()
    os.set_blocking(w, False)
    start = time.monotonic()
    with pytest.raises(wire.Timeout):
        wire.send(w, {"value": np.zeros(1 << 18)}, time.monotonic() + 0.2)   # 2 MiB > any pipe buffer
    assert time.monotonic() - start < 2
    os.close(r)
    os.close(w)
