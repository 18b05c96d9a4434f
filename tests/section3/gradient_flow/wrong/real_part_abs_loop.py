# mistake: gradient_flow.real_part


def spectral_radius(W):
    best = 0.0
    for lam in np.linalg.eigvals(W):
        best = max(best, abs(lam.real))       # the size of the real part only
    return float(best)
