"""Bidirectional pass: reverse each row's valid part with an index array."""
import numpy as np

from masking import rnn_forward_masked

print("[einsum] birnn imported")


def _mirror_index(lengths, T):
    t = np.arange(T)[None, :]
    L = np.asarray(lengths)[:, None]
    return np.where(t < L, L - 1 - t, t)          # 有效部分镜像，填充位置不动


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    idx = _mirror_index(lengths, T)[:, :, None]
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    X_rev = np.take_along_axis(X, idx, axis=1)
    H_r, _ = rnn_forward_masked(X_rev, lengths, *bwd, h0=h0)
    H_b = np.take_along_axis(H_r, idx, axis=1)
    return np.concatenate((H_f, H_b), axis=2)


if __name__ == "__main__":
    print(_mirror_index(np.array([3, 0, 5]), 5))
