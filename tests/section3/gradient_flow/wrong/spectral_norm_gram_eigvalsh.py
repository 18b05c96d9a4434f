# mistake: gradient_flow.spectral_norm


def spectral_radius(W):
    # the square root of the largest eigenvalue of W^T W: the largest singular value
    return float(np.sqrt(np.max(np.linalg.eigvalsh(W.T @ W))))
