def ramp(n):
    return np.arange(n, dtype=np.float64)
