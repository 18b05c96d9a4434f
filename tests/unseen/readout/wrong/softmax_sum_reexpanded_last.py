# wrong: the denominator loses its axis and is re-expanded at the end

def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis)[..., None]
