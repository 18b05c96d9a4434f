# mistake: bptt.last_step_only


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    grads = {"dX": np.zeros_like(X)}
    upstream = np.zeros((B, H))
    for t in reversed(range(T)):
        pre_grad = (dHs[:, t] + upstream) * (1.0 - Hs[:, t] * Hs[:, t])
        before = Hs[:, t - 1] if t > 0 else h0
        grads["dW_x"] = np.dot(X[:, t].T, pre_grad)      # overwritten: step 0's is kept
        grads["dW_h"] = np.dot(before.T, pre_grad)
        grads["db"] = pre_grad.sum(axis=0)
        grads["dX"][:, t] = np.dot(pre_grad, W_x.T)
        upstream = np.dot(pre_grad, W_h.T)
    grads["dh0"] = upstream
    return grads
