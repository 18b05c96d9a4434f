# right: np.linalg.eig, .item() to a Python float

def spectral_radius(W):
    values, _ = np.linalg.eig(W)
    return np.abs(values).max().item()
