# correct code written another way: full marks, no diagnosis


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=float)
    m = np.max(z, axis=axis, keepdims=True)
    lse = m + np.log(np.sum(np.exp(z - m), axis=axis, keepdims=True))
    return np.exp(z - lse)


def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    B = X.shape[0]
    H = W_h.shape[0]
    last = np.zeros((B, H))
    for i in range(B):
        h = np.zeros(H)
        for t in range(int(lengths[i])):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
        last[i] = h
    return softmax(last @ W_o + b_o)
