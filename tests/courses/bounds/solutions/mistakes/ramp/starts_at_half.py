def ramp(n):
    return (np.arange(n, dtype=np.float64) + 1) * 0.5
