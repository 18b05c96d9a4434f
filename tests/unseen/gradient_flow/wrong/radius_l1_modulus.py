# wrong: |re| + |im| instead of the modulus

def spectral_radius(W):
    ev = np.linalg.eigvals(W)
    return float(np.max(np.abs(ev.real) + np.abs(ev.imag)))
