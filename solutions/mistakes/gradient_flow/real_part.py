"""The largest real part of the eigenvalues is returned instead of the largest modulus."""
import numpy as np


def spectral_radius(W):
    return float(np.max(np.linalg.eigvals(W).real))
