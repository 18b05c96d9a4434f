"""gradient_flow.returns_complex: a loop keeping the biggest eigenvalue seen so far (itself, not its size)."""
import numpy as np


def spectral_radius(W):
    best = None
    for lam in np.linalg.eigvals(W):
        if best is None or np.sqrt(lam.real ** 2 + lam.imag ** 2) > np.sqrt(best.real ** 2 + best.imag ** 2):
            best = lam
    return best
