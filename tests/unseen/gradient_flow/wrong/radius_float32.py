# wrong: returns numpy.float32, not a float (and single precision)

def spectral_radius(W):
    return np.abs(np.linalg.eigvals(W)).max().astype(np.float32)
