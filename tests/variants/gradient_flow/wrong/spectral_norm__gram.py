"""gradient_flow.spectral_norm: the square root of the largest eigenvalue of W^T W."""
import numpy as np


def spectral_radius(W):
    return float(np.sqrt(np.max(np.linalg.eigvalsh(W.T @ W))))
