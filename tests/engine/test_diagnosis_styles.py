"""Known mistakes are named by behaviour, whatever code the student wrote; never on correct code."""

from __future__ import annotations

import textwrap

import pytest

from conftest import copy_reference

STYLES = [
    ("step", "rnn_step.py", "step.missing_bias", """
        def rnn_step(x_t, h_prev, W_x, W_h, b):
            pre = np.einsum("bd,dh->bh", x_t, W_x) + np.einsum("bh,hk->bk", h_prev, W_h)
            return np.tanh(pre)
    """),
    ("step", "rnn_step.py", "step.transposed_recurrent", """
        def rnn_step(x_t, h_prev, W_x, W_h, b):
            out = np.empty((x_t.shape[0], W_h.shape[0]))
            for i in range(x_t.shape[0]):
                out[i] = np.tanh(np.dot(x_t[i], W_x) + np.dot(W_h, h_prev[i]) + b)
            return out
    """),
    ("forward", "rnn_forward.py", "forward.state_not_carried", """
        def rnn_forward(X, W_x, W_h, b, h0=None):
            B, T, _ = X.shape
            start = np.zeros((B, W_h.shape[0])) if h0 is None else h0
            states, t = [], 0
            while t < T:
                states.append(np.tanh(X[:, t] @ W_x + start @ W_h + b))
                t += 1
            return np.stack(states, axis=1)
    """),
    ("masking", "masking.py", "masking.padding_state", """
        def last_valid_state(Hs, lengths):
            return np.array([Hs[i, Hs.shape[1] - 1] for i in range(Hs.shape[0])])
    """),
    ("clipping", "bptt.py", "clipping.per_tensor", """
        def clip_by_global_norm(grads, max_norm):
            total = float(np.sqrt(sum((g ** 2).sum() for g in grads.values())))
            return {k: g * min(1.0, max_norm / max(np.linalg.norm(g), 1e-300)) for k, g in grads.items()}, total
    """),
    ("gradient_flow", "gradient_flow.py", "gradient_flow.spectral_norm", """
        def spectral_radius(W):
            return float(np.linalg.svd(W, compute_uv=False).max())
    """),
]


@pytest.mark.parametrize("exercise, file, mistake, source", STYLES, ids=[s[2] for s in STYLES])
def test_a_mistake_in_another_style_is_named(grade, tmp_path, exercise, file, mistake, source):
    folder = copy_reference(tmp_path / "student")
    path = folder / file
    path.write_text(path.read_text() + "\n\nimport numpy as np\n" + textwrap.dedent(source))
    result = grade(folder, [exercise])
    names = [d.id for d in result.exercises[0].diagnoses]
    assert mistake in names, names
    assert result.exercises[0].score < result.exercises[0].max_score
