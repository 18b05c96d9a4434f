# mistake: masking.padding_in_loss


def masked_cross_entropy(logits, targets, lengths):
    B, T, _ = logits.shape
    logp = log_softmax(logits, axis=-1)
    nll = -logp[np.arange(B)[:, None], np.arange(T)[None, :], np.asarray(targets)]
    return float(np.mean(nll))
