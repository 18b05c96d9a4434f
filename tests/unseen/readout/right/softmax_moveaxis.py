# right: move the axis last, work on rows, move it back (returns a non-contiguous view)

def softmax(z, axis=-1):
    w = np.moveaxis(z, axis, -1)
    e = np.exp(w - w.max(axis=-1, keepdims=True))
    return np.moveaxis(e / e.sum(axis=-1, keepdims=True), -1, axis)
