"""The eigenvalue of largest modulus itself is returned (possibly complex or negative), not its modulus."""
import numpy as np


def spectral_radius(W):
    ev = np.linalg.eigvals(W)
    return ev[np.argmax(np.abs(ev))]
