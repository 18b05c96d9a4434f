"""gradient_flow.real_part: the largest absolute real part of the eigenvalues."""
import numpy as np


def spectral_radius(W):
    return float(np.max(np.abs(np.linalg.eigvals(W).real)))
