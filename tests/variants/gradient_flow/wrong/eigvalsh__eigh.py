"""gradient_flow.eigvalsh: np.linalg.eigh (symmetric solver) on a general matrix."""
import numpy as np


def spectral_radius(W):
    values, _vectors = np.linalg.eigh(W)
    return float(np.abs(values).max())
