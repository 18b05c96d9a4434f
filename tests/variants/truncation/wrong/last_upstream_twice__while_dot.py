"""truncation.last_upstream_twice with a while loop over chunk ends and np.dot: each chunk's running
gradient is seeded with its last step's upstream, then every step adds its own upstream again."""
import numpy as np


def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[1]
    prev = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    states = [prev]
    for t in range(T):
        states.append(np.tanh(np.dot(X[:, t], W_x) + np.dot(states[-1], W_h) + b))
    out = {"dX": np.zeros((B, T, d)), "dh0": np.zeros((B, H)), "dW_x": np.zeros((d, H)),
           "dW_h": np.zeros((H, H)), "db": np.zeros(H)}
    end = T
    first_end = min(k, T)
    while end > 0:
        begin = ((end - 1) // k) * k
        run = np.array(dHs[:, end - 1])
        t = end - 1
        while t >= begin:
            g = (dHs[:, t] + run) * (1 - states[t + 1] ** 2)
            out["dW_x"] += np.dot(X[:, t].T, g)
            out["dW_h"] += np.dot(states[t].T, g)
            out["db"] += g.sum(0)
            out["dX"][:, t] = np.dot(g, W_x.T)
            run = np.dot(g, W_h.T)
            t -= 1
        if end == first_end:
            out["dh0"] = run
        end = begin
    return out
