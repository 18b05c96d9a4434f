# right: the radius of W @ W is the square of the radius of W

def spectral_radius(W):
    return float(np.sqrt(np.max(np.abs(np.linalg.eigvals(W @ W)))))
