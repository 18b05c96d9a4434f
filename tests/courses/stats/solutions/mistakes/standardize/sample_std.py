def standardize(X, axis=0, eps=1e-8):
    # The sample standard deviation (ddof=1) instead of the population one.
    return (X - X.mean(axis=axis, keepdims=True)) / (X.std(axis=axis, ddof=1, keepdims=True) + eps)
