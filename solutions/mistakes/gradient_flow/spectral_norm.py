"""The largest singular value (spectral norm) is returned instead of the spectral radius."""
import numpy as np


def spectral_radius(W):
    return float(np.linalg.norm(W, 2))
