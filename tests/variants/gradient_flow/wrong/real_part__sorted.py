"""gradient_flow.real_part: the eigenvalues' real parts, the largest in magnitude kept."""
import numpy as np


def spectral_radius(W):
    parts = sorted(float(abs(np.real(v))) for v in np.linalg.eigvals(W))
    return parts[-1]
