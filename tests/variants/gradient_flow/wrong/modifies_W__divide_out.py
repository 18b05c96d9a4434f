"""gradient_flow.modifies_W: W scaled by its largest entry with np.divide(..., out=W), the result scaled back."""
import numpy as np


def spectral_radius(W):
    m = np.max(np.abs(W))
    if m > 0:
        np.divide(W, m, out=W)
    else:
        m = 1.0
    lam = np.linalg.eigvals(W)
    return float(m * np.max(np.sqrt(lam.real ** 2 + lam.imag ** 2)))
