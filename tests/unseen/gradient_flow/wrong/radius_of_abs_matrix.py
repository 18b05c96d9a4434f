# wrong: eigenvalues of |W| (entrywise) instead of W

def spectral_radius(W):
    return float(np.max(np.abs(np.linalg.eigvals(np.abs(W)))))
