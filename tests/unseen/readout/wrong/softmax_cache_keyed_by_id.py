# wrong: caches softmax results on id(z); a new array that reuses a freed id gets an old answer

_cache = {}
def softmax(z, axis=-1):
    key = (id(z), axis)
    if key not in _cache:
        e = np.exp(z - np.max(z, axis=axis, keepdims=True))
        _cache[key] = e / e.sum(axis=axis, keepdims=True)
    return _cache[key]
