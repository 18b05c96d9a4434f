# wrong: shift by the mean instead of the max: overflows for spread-out logits

def softmax(z, axis=-1):
    e = np.exp(z - z.mean(axis=axis, keepdims=True))     # centred, but still overflows for spread-out logits
    return e / e.sum(axis=axis, keepdims=True)
