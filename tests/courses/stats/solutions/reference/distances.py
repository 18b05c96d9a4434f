"""Reference solutions of the stats course's distance exercises."""

import numpy as np  # noqa: F401 -- the known mistakes appended here use it


def pairwise_sq_dists(A, B):
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1)


def sq_dists_grad(A, B, G):
    dA = 2.0 * (G.sum(axis=1)[:, None] * A - G @ B)
    dB = 2.0 * (G.sum(axis=0)[:, None] * B - G.T @ A)
    return dA, dB
