# mistake: tinyrnn.ignores_h0
# every row started from zeros in the loop forward
# base: right/loops.py (these definitions are appended to it, replacing its own)

def tiny_rnn_forward(tokens, params, h0=None):
    X = embed(tokens, params["E"])
    B, T, _ = X.shape
    H = params["W_h"].shape[0]
    V = params["W_o"].shape[1]
    Hs = np.zeros((B, T, H))
    logits = np.zeros((B, T, V))
    for i in range(B):
        h = np.zeros(H)
        for t in range(T):
            h = np.tanh(X[i, t] @ params["W_x"] + h @ params["W_h"] + params["b"])
            Hs[i, t] = h
            logits[i, t] = h @ params["W_o"] + params["b_o"]
    return logits, Hs
