"""gradient_flow.eigvalsh: eigvalsh sorts ascending, so the largest modulus is at one of the two ends."""
import numpy as np


def spectral_radius(W):
    vals = np.linalg.eigvalsh(W)
    return float(max(-vals[0], vals[-1]))
