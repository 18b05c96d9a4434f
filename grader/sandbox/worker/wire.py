"""The wire format between the trusted grader and the worker: plain data only.

A frame is two 4-byte big-endian lengths (the header's and the arrays'), a
UTF-8 JSON header, then the raw bytes of every array the header refers to. Nothing is ever pickled: arrays
travel as (dtype, shape, bytes) with a whitelist of numeric dtypes, so a
decoded value is always a plain ``numpy.ndarray`` or a JSON value.

This module must import nothing but the standard library and numpy: the
worker loads it inside the sandbox.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time

import numpy as np

MAX_HEADER = 4 << 20      # a JSON header larger than this is refused
MAX_NODES = 200_000       # values (list items, dict entries...) decoded from one frame
MAX_FRAME = 64 << 20      # header plus arrays: far above any honest result

# Numeric dtypes only: object, void, string and datetime arrays never cross.
ALLOWED_DTYPES = frozenset(
    np.dtype(code).str
    for code in ("?", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8",
                 "f2", "f4", "f8", "c8", "c16")
)


class WireError(Exception):
    """A frame or value that does not follow the protocol."""


class Timeout(Exception):
    """The peer did not send a whole frame before the deadline."""


class Closed(Exception):
    """The peer closed its end (it exited or crashed)."""


class TooLarge(Exception):
    """A whole frame over the reader's limit: read to its end and dropped, so the stream
    stays in step (the next frame is read as usual)."""

    def __init__(self, size: int):
        super().__init__(f"frame of {size} bytes")
        self.size = size


# ---------------------------------------------------------------- encoding

def encode(value, blobs: list, depth: int = 0):
    """Turn a value into JSON-able data; arrays are appended to ``blobs``.

    Every dict in the output is a tag (``__nd__``, ``__map__``, ...), so a
    student's dict can never be mistaken for one.
    """
    if depth > 50:
        raise WireError("value nested too deeply")
    kind = type(value)
    if kind is np.ndarray:     # the most frequent value of all: tested first
        return _encode_array(value, blobs)
    if value is None or kind is bool or kind is int or kind is str:
        return value
    if kind is float:
        return value if value - value == 0 else {"__float__": repr(value)}   # inf - inf and nan - nan are nan
    if kind is dict:
        return _encode_map(value, blobs, depth)
    if kind is list:
        return [encode(v, blobs, depth + 1) for v in value]
    if kind is tuple:
        return {"__tuple__": [encode(v, blobs, depth + 1) for v in value]}
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return _encode_array(value, blobs)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return encode(float(value), blobs, depth)
    if isinstance(value, complex):
        return {"__complex__": [_plain_float(value.real), _plain_float(value.imag)]}
    if isinstance(value, str):
        return str(value)
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v, blobs, depth + 1) for v in value]}
    if isinstance(value, list):
        return [encode(v, blobs, depth + 1) for v in value]
    if isinstance(value, dict):
        return _encode_map(value, blobs, depth)
    raise WireError(f"unsupported value of type {type(value).__name__}")


def _encode_map(value, blobs, depth):
    items = []
    for k, v in value.items():
        if type(k) is not str and not isinstance(k, (int, float)):
            raise WireError(f"dict key of type {type(k).__name__}")
        items.append([k if type(k) in (str, int) else float(k), encode(v, blobs, depth + 1)])
    return {"__map__": items}


def _plain_float(x):
    x = float(x)
    return x if np.isfinite(x) else repr(x)


def _encode_array(value, blobs):
    """{"__nd__": [blob, dtype, shape]}; a NumPy scalar (np.float64(2.0)) has a fourth item, 1,
    and comes back as one. A subclass of ndarray keeps only its data."""
    if type(value) is np.ndarray:
        array, scalar = value, False
    else:
        scalar = isinstance(value, np.generic)
        array = np.asarray(value)
        if type(array) is not np.ndarray:
            array = np.ndarray.view(array, np.ndarray)
    dtype = array.dtype
    if dtype.byteorder == ">":
        dtype = dtype.newbyteorder("<")
        array = array.astype(dtype)
    code = dtype.str
    if code not in ALLOWED_DTYPES:
        raise WireError(f"array of dtype {array.dtype} (numbers only)")
    blobs.append(array.tobytes())      # C order, whatever the array's layout
    return {"__nd__": [len(blobs) - 1, code, list(array.shape), 1] if scalar
            else [len(blobs) - 1, code, list(array.shape)]}


# ---------------------------------------------------------------- decoding

_SCALARS = (type(None), bool, int, float)


def decode(data, blobs: list, depth: int = 0, budget: list | None = None):
    """The inverse of :func:`encode`; refuses anything outside the format."""
    if depth > 60:
        raise WireError("value nested too deeply")
    if budget is not None:
        budget[0] -= 1
        if budget[0] < 0:
            raise WireError("value too large")
    kind = type(data)
    if kind is dict:           # arrays and maps first: most of what a call carries
        if "__nd__" in data:
            return _decode_array(data, blobs)
    elif kind is list:
        return [decode(v, blobs, depth + 1, budget) for v in data]
    elif kind is str:
        return clean_text(data)
    elif kind in _SCALARS:
        return data
    else:
        raise WireError("malformed value")
    if "__map__" in data:
        return {clean_text(_key(k)): decode(v, blobs, depth + 1, budget) for k, v in data["__map__"]}
    if "__tuple__" in data:
        return tuple(decode(v, blobs, depth + 1, budget) for v in data["__tuple__"])
    if "__float__" in data:
        return float(data["__float__"])
    if "__complex__" in data:
        re, im = data["__complex__"]
        return complex(float(re), float(im))
    raise WireError("unknown tag")


def _key(k):
    if type(k) not in (str, int, float):
        raise WireError("malformed dict key")
    return k


DTYPES = {code: np.dtype(code) for code in ALLOWED_DTYPES}   # read once, not per array


def _decode_array(tag, blobs):
    # Every reply holds arrays: the checks are written out rather than with all() and math.prod.
    spec = tag.get("__nd__")
    if type(spec) is not list or not 3 <= len(spec) <= 4:
        raise WireError("malformed array")
    index, code, shape = spec[0], spec[1], spec[2]
    dt = DTYPES.get(code) if type(code) is str else None
    if dt is None:
        raise WireError(f"dtype {code!r} is not allowed")
    if type(shape) is not list or len(shape) > 32:
        raise WireError("malformed shape")
    count = 1
    for n in shape:
        if type(n) is not int or n < 0:
            raise WireError("malformed shape")
        count *= n   # Python integers: no overflow
    if type(index) is not int or not 0 <= index < len(blobs):
        raise WireError("array data missing")
    data = blobs[index]
    if len(data) != count * dt.itemsize:
        raise WireError("array data has the wrong size")
    array = np.frombuffer(data, dtype=dt).copy().reshape(shape)   # aligned, writable, the frame's no more
    if len(spec) == 4:
        if spec[3] != 1 or array.ndim:
            raise WireError("malformed array")
        return array[()]
    return array


# ---------------------------------------------------------------- framing

def pack(message: dict) -> bytes:
    """A whole frame for a message whose values may hold arrays."""
    blobs: list = []
    body = {key: encode(value, blobs) for key, value in message.items()}
    body["__blobs__"] = [len(b) for b in blobs]
    header = json.dumps(body, allow_nan=False).encode("utf-8")
    return b"".join([_PREFIX.pack(len(header), sum(body["__blobs__"])), header, *blobs])


_PREFIX = struct.Struct(">II")


class Lazy:
    """A value left encoded until it is needed (see ``unpack(lazy=...)``)."""

    __slots__ = ("data", "blobs")

    def __init__(self, data, blobs):
        self.data, self.blobs = data, blobs

    def value(self):
        try:
            return decode(self.data, self.blobs, 0, [MAX_NODES])
        except (TypeError, ValueError, OverflowError, RecursionError, MemoryError, KeyError, AttributeError) as exc:
            raise WireError(f"malformed value: {type(exc).__name__}") from None


def unpack(header: bytes, payload: bytes, lazy: tuple = ()) -> dict:
    """``lazy``: top-level keys whose list items stay :class:`Lazy` (the worker decodes a
    batch's calls one at a time, as if each had come on its own)."""
    try:
        body = json.loads(header.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise WireError(f"malformed header: {type(exc).__name__}") from None
    if type(body) is not dict:
        raise WireError("malformed header")
    sizes = body.pop("__blobs__", [])
    if type(sizes) is not list or not all(type(n) is int and n >= 0 for n in sizes):
        raise WireError("malformed blob table")
    if sum(sizes) != len(payload):
        raise WireError("array data does not match the blob table")
    blobs, offset, view = [], 0, memoryview(payload)   # slices of the payload, not copies
    for n in sizes:
        blobs.append(view[offset:offset + n])
        offset += n
    budget = [MAX_NODES]
    try:
        return {clean_text(key): ([Lazy(item, blobs) for item in value] if key in lazy and type(value) is list
                                  else decode(value, blobs, 0, budget)) for key, value in body.items()}
    except WireError:
        raise
    except (TypeError, ValueError, OverflowError, RecursionError, MemoryError, KeyError, AttributeError) as exc:
        raise WireError(f"malformed value: {type(exc).__name__}") from None


def clean_text(text):
    """Strings from the worker become valid UTF-8 (a lone surrogate would break every writer)."""
    if type(text) is str and not text.isascii():
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def send(fd: int, message: dict, deadline: float | None = None) -> None:
    """Write one frame. With a deadline, ``fd`` should be non-blocking: a peer that stops
    reading then raises Timeout instead of blocking the grader."""
    write_frame(fd, pack(message), deadline)


def write_frame(fd: int, frame: bytes, deadline: float | None = None) -> None:
    data = memoryview(frame)
    while data:
        try:
            data = data[os.write(fd, data):]
        except BlockingIOError:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and (left <= 0 or not select.select([], [fd], [], left)[1]):
                raise Timeout() from None
            if left is None:
                select.select([], [fd], [])


class Reader:
    """Frames from one descriptor, read in large chunks: a reply that is already there
    (the next of a batch, say) costs no system call."""

    CHUNK = 1 << 16

    def __init__(self, fd: int):
        self.fd = fd
        self._buffer = bytearray()
        self.last_size = 0   # bytes of the last frame returned (header and arrays)

    def recv(self, deadline: float | None = None, lazy: tuple = (), limit: int | None = None) -> dict:
        """The next frame's message. ``limit``: a frame of more bytes (header and arrays) raises
        TooLarge, having been read and dropped in chunks: it is never held whole."""
        buffer = self._buffer
        while len(buffer) < _PREFIX.size:
            self._fill(deadline, _PREFIX.size - len(buffer))
        header_size, payload_size = _PREFIX.unpack_from(buffer)
        if header_size > MAX_FRAME or payload_size > MAX_FRAME:
            raise WireError("frame too large")   # more than the peer may ever send
        size = header_size + payload_size
        if limit is not None and size > limit:
            self._discard(_PREFIX.size + size, deadline)
            raise TooLarge(size)
        if header_size > MAX_HEADER:
            raise WireError("header too large")
        end = _PREFIX.size + size
        while len(buffer) < end:
            self._fill(deadline, end - len(buffer))
        header = buffer[_PREFIX.size:_PREFIX.size + header_size]   # copies: the buffer moves on
        payload = buffer[_PREFIX.size + header_size:end]
        del buffer[:end]     # from the front of a bytearray: no bytes move
        self.last_size = size
        return unpack(header, payload, lazy)

    def _discard(self, count: int, deadline: float | None):
        """Drop the next ``count`` bytes of the stream, at most a chunk in memory at a time."""
        while count:
            if not self._buffer:
                self._fill(deadline, min(count, 1 << 20))
            dropped = min(count, len(self._buffer))
            del self._buffer[:dropped]
            count -= dropped

    def _fill(self, deadline: float | None, missing: int):
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise Timeout()
        chunk = os.read(self.fd, min(max(missing, self.CHUNK), 1 << 20))
        if not chunk:
            raise Closed()
        self._buffer += chunk
