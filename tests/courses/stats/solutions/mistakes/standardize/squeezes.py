def standardize(X, axis=0, eps=1e-8):
    # Squeezing the result drops an axis of size 1.
    Z = (X - X.mean(axis=axis, keepdims=True)) / (X.std(axis=axis, keepdims=True) + eps)
    return np.squeeze(Z)
