# wrong: valid parts reversed correctly, but re-aligned by flipping the whole row

def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0)
    H_b = H_r[:, ::-1]                        # re-aligned by flipping the whole row
    mask = np.arange(X.shape[1])[None, :] < np.asarray(lengths)[:, None]
    return np.concatenate([H_f, np.where(mask[..., None], H_b, 0.0)], axis=-1)
