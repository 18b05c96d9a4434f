# wrong: memoises on id() of the arguments; ids are reused once earlier arrays are freed

_cache = {}
def rnn_step(x_t, h_prev, W_x, W_h, b):
    key = (id(x_t), id(h_prev), id(W_x), id(W_h), id(b))
    if key not in _cache:
        _cache[key] = np.tanh(x_t @ W_x + h_prev @ W_h + b)
    return _cache[key]
