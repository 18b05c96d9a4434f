"""The smallest input on which a student's function goes wrong.

When a visible check fails, hypothesis searches the function's input space
(small shapes, friendly values such as 0, 1, -1, 0.5) for an input where the
student's result differs from the reference, then shrinks it. The search is
bounded in time and in calls; the student is reached through the same worker
as every check. What it finds is shown to the student: the call with its
values, and expected against got.
"""

from __future__ import annotations

import copy
import hashlib
import time
from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample, Unsatisfiable

from grader.checks import Case, quiet_numpy
from grader.compare import compare
from grader.i18n import Message
from grader.kit import call_digest
from grader.runner import StudentError
from grader.worker import wire

VALUES = (0.0, 1.0, -1.0, 0.5, -0.5, 2.0)   # shrinks towards 0.0, reads well
SHOW_VALUES = 24                            # arrays up to this size are printed in full
BUDGET_SECONDS = 1.0
BUDGET_CALLS = 100


# ---------------------------------------------------------------- input strategies

def _array(draw, *shape, values=VALUES):
    n = int(np.prod(shape)) if shape else 1
    data = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    return np.array(data, dtype=np.float64).reshape(shape)


def _lengths(draw, B, T):
    return np.array(draw(st.lists(st.integers(0, T), min_size=B, max_size=B)), dtype=np.int64)


def _dims(draw, **ranges):
    return {k: draw(st.integers(lo, hi)) for k, (lo, hi) in ranges.items()}


def _h0(draw, B, H):
    return {"h0": _array(draw, B, H)} if draw(st.booleans()) else {}


@st.composite
def rnn_step_case(draw):
    n = _dims(draw, B=(1, 2), d=(1, 3), H=(1, 3))
    B, d, H = n["B"], n["d"], n["H"]
    return Case((_array(draw, B, d), _array(draw, B, H), _array(draw, d, H), _array(draw, H, H), _array(draw, H)))


@st.composite
def scalar_case(draw):
    seq = draw(st.lists(st.sampled_from(VALUES), min_size=0, max_size=4))
    w = [draw(st.sampled_from(VALUES)) for _ in range(3)]
    return Case((seq,), {"w_x": w[0], "w_h": w[1], "b": w[2]})


@st.composite
def forward_case(draw):
    n = _dims(draw, B=(1, 2), T=(1, 3), d=(1, 2), H=(1, 2))
    B, T, d, H = n["B"], n["T"], n["d"], n["H"]
    return Case((_array(draw, B, T, d), _array(draw, d, H), _array(draw, H, H), _array(draw, H)), _h0(draw, B, H))


@st.composite
def params_case(draw):
    return Case((), {"input_size": draw(st.integers(1, 4)), "hidden_size": draw(st.integers(1, 4)),
                     "output_size": draw(st.integers(0, 3)), "num_layers": draw(st.integers(1, 3)),
                     "bidirectional": draw(st.booleans()), "double_bias": draw(st.booleans())})


@st.composite
def mask_case(draw):
    n = _dims(draw, B=(1, 3), T=(1, 4))
    return Case((_lengths(draw, n["B"], n["T"]), n["T"]))


@st.composite
def masked_forward_case(draw):
    n = _dims(draw, B=(1, 2), T=(1, 3), d=(1, 2), H=(1, 2))
    B, T, d, H = n["B"], n["T"], n["d"], n["H"]
    return Case((_array(draw, B, T, d), _lengths(draw, B, T), _array(draw, d, H), _array(draw, H, H), _array(draw, H)),
                _h0(draw, B, H))


@st.composite
def states_case(draw):
    n = _dims(draw, B=(1, 2), T=(1, 4), H=(1, 2))
    return Case((_array(draw, n["B"], n["T"], n["H"]), _lengths(draw, n["B"], n["T"])))


@st.composite
def loss_case(draw):
    n = _dims(draw, B=(1, 2), T=(1, 3), V=(2, 3))
    B, T, V = n["B"], n["T"], n["V"]
    targets = np.array(draw(st.lists(st.integers(0, V - 1), min_size=B * T, max_size=B * T))).reshape(B, T)
    return Case((_array(draw, B, T, V), targets.astype(np.int64), _lengths(draw, B, T)))


@st.composite
def softmax_case(draw):
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    kwargs = {"axis": draw(st.integers(-len(shape), len(shape) - 1))} if draw(st.booleans()) else {}
    return Case((_array(draw, *shape),), kwargs)


@st.composite
def probs_case(draw):
    n = _dims(draw, B=(1, 2), T=(1, 3), d=(1, 2), H=(1, 2), C=(2, 3))
    B, T, d, H, C = n["B"], n["T"], n["d"], n["H"], n["C"]
    return Case((_array(draw, B, T, d), _lengths(draw, B, T), _array(draw, d, H), _array(draw, H, H), _array(draw, H),
                 _array(draw, H, C), _array(draw, C)))


@st.composite
def backward_case(draw):
    n = _dims(draw, B=(1, 2), T=(1, 3), d=(1, 2), H=(1, 2))
    B, T, d, H = n["B"], n["T"], n["d"], n["H"]
    return Case((_array(draw, B, T, d), _array(draw, d, H), _array(draw, H, H), _array(draw, H), _array(draw, B, T, H)),
                _h0(draw, B, H))


@st.composite
def truncated_case(draw):
    base = draw(backward_case())
    T = base.args[0].shape[1]
    return Case((*base.args, draw(st.integers(1, T + 1))), base.kwargs)


@st.composite
def clip_case(draw):
    n = _dims(draw, d=(1, 2), H=(1, 2))
    grads = {"dW": _array(draw, n["d"], n["H"]), "db": _array(draw, n["H"])}
    return Case((grads, draw(st.sampled_from((1.0, 0.5, 2.0, 5.0)))))


@st.composite
def matrix_case(draw):
    H = draw(st.integers(1, 3))
    return Case((_array(draw, H, H),))


@st.composite
def birnn_case(draw):
    n = _dims(draw, B=(1, 2), T=(1, 3), d=(1, 2), H=(1, 2))
    B, T, d, H = n["B"], n["T"], n["d"], n["H"]

    def weights():
        return (_array(draw, d, H), _array(draw, H, H), _array(draw, H))

    return Case((_array(draw, B, T, d), _lengths(draw, B, T), weights(), weights()), _h0(draw, B, H))


STRATEGIES = {
    "rnn_step": rnn_step_case, "scalar_rnn": scalar_case, "rnn_forward": forward_case,
    "count_rnn_params": params_case, "sequence_mask": mask_case, "rnn_forward_masked": masked_forward_case,
    "last_valid_state": states_case, "masked_mean_pool": states_case, "masked_cross_entropy": loss_case,
    "softmax": softmax_case, "many_to_one_probs": probs_case, "rnn_backward": backward_case,
    "truncated_rnn_backward": truncated_case, "clip_by_global_norm": clip_case,
    "spectral_radius": matrix_case, "hidden_grad_norms": forward_case, "birnn_forward": birnn_case,
}
ARG_NAMES = {
    "rnn_step": ("x_t", "h_prev", "W_x", "W_h", "b"), "scalar_rnn": ("sequence",),
    "rnn_forward": ("X", "W_x", "W_h", "b"), "sequence_mask": ("lengths", "T"),
    "rnn_forward_masked": ("X", "lengths", "W_x", "W_h", "b"), "last_valid_state": ("Hs", "lengths"),
    "masked_mean_pool": ("Hs", "lengths"), "masked_cross_entropy": ("logits", "targets", "lengths"),
    "softmax": ("z",), "many_to_one_probs": ("X", "lengths", "W_x", "W_h", "b", "W_o", "b_o"),
    "rnn_backward": ("X", "W_x", "W_h", "b", "dHs"), "truncated_rnn_backward": ("X", "W_x", "W_h", "b", "dHs", "k"),
    "clip_by_global_norm": ("grads", "max_norm"), "spectral_radius": ("W",),
    "hidden_grad_norms": ("X", "W_x", "W_h", "b"), "birnn_forward": ("X", "lengths", "fwd", "bwd"),
}


# ---------------------------------------------------------------- the search

@dataclass
class Counterexample:
    func: str
    case: Case
    outcome: str          # "mismatch" or "error"
    detail: Message       # what differs, or the error

    def message(self) -> Message:
        return Message("cx.found", call=format_call(self.func, self.case), detail=self.detail)


def behaviour(calls, func: str) -> str:
    """A fingerprint of what a student's function returned on the graded calls."""
    digest = hashlib.blake2b(digest_size=16)
    for call in calls:
        if call.func != func:
            continue
        if call.outcome[0] == "error":
            digest.update(f"error:{call.outcome[1]}".encode())
            continue
        blobs: list = []
        try:
            header = wire.encode(_rounded(call.outcome[1]), blobs)
        except wire.WireError:
            header = "?"
        digest.update(repr(header).encode())
        for blob in blobs:
            digest.update(blob)
    return digest.hexdigest()


def _rounded(value):
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return np.round(value, 6)
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, (list, tuple)):
        return type(value)(_rounded(v) for v in value)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def recheck(ctx, found: "Counterexample") -> "Counterexample | None":
    """The cached counterexample, if it still shows this student's function going wrong."""
    result = _judge(ctx, found.func, found.case, ctx.reference(found.func))
    if result is None:
        return None
    return Counterexample(found.func, found.case, *result)


def _judge(ctx, func: str, case: Case, reference):
    """("mismatch" | "error", detail) when ``func`` goes wrong on ``case``, else None."""
    try:
        with quiet_numpy():
            expected = reference(*_copy(case.args), **_copy(case.kwargs))
    except Exception:  # noqa: BLE001 -- an input the reference itself refuses is out of scope
        return None
    try:
        got = ctx.student.call(func, *case.args, **case.kwargs).value
    except StudentError as exc:
        if exc.kind in ("timeout", "crash", "gave_up", "time_limit", "import", "too_large"):
            return None   # not a clean counterexample, and costly to repeat (or refused by the grader)
        return "error", Message(*ctx.error_message(exc.error, func))
    mismatch = compare(got, expected, ctx.rtol, ctx.atol, "")
    if mismatch is None:
        return None
    where = _result_name(func) + mismatch.params.get("where", "")
    return "mismatch", Message(mismatch.key, {**mismatch.params, "where": where, "case": Message("cx.above")})


def search(ctx, func: str) -> Counterexample | None:
    """The smallest input found within the budget where ``func`` goes wrong, or None."""
    strategy = STRATEGIES.get(func)
    if strategy is None:
        return None
    reference = ctx.reference(func)
    started, calls = time.monotonic(), [0]
    judged: dict = {}   # by content: a case asked again (hypothesis replays, or returns a copy) gets the same answer

    def fails(case: Case) -> bool:
        key = call_digest(func, case.args, case.kwargs)
        if key not in judged:
            if time.monotonic() - started > BUDGET_SECONDS or calls[0] >= BUDGET_CALLS:
                return False   # out of budget: only cases already judged can fail (no flaky answers)
            calls[0] += 1
            judged[key] = _judge(ctx, func, case, reference)
        return judged[key] is not None

    config = settings(max_examples=60, deadline=None, database=None, derandomize=True,
                      phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck),
                      report_multiple_bugs=False)
    try:
        case = find(strategy(), fails, settings=config)
    except (NoSuchExample, Unsatisfiable):
        return None
    except Exception:  # noqa: BLE001 -- the search is a bonus; it must never break grading
        return None
    verdict = judged.get(call_digest(func, case.args, case.kwargs))
    if verdict is None:
        return None
    outcome, detail = verdict
    return Counterexample(func, case, outcome, detail)


def _copy(value):
    return copy.deepcopy(value)


def _result_name(func: str) -> str:
    return {"rnn_step": "h_t", "rnn_forward": "Hs", "rnn_forward_masked": "(Hs, h_last)",
            "clip_by_global_norm": "(clipped, total_norm)"}.get(func, "result")


# ---------------------------------------------------------------- showing it

def format_value(value) -> str:
    if isinstance(value, np.ndarray):
        if value.size <= SHOW_VALUES:
            body = np.array2string(value, precision=4, separator=", ", suppress_small=True)
            return " ".join(body.split())
        return f"<array of shape {value.shape}>"
    if isinstance(value, tuple):
        return "(" + ", ".join(format_value(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {format_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, float):
        return f"{value:g}"
    return repr(value)


def format_call(func: str, case: Case) -> str:
    names = ARG_NAMES.get(func, ())
    parts = []
    for i, value in enumerate(case.args):
        name = names[i] if i < len(names) else f"arg{i + 1}"
        parts.append(f"{name}={format_value(value)}")
    parts += [f"{k}={format_value(v)}" for k, v in case.kwargs.items()]
    return f"{func}({', '.join(parts)})"
