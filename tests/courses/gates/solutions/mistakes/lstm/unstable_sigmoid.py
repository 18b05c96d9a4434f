def _sigmoid(z):
    e = np.exp(z)
    return e / (1.0 + e)      # inf / inf for z = +1000
