# mistake: readout.unstable_softmax
# hidden_evidence: only the hidden softmax_stable (logits of 1e3) shows it.


def softmax(z, axis=-1):
    num = np.exp(z)
    den = np.expand_dims(np.sum(num, axis=axis), axis)
    return num / den
