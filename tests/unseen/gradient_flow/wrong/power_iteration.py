# wrong: power iteration with the norm ratio; no convergence for complex or +/- pairs

def spectral_radius(W):
    v = np.ones(W.shape[0]) / np.sqrt(W.shape[0])
    ratio = 0.0
    for _ in range(500):
        w = W @ v
        ratio = np.linalg.norm(w)
        if ratio == 0:
            return 0.0
        v = w / ratio
    return float(ratio)
