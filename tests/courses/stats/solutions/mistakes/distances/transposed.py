def pairwise_sq_dists(A, B):
    # (m, n): one row per point of B instead of A.
    return ((B[:, None, :] - A[None, :, :]) ** 2).sum(axis=-1)
