# wrong: eigenvalues of W.astype(float32), returned as a float: about 3e-8 relative error

def spectral_radius(W):
    return float(np.max(np.abs(np.linalg.eigvals(W.astype(np.float32)))))
