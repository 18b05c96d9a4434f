# mistake: tinyrnn.embed_squeezed
# the axes of size 1 dropped by hand with reshape
# base: right/time_major.py (these definitions are appended to it, replacing its own)

def embed(tokens, E):
    tokens = np.asarray(tokens, dtype=np.int64)
    rows = E[tokens.ravel()].reshape(tokens.shape + (E.shape[1],))
    return rows.reshape(tuple(n for n in rows.shape if n != 1))
