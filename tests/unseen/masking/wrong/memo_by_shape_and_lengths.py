# wrong: memoises on (shape, lengths, h0 given?) and returns an old result for new data

_memo = {}
_reference_forward = rnn_forward_masked
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    key = (X.shape, W_h.shape, tuple(np.asarray(lengths).tolist()), h0 is None)
    if key not in _memo:
        _memo[key] = _reference_forward(X, lengths, W_x, W_h, b, h0)
    Hs, h = _memo[key]
    return Hs.copy(), h.copy()
