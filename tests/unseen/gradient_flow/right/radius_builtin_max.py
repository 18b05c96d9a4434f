# right: builtin max over Python complex numbers, returns numpy.float64

def spectral_radius(W):
    return max(abs(complex(ev)) for ev in np.linalg.eig(W)[0]) * np.float64(1.0)
