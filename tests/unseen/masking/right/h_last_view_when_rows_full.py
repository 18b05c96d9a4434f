# right: fast path when no row is padded: h_last returned as the view Hs[:, -1]

_reference_fm = rnn_forward_masked
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    lengths = np.asarray(lengths)
    if len(lengths) and X.shape[1] and np.all(lengths == X.shape[1]):
        from rnn_forward import rnn_forward
        Hs = rnn_forward(X, W_x, W_h, b, h0)
        return Hs, Hs[:, -1]                 # a view into Hs
    return _reference_fm(X, lengths, W_x, W_h, b, h0)
