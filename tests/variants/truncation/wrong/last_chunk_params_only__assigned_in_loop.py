"""truncation.last_chunk_params_only: chunks walked forward in time, each chunk's parameter sums kept in
locals and ASSIGNED to dW_x, dW_h, db when the chunk ends, so the final chunk's sums are returned."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    hs = [np.zeros((B, H)) if h0 is None else h0]
    for t in range(T):
        hs.append(np.tanh(X[:, t] @ W_x + hs[-1] @ W_h + b))
    dX = np.zeros((B, T, d))
    dh0 = np.zeros((B, H))
    for s in range(0, T, k):
        gx, gh, gb = 0, 0, 0
        carry = np.zeros((B, H))
        for t in range(min(s + k, T) - 1, s - 1, -1):
            da = (dHs[:, t] + carry) * (1 - hs[t + 1] ** 2)
            dX[:, t] = da @ W_x.T
            gx = gx + X[:, t].T @ da
            gh = gh + hs[t].T @ da
            gb = gb + da.sum(axis=0)
            carry = da @ W_h.T
        if s == 0:
            dh0 = carry
        dW_x, dW_h, db = gx, gh, gb
    return {"dX": dX, "dh0": dh0, "dW_x": dW_x, "dW_h": dW_h, "db": db}
