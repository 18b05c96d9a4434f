# correct code written another way: full marks, no diagnosis


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    grads = {"dX": np.zeros((B, T, d)), "dh0": np.zeros((B, H)), "dW_x": np.zeros((d, H)),
             "dW_h": np.zeros((H, H)), "db": np.zeros(H)}
    for i in range(B):
        h = np.zeros(H) if h0 is None else np.array(h0[i], dtype=float)
        states = [h]
        for t in range(T):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            states.append(h)
        g = np.zeros(H)
        for t in reversed(range(T)):
            da = (g + dHs[i, t]) * (1.0 - states[t + 1] ** 2)
            grads["dW_x"] += np.outer(X[i, t], da)
            grads["dW_h"] += np.outer(states[t], da)
            grads["db"] += da
            grads["dX"][i, t] = W_x @ da
            g = W_h @ da
        grads["dh0"][i] = g
    return grads
