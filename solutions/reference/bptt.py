"""Backpropagation through time, global-norm clipping and truncated BPTT."""
import numpy as np

from rnn_forward import rnn_forward


def _backward(X, W_x, W_h, b, dHs, h0, k):
    """BPTT for L = sum(Hs * dHs); no gradient crosses a multiple of k."""
    B, T, _ = X.shape
    H = W_h.shape[0]
    if h0 is None:
        h0 = np.zeros((B, H))
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    H_prev = np.concatenate([h0[:, None, :], Hs], axis=1)[:, :T]  # h_{t-1}

    dA = np.zeros((B, T, H))       # gradient w.r.t. the pre-activation a_t
    dh_next = np.zeros((B, H))     # gradient arriving from step t+1
    for t in reversed(range(T)):
        dh = dHs[:, t] + dh_next
        dA[:, t] = dh * (1.0 - Hs[:, t] ** 2)          # tanh'(a) = 1 - h^2
        dh_next = dA[:, t] @ W_h.T                     # into h_{t-1}
        if t % k == 0 and t > 0:
            dh_next = np.zeros((B, H))                 # chunk boundary: cut

    # Shared parameters: the gradients of all time steps are summed.
    return {
        "dX": dA @ W_x.T,
        "dh0": dh_next,
        "dW_x": np.einsum("btd,bth->dh", X, dA),
        "dW_h": np.einsum("bti,bth->ih", H_prev, dA),
        "db": dA.sum(axis=(0, 1)),
    }


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    """Gradients of L = sum(Hs * dHs) for Hs = rnn_forward(X, W_x, W_h, b, h0).

    dHs (B, T, H) is the upstream gradient of every state. Returns a dict
    with dX (B, T, d), dh0 (B, H), dW_x (d, H), dW_h (H, H), db (H,).
    """
    return _backward(X, W_x, W_h, b, dHs, h0, k=max(X.shape[1], 1))


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    """Truncated BPTT over the chunks [0, k), [k, 2k), ...

    The state entering each chunk is a constant, so no gradient crosses a
    chunk boundary; parameter gradients sum over all chunks and dh0 comes
    from the first chunk only. k >= T gives rnn_backward. Same dict as
    rnn_backward.
    """
    if int(k) < 1:
        raise ValueError("k must be a positive integer")
    return _backward(X, W_x, W_h, b, dHs, h0, k=int(k))


def clip_by_global_norm(grads, max_norm):
    """Scale all gradients together so their joint L2 norm is <= max_norm.

    grads is a dict name -> array. Returns (new dict, total norm before
    clipping as a float); the direction of the whole gradient is kept.
    """
    total_norm = float(np.sqrt(sum(np.sum(np.square(g)) for g in grads.values())))
    scale = max_norm / total_norm if total_norm > max_norm else 1.0
    clipped = {name: np.asarray(g, dtype=float) * scale for name, g in grads.items()}
    return clipped, total_norm
