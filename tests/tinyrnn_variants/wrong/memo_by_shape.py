# mistake: tinyrnn.memo_by_shape
# results kept in an attribute of the function, keyed on a string of the shapes
# base: right/loops.py (these definitions are appended to it, replacing its own)

_computed = tiny_rnn_loss


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    key = f"{np.shape(tokens)}|{params['E'].shape}|{params['W_h'].shape}"
    if key not in tiny_rnn_loss.seen:
        tiny_rnn_loss.seen[key] = _computed(tokens, targets, lengths, params, h0)
    return tiny_rnn_loss.seen[key]


tiny_rnn_loss.seen = {}
