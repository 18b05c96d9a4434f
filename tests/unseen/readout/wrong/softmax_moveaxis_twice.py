# wrong: np.moveaxis(axis -> -1) applied twice instead of undone: right for 2-D and the middle axis of 3-D,
# wrong for axis 0 of 3-D

def softmax(z, axis=-1):
    w = np.moveaxis(z, axis, -1)
    e = np.exp(w - w.max(axis=-1, keepdims=True))
    return np.moveaxis(e / e.sum(axis=-1, keepdims=True), axis, -1)   # the same move again, not its inverse
