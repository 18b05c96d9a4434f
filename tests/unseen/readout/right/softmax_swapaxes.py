# right: swapaxes to the end and back, sums re-expanded with [..., None]

def softmax(z, axis=-1):
    w = np.swapaxes(z, axis, -1)
    w = w - np.max(w, axis=-1)[..., None]
    p = np.exp(w) / np.exp(w).sum(axis=-1)[..., None]
    return np.swapaxes(p, axis, -1)
