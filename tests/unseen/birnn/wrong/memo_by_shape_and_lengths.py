# wrong: memoises on (shapes, lengths, h0 given?) and returns an old result for new data

_memo = {}
_reference_birnn = birnn_forward
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    key = (X.shape, fwd[1].shape, tuple(np.asarray(lengths).tolist()), h0 is None)
    if key not in _memo:
        _memo[key] = _reference_birnn(X, lengths, fwd, bwd, h0)
    return _memo[key].copy()
