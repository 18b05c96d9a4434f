# mistake: gradient_flow.spectral_norm


def spectral_radius(W, ord=2):
    # the mistake only in a default argument: the matrix 2-norm
    return float(np.linalg.norm(W, ord=ord))
