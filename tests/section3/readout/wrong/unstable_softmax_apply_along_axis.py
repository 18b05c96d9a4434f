# mistake: readout.unstable_softmax
# hidden_evidence: only the hidden softmax_stable (logits of 1e3) shows it.


def softmax(z, axis=-1):
    def one(v):
        e = np.exp(v)
        return e / e.sum()
    return np.apply_along_axis(one, axis, z)
