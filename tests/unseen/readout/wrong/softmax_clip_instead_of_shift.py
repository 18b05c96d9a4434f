# wrong: np.clip(z, -500, 500) instead of a shift: different logits become equal

def softmax(z, axis=-1):
    e = np.exp(np.clip(z, -500.0, 500.0))
    return e / e.sum(axis=axis, keepdims=True)
