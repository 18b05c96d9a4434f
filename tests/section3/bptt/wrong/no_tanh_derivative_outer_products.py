# mistake: bptt.no_tanh_derivative


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    # one example at a time, outer products accumulated in place
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
            g = g + dHs[i, t]
            grads["dW_x"] += np.outer(X[i, t], g)
            grads["dW_h"] += np.outer(states[t], g)
            grads["db"] += g
            grads["dX"][i, t] = W_x @ g
            g = W_h @ g
        grads["dh0"][i] = g
    return grads
