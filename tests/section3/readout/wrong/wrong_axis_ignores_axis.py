# mistake: readout.wrong_axis


def softmax(z, axis=-1):
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max(axis=-1)[..., None])
    return e / e.sum(axis=-1)[..., None]
