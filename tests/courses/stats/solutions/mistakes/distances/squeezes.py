def pairwise_sq_dists(A, B):
    # np.squeeze drops the axis of a single point.
    return np.squeeze(((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1))
