"""The largest singular value from an SVD is returned instead of the largest eigenvalue modulus."""
import numpy as np


def spectral_radius(W):
    s = np.linalg.svd(W, compute_uv=False)
    return float(s[0])
