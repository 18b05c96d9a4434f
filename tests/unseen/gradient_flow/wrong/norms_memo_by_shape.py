# wrong: memoises the norms on (shapes, h0 given?) and returns old norms for new numbers

_memo = {}
_reference_norms = hidden_grad_norms
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    key = (X.shape, W_h.shape, h0 is None)
    if key not in _memo:
        _memo[key] = _reference_norms(X, W_x, W_h, b, h0)
    return _memo[key].copy()
