def pairwise_sq_dists(A, B):
    # Centring both sets on A's mean (for stability) leaves the distances right, but in place.
    centre = A.mean(axis=0)
    A -= centre
    B -= centre
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1)
