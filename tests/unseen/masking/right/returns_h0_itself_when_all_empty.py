# right: fast path when every length is 0: h0 itself returned as h_last (not modified)

_reference_fm = rnn_forward_masked
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    if h0 is not None and not np.any(np.asarray(lengths)):
        return np.zeros((B, T, H)), h0           # nothing to run: the start state is the final state
    return _reference_fm(X, lengths, W_x, W_h, b, h0)
