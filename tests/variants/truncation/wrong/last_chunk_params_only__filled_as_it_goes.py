"""truncation.last_chunk_params_only: the result dict is filled as the chunks are walked forward in
time; each chunk writes its own parameter sums (=, not +=) and dh0 is added after the loop."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    hs = [np.zeros((B, H)) if h0 is None else h0]
    for t in range(T):
        hs.append(np.tanh(X[:, t] @ W_x + hs[-1] @ W_h + b))
    grads = {"dX": np.zeros((B, T, d))}
    first_leaving = np.zeros((B, H))
    for s in range(0, T, k):
        gx, gh, gb = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H)
        carry = np.zeros((B, H))
        for t in range(min(s + k, T) - 1, s - 1, -1):
            da = (dHs[:, t] + carry) * (1 - hs[t + 1] ** 2)
            grads["dX"][:, t] = da @ W_x.T
            gx += X[:, t].T @ da
            gh += hs[t].T @ da
            gb += da.sum(axis=0)
            carry = da @ W_h.T
        grads["dW_x"], grads["dW_h"], grads["db"] = gx, gh, gb
        if s == 0:
            first_leaving = carry
    grads["dh0"] = first_leaving
    return grads
