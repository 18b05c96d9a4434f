"""gradient_flow.modifies_W: W *= 1 / (largest |entry|) to keep the numbers small, the answer scaled back."""
import numpy as np


def spectral_radius(W):
    biggest = float(abs(W).max())
    if biggest == 0.0:
        return 0.0
    W *= 1.0 / biggest
    radius = 0.0
    for lam in np.linalg.eigvals(W):
        radius = max(radius, abs(lam))
    return float(radius * biggest)
