_TOTALS = {}


def standardize(X, axis=0, eps=1e-8):
    # The statistics accumulate over every call, as a streaming scaler would: each call's
    # data joins the running sums of all earlier data of the same width.
    key = (axis, X.shape[1 - axis])
    count, total, squares = _TOTALS.get(key, (0, 0.0, 0.0))
    count += X.shape[axis]
    total = total + X.sum(axis=axis, keepdims=True)
    squares = squares + (X ** 2).sum(axis=axis, keepdims=True)
    _TOTALS[key] = (count, total, squares)
    mean = total / count
    std = np.sqrt(np.maximum(squares / count - mean ** 2, 0.0))
    return (X - mean) / (std + eps)
