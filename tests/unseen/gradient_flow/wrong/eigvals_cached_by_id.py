# wrong: caches eigenvalues on id(W); a new matrix that reuses the id gets old eigenvalues

_eig = {}
def spectral_radius(W):
    if id(W) not in _eig:
        _eig[id(W)] = np.linalg.eigvals(W)
    return float(np.max(np.abs(_eig[id(W)])))
