# right: unmasked rnn_forward (causal: padding only spoils states after L-1) plus a length-0 guard

from rnn_forward import rnn_forward
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    lengths = np.asarray(lengths)
    B, T, _ = X.shape
    H = W_h.shape[0]
    with np.errstate(all="ignore"):
        Hs = rnn_forward(X, W_x, W_h, b)     # padding (NaN, inf) only spoils states after L-1
    if T == 0:
        h_last = np.zeros((B, H))
    else:
        picked = Hs[np.arange(B), np.clip(lengths - 1, 0, T - 1)]
        h_last = np.where((lengths > 0)[:, None], picked, 0.0)
    return softmax(h_last @ W_o + b_o)
