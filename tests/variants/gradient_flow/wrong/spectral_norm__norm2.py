"""gradient_flow.spectral_norm: np.linalg.norm(W, 2), the largest singular value."""
import numpy as np


def spectral_radius(W):
    return float(np.linalg.norm(W, 2))
