def standardize(X, axis=0, eps=1e-8):
    # var = E[X^2] - E[X]^2: catastrophic cancellation when the mean is large.
    mean = X.mean(axis=axis, keepdims=True)
    var = (X ** 2).mean(axis=axis, keepdims=True) - mean ** 2
    return (X - mean) / (np.sqrt(np.maximum(var, 0.0)) + eps)
