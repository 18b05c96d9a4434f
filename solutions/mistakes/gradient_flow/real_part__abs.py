"""The largest absolute real part is returned, which ignores the imaginary parts of complex eigenvalues."""
import numpy as np


def spectral_radius(W):
    return float(np.max(np.abs(np.real(np.linalg.eigvals(W)))))
