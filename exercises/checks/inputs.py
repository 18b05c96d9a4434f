"""The RNN course's inputs for the counterexample search, one builder per function.

Each builder draws a small case (sizes 1 to 3, friendly values such as 0, 1, -1,
0.5) through grader/checks/choices.py, whose first option of every choice is the
simplest: dimensions start at their smallest, values at 0.0, optional arguments
left out. The ladder and the shrinking of a counterexample follow from that.
``ARG_NAMES`` and ``RESULT_NAMES`` name arguments and results in the message.
"""

from __future__ import annotations

import numpy as np

from grader.checks import Case
from grader.checks.choices import booleans, builder, integers, lists, sampled_from

VALUES = (0.0, 1.0, -1.0, 0.5, -0.5, 2.0)   # shrinks towards 0.0, reads well


def _array(draw, *shape, values=VALUES):
    n = int(np.prod(shape)) if shape else 1
    data = draw(lists(sampled_from(values), min_size=n, max_size=n))
    return np.array(data, dtype=np.float64).reshape(shape)


def _lengths(draw, B, T):
    return np.array(draw(lists(integers(0, T), min_size=B, max_size=B)), dtype=np.int64)


def _dims(draw, **ranges):
    return {k: draw(integers(lo, hi)) for k, (lo, hi) in ranges.items()}


def maybe_h0(draw, B, H):
    return {"h0": _array(draw, B, H)} if draw(booleans()) else {}


@builder
def rnn_step_case(draw):
    n = _dims(draw, B=(1, 2), d=(1, 3), H=(1, 3))
    B, d, H = n["B"], n["d"], n["H"]
    return Case((_array(draw, B, d), _array(draw, B, H), _array(draw, d, H), _array(draw, H, H), _array(draw, H)))


@builder
def scalar_case(draw):
    seq = draw(lists(sampled_from(VALUES), min_size=0, max_size=4))
    w = [draw(sampled_from(VALUES)) for _ in range(3)]
    return Case((seq,), {"w_x": w[0], "w_h": w[1], "b": w[2]})


@builder
def forward_case(draw):
    n = _dims(draw, B=(1, 2), T=(1, 3), d=(1, 2), H=(1, 2))
    B, T, d, H = n["B"], n["T"], n["d"], n["H"]
    return Case((_array(draw, B, T, d), _array(draw, d, H), _array(draw, H, H), _array(draw, H)), maybe_h0(draw, B, H))


@builder
def params_case(draw):
    return Case((), {"input_size": draw(integers(1, 4)), "hidden_size": draw(integers(1, 4)),
                     "output_size": draw(integers(0, 3)), "num_layers": draw(integers(1, 3)),
                     "bidirectional": draw(booleans()), "double_bias": draw(booleans())})


@builder
def mask_case(draw):
    n = _dims(draw, B=(1, 3), T=(1, 4))
    return Case((_lengths(draw, n["B"], n["T"]), n["T"]))


@builder
def masked_forward_case(draw):
    n = _dims(draw, B=(1, 2), T=(1, 3), d=(1, 2), H=(1, 2))
    B, T, d, H = n["B"], n["T"], n["d"], n["H"]
    return Case((_array(draw, B, T, d), _lengths(draw, B, T), _array(draw, d, H), _array(draw, H, H), _array(draw, H)),
                maybe_h0(draw, B, H))


@builder
def states_case(draw):
    n = _dims(draw, B=(1, 2), T=(1, 4), H=(1, 2))
    return Case((_array(draw, n["B"], n["T"], n["H"]), _lengths(draw, n["B"], n["T"])))


@builder
def loss_case(draw):
    n = _dims(draw, B=(1, 2), T=(1, 3), V=(2, 3))
    B, T, V = n["B"], n["T"], n["V"]
    targets = np.array(draw(lists(integers(0, V - 1), min_size=B * T, max_size=B * T))).reshape(B, T)
    return Case((_array(draw, B, T, V), targets.astype(np.int64), _lengths(draw, B, T)))


@builder
def softmax_case(draw):
    shape = tuple(draw(lists(integers(1, 3), min_size=1, max_size=3)))
    kwargs = {"axis": draw(integers(-len(shape), len(shape) - 1))} if draw(booleans()) else {}
    return Case((_array(draw, *shape),), kwargs)


@builder
def probs_case(draw):
    n = _dims(draw, B=(1, 2), T=(1, 3), d=(1, 2), H=(1, 2), C=(2, 3))
    B, T, d, H, C = n["B"], n["T"], n["d"], n["H"], n["C"]
    return Case((_array(draw, B, T, d), _lengths(draw, B, T), _array(draw, d, H), _array(draw, H, H), _array(draw, H),
                 _array(draw, H, C), _array(draw, C)))


@builder
def backward_case(draw):
    n = _dims(draw, B=(1, 2), T=(1, 3), d=(1, 2), H=(1, 2))
    B, T, d, H = n["B"], n["T"], n["d"], n["H"]
    return Case((_array(draw, B, T, d), _array(draw, d, H), _array(draw, H, H), _array(draw, H), _array(draw, B, T, H)),
                maybe_h0(draw, B, H))


@builder
def truncated_case(draw):
    base = draw(backward_case())
    T = base.args[0].shape[1]
    return Case((*base.args, draw(integers(1, T + 1))), base.kwargs)


@builder
def clip_case(draw):
    n = _dims(draw, d=(1, 2), H=(1, 2))
    grads = {"dW": _array(draw, n["d"], n["H"]), "db": _array(draw, n["H"])}
    return Case((grads, draw(sampled_from((1.0, 0.5, 2.0, 5.0)))))


@builder
def matrix_case(draw):
    H = draw(integers(1, 3))
    return Case((_array(draw, H, H),))


@builder
def birnn_case(draw):
    n = _dims(draw, B=(1, 2), T=(1, 3), d=(1, 2), H=(1, 2))
    B, T, d, H = n["B"], n["T"], n["d"], n["H"]

    def weights():
        return (_array(draw, d, H), _array(draw, H, H), _array(draw, H))

    return Case((_array(draw, B, T, d), _lengths(draw, B, T), weights(), weights()), maybe_h0(draw, B, H))


BUILDERS = {
    "rnn_step": rnn_step_case(), "scalar_rnn": scalar_case(), "rnn_forward": forward_case(),
    "count_rnn_params": params_case(), "sequence_mask": mask_case(), "rnn_forward_masked": masked_forward_case(),
    "last_valid_state": states_case(), "masked_mean_pool": states_case(), "masked_cross_entropy": loss_case(),
    "softmax": softmax_case(), "many_to_one_probs": probs_case(), "rnn_backward": backward_case(),
    "truncated_rnn_backward": truncated_case(), "clip_by_global_norm": clip_case(),
    "spectral_radius": matrix_case(), "hidden_grad_norms": forward_case(), "birnn_forward": birnn_case(),
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
RESULT_NAMES = {"rnn_step": "h_t", "rnn_forward": "Hs", "rnn_forward_masked": "(Hs, h_last)",
                "clip_by_global_norm": "(clipped, total_norm)"}
