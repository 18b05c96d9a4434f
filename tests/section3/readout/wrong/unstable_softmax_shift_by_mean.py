# mistake: readout.unstable_softmax
# hidden_evidence: only the hidden softmax_stable (logits of 1e3) shows it.


def softmax(z, axis=-1):
    # shifted by the mean, not the maximum: still overflows for logits far apart
    e = np.exp(z - z.mean(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
