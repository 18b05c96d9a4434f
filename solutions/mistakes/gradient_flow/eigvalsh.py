"""np.linalg.eigvalsh is used, which assumes a symmetric matrix and gives wrong eigenvalues for a general W."""
import numpy as np


def spectral_radius(W):
    return float(np.max(np.abs(np.linalg.eigvalsh(W))))
