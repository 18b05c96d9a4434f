# mistake: tinyrnn.grads_of_sum
# the loss a mean, the gradient of the logits that of the sum (the mask multiplied in)
# base: right/onehot_and_reuse.py (these definitions are appended to it, replacing its own)

def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    tokens = np.asarray(tokens)
    targets = np.asarray(targets)
    V = params["E"].shape[0]
    logits, Hs = tiny_rnn_forward(tokens, params, h0)
    loss = np.float64(masked_cross_entropy(logits, targets, lengths))
    mask = sequence_mask(lengths, tokens.shape[1])
    count = max(int(mask.sum()), 1)
    z = logits - logits.max(axis=-1, keepdims=True)
    probs = np.exp(z)
    probs /= probs.sum(axis=-1, keepdims=True)
    dlogits = (probs - np.eye(V)[targets]) * mask[..., None]
    back = rnn_backward(embed(tokens, params["E"]), params["W_x"], params["W_h"], params["b"],
                        dlogits @ params["W_o"].T, h0)
    onehot = _rows(np.eye(V)[tokens])
    grads = {"dE": onehot.T @ _rows(back["dX"]), "dW_x": back["dW_x"], "dW_h": back["dW_h"],
             "db": back["db"], "dW_o": _rows(Hs).T @ _rows(dlogits), "db_o": _rows(dlogits).sum(axis=0)}
    return loss, grads
