# wrong: memoises on (shapes, lengths) and returns an old answer for new numbers

_memo = {}
_reference_probs = many_to_one_probs
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    key = (X.shape, W_o.shape, tuple(np.asarray(lengths).tolist()))
    if key not in _memo:
        _memo[key] = _reference_probs(X, lengths, W_x, W_h, b, W_o, b_o)
    return _memo[key].copy()
