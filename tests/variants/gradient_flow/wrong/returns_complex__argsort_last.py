"""gradient_flow.returns_complex: eigenvalues sorted by modulus with argsort, the last one returned (itself)."""
import numpy as np


def spectral_radius(W):
    ev = np.linalg.eigvals(W)
    return ev[np.argsort(np.abs(ev), kind="stable")[-1]]
