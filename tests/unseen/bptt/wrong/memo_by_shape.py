# wrong: memoises the gradients on the shapes (ignoring h0 and the values)

_memo = {}
_reference_backward = rnn_backward
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    key = (X.shape, W_h.shape)
    if key not in _memo:
        _memo[key] = _reference_backward(X, W_x, W_h, b, dHs, h0)
    return {name: g.copy() for name, g in _memo[key].items()}
