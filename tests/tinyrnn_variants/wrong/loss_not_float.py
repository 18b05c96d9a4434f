# mistake: tinyrnn.loss_not_float
# the loss a 0-d array: np.squeeze of a keepdims mean
# base: right/time_major.py (these definitions are appended to it, replacing its own)

def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    tokens = np.asarray(tokens, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    B, T = tokens.shape
    V, d = params["E"].shape
    where = np.arange(T)[None, :] < np.asarray(lengths, dtype=np.int64)[:, None]
    N = int(np.count_nonzero(where))
    if N == 0:
        return 0.0, {"d" + k: np.zeros(params[k].shape, dtype=np.float64) for k in ORDER}
    logits, Hs = tiny_rnn_forward(tokens, params, h0)
    Z = logits[where]
    y = targets[where]
    log_partition = np.logaddexp.reduce(Z, axis=1)
    nll = log_partition - Z[np.arange(N), y]
    loss = np.squeeze(np.mean(nll, keepdims=True))
    P = np.exp(Z - log_partition[:, None])
    P[np.arange(N), y] -= 1.0
    dlogits = np.zeros((B, T, V))
    dlogits[where] = P / N
    X = embed(tokens, params["E"])
    back = truncated_rnn_backward(X, params["W_x"], params["W_h"], params["b"],
                                  np.dot(dlogits, params["W_o"].T), T, h0=h0)
    flat_dX = back["dX"].reshape(B * T, d)
    dE = np.stack([np.bincount(tokens.ravel(), weights=flat_dX[:, j], minlength=V) for j in range(d)], axis=1)
    grads = {"dE": dE, "dW_x": back["dW_x"], "dW_h": back["dW_h"], "db": back["db"],
             "dW_o": np.tensordot(Hs, dlogits, axes=([0, 1], [0, 1])), "db_o": dlogits.sum(axis=(0, 1))}
    return loss, grads
