# mistake: gradient_flow.spectral_norm


def spectral_radius(W):
    # power iteration on W^T W
    v = np.ones(W.shape[1]) / np.sqrt(W.shape[1])
    sigma = 0.0
    for _ in range(20000):
        w = W.T @ (W @ v)
        v = w / np.linalg.norm(w)
        new = float(np.linalg.norm(W @ v))
        if abs(new - sigma) <= 1e-15 * new:
            break
        sigma = new
    return float(np.linalg.norm(W @ v))
