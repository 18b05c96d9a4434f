"""gradient_flow.returns_complex: the eigenvalue with the largest modulus, picked with max(key=abs)."""
import numpy as np


def spectral_radius(W):
    return max(np.linalg.eigvals(W), key=abs)
