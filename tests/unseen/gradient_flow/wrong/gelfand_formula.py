# wrong: Gelfand's formula ||W^k||^(1/k) stopped at k = 60

def spectral_radius(W):
    k = 60                                   # rho(W) = lim ||W^k||^(1/k), stopped at k = 60
    P = np.linalg.matrix_power(W / np.linalg.norm(W), k)
    return float(np.linalg.norm(P) ** (1.0 / k) * np.linalg.norm(W))
