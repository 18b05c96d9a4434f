"""The eigenvalue of largest modulus itself is returned, the last of those tied in modulus (the other member of a
conjugate pair than np.argmax picks, as a stable argsort's last entry is)."""
import numpy as np


def spectral_radius(W):
    ev = np.linalg.eigvals(W)
    modulus = np.abs(ev)
    return ev[len(ev) - 1 - int(np.argmax(modulus[::-1]))]
