# wrong: keepdims only for the last axis: left-broadcasting works for axis 0 and 2-D, not a middle axis

def softmax(z, axis=-1):
    if axis in (-1, z.ndim - 1):
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    e = np.exp(z - z.max(axis=axis))         # broadcasting from the left is right for axis 0 ...
    return e / e.sum(axis=axis)              # ... and for axis -2 of a 2-D array, not for a middle axis
