# wrong: sample 0's gradient norm scaled by sqrt(B) stands for the batch

def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    out = np.zeros(T)
    dh = np.ones(H)
    for t in reversed(range(T)):
        out[t] = np.linalg.norm(dh) * np.sqrt(B)     # sample 0 stands for the batch
        dh = (dh * (1 - Hs[0, t] ** 2)) @ W_h.T
    return out
