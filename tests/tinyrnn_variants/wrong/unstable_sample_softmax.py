# mistake: tinyrnn.unstable_sample_softmax
# exp written as np.power(np.e, .), no shift
# base: right/time_major.py (these definitions are appended to it, replacing its own)

def _stable_softmax(z):
    e = np.power(np.e, z)
    return e / np.sum(e)
