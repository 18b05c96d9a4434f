# mistake: readout.wrong_axis


def softmax(z, axis=-1):
    # normalises over axis 0, whatever axis says (broadcasting aligns the trailing axes)
    e = np.exp(z - np.amax(z, axis=0))
    return e / np.add.reduce(e, axis=0)
