# mistake: tinyrnn.embedding_grad_overwritten
# the embedding gradient overwritten position by position in a Python loop (last one wins)
# base: right/einsum.py (these definitions are appended to it, replacing its own)

def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    tokens = np.asarray(tokens, dtype=np.intp)
    targets = np.asarray(targets, dtype=np.intp)
    B, T = tokens.shape
    V = params["E"].shape[0]
    H = params["W_h"].shape[0]
    valid = (np.arange(T)[None, :] < np.asarray(lengths)[:, None]).astype(float)
    N = valid.sum()
    if N == 0:
        return 0.0, {"d" + k: np.zeros_like(params[k], dtype=float) for k in NAMES}
    X = embed(tokens, params["E"])
    logits, Hs = tiny_rnn_forward(tokens, params, h0)
    m = logits.max(axis=2, keepdims=True)
    logZ = m[..., 0] + np.log(np.exp(logits - m).sum(axis=2))
    onehot = np.eye(V)[targets]
    nll = logZ - np.einsum("btv,btv->bt", logits, onehot)
    loss = float(np.einsum("bt,bt->", nll, valid) / N)

    P = np.exp(logits - logZ[..., None])
    dZ = (P - onehot) * (valid / N)[..., None]
    dW_o = np.einsum("bth,btv->hv", Hs, dZ)
    db_o = np.einsum("btv->v", dZ)
    dHs = np.einsum("btv,hv->bth", dZ, params["W_o"])
    h_init = np.zeros((B, H)) if h0 is None else np.asarray(h0, dtype=float)
    H_prev = np.concatenate([h_init[:, None, :], Hs[:, :-1]], axis=1)
    dA = np.zeros_like(Hs)
    carry = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + carry) * (1.0 - Hs[:, t] ** 2)
        carry = np.einsum("bh,ih->bi", dA[:, t], params["W_h"])
    dX = np.einsum("bth,dh->btd", dA, params["W_x"])
    dE = np.zeros_like(params["E"], dtype=float)
    for i in range(B):
        for t in range(T):
            dE[tokens[i, t]] = dX[i, t]
    db = np.einsum("bth->h", dA)
    grads = {"dE": dE, "dW_x": np.einsum("btd,bth->dh", X, dA),
             "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": db, "dW_o": dW_o, "db_o": db_o}
    return loss, grads
