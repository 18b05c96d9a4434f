"""Each chunk's forward pass restarts from a zero state instead of the carried (but constant) state."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    if h0 is None:
        h0 = np.zeros((B, H))
    grads = {"dX": np.zeros_like(X), "dh0": np.zeros((B, H)), "dW_x": np.zeros_like(W_x),
             "dW_h": np.zeros_like(W_h), "db": np.zeros_like(b)}
    for start in range(0, T, k):
        stop = min(start + k, T)
        h_in = h0 if start == 0 else np.zeros((B, H))   # 每段从零开始
        Xc = X[:, start:stop]
        g = rnn_backward(Xc, W_x, W_h, b, dHs[:, start:stop], h0=h_in)
        grads["dX"][:, start:stop] = g["dX"]
        grads["dW_x"] += g["dW_x"]
        grads["dW_h"] += g["dW_h"]
        grads["db"] += g["db"]
        if start == 0:
            grads["dh0"] = g["dh0"]
    return grads
