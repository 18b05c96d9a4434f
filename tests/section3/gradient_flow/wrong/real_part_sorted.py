# mistake: gradient_flow.real_part


def spectral_radius(W):
    return float(np.sort(np.real(np.linalg.eig(W)[0]))[-1])
