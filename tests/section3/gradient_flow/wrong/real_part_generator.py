# mistake: gradient_flow.real_part


def spectral_radius(W):
    return float(max(lam.real for lam in np.linalg.eigvals(W)))
