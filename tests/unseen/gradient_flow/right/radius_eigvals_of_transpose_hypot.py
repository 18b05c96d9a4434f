# right: eigenvalues of W.T (the same), modulus with np.hypot

def spectral_radius(W):
    ev = np.linalg.eigvals(np.transpose(W))          # same eigenvalues
    return float(np.max(np.hypot(ev.real, ev.imag)))
