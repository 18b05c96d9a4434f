# wrong: memoises on (shapes, k, h0 given?) and returns old gradients for new numbers

_memo = {}
_reference_truncated = truncated_rnn_backward
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    key = (X.shape, W_h.shape, int(k), h0 is None)
    if key not in _memo:
        _memo[key] = _reference_truncated(X, W_x, W_h, b, dHs, k, h0)
    return {name: g.copy() for name, g in _memo[key].items()}
