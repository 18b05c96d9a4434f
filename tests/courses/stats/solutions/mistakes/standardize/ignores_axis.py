def standardize(X, axis=0, eps=1e-8):
    # Always along the columns, whatever axis is asked for.
    return (X - X.mean(axis=0, keepdims=True)) / (X.std(axis=0, keepdims=True) + eps)
