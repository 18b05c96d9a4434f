# mistake: readout.unstable_softmax
# hidden_evidence: only the hidden softmax_stable (logits of 1e3) shows it.


def softmax(z, axis=-1):
    # no shift; a non-finite result replaced by uniform probabilities: finite garbage where the
    # catalogued one gives NaN
    e = np.exp(z)
    p = e / np.sum(e, axis=axis, keepdims=True)
    return np.where(np.isfinite(p), p, 1.0 / z.shape[axis])
