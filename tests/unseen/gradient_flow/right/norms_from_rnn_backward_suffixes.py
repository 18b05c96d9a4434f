# right: dL/dh_t is the dh0 of rnn_backward over the rest of the sequence, started from h_t

from bptt import rnn_backward
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    out = np.empty(T)
    out[T - 1] = np.sqrt(B * H)
    for t in range(T - 1):
        rest = X[:, t + 1:]
        dHs = np.zeros((B, T - 1 - t, H))
        dHs[:, -1] = 1.0
        out[t] = np.linalg.norm(rnn_backward(rest, W_x, W_h, b, dHs, h0=Hs[:, t])["dh0"])
    return out
