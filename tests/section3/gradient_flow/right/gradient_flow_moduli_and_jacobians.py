# correct code written another way: full marks, no diagnosis


def spectral_radius(W):
    return max(abs(complex(lam)) for lam in np.linalg.eigvals(W))


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    # the chain of Jacobians written out per example
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    grads = np.zeros((B, T, H))
    grads[:, T - 1] = 1.0
    for t in range(T - 1, 0, -1):
        for i in range(B):
            J = np.diag(1.0 - Hs[i, t] ** 2) @ W_h.T       # d h_t / d h_(t-1), rows h_t
            grads[i, t - 1] = grads[i, t] @ J
    return np.sqrt(np.einsum("bth,bth->t", grads, grads))
