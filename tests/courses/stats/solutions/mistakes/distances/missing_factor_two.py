def pairwise_sq_dists(A, B):
    # The expansion |a|^2 + |b|^2 - 2 a.b with the 2 forgotten.
    return (A ** 2).sum(axis=1)[:, None] + (B ** 2).sum(axis=1)[None, :] - A @ B.T
