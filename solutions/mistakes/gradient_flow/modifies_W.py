"""spectral_radius normalises W in place (W /= ...) to avoid overflow, which changes the caller's matrix."""
import numpy as np


def spectral_radius(W):
    scale = np.abs(W).max()
    if scale == 0:
        return 0.0
    W /= scale
    return float(np.max(np.abs(np.linalg.eigvals(W))) * scale)
