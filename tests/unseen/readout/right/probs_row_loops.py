# right: per row, rnn_step over the valid prefix, einsum for the head

from rnn_step import rnn_step
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    B = X.shape[0]
    out = []
    for i in range(B):
        h = np.zeros((1, W_h.shape[0]))
        for t in range(int(lengths[i])):
            h = rnn_step(X[i:i + 1, t], h, W_x, W_h, b)
        out.append(softmax(np.einsum("bh,hc->bc", h, W_o) + b_o)[0])
    return np.array(out)
