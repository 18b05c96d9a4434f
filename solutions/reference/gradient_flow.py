"""How gradients shrink or grow when they travel back through time."""
import numpy as np

from rnn_forward import rnn_forward


def spectral_radius(W):
    """Largest modulus of the eigenvalues of W (complex ones included)."""
    return float(np.max(np.abs(np.linalg.eigvals(W))))


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    """Norms (T,) of dL/dHs[:, t] for L = sum(Hs[:, T-1]).

    Entry t is the Frobenius norm over the batch; entry T-1 is sqrt(B*H)
    because dL/dHs[:, T-1] is all ones.
    """
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    norms = np.zeros(T)
    dh = np.ones((B, H))
    for t in reversed(range(T)):
        norms[t] = np.linalg.norm(dh)
        dh = (dh * (1.0 - Hs[:, t] ** 2)) @ W_h.T      # to dL/dHs[:, t-1]
    return norms
