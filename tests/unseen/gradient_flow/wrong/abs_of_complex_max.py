# wrong: abs() of the "largest" complex eigenvalue (complex max compares real parts first)

def spectral_radius(W):
    return float(np.abs(np.linalg.eigvals(W).max()))
