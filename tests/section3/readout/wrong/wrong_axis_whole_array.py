# mistake: readout.wrong_axis


def softmax(z, axis=-1):
    flat = np.ravel(z)
    e = np.exp(z - flat.max())
    return e / np.sum(e)
