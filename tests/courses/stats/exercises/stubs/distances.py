"""Distances between point sets: implement the functions below (see the statements)."""

import numpy as np  # noqa: F401


def pairwise_sq_dists(A, B):
    """D[i, j] = sum_k (A[i, k] - B[j, k]) ** 2, of shape (n, m)."""
    raise NotImplementedError


def sq_dists_grad(A, B, G):
    """(dL/dA, dL/dB) for L = sum(pairwise_sq_dists(A, B) * G)."""
    raise NotImplementedError
