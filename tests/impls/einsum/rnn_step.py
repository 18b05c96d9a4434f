"""RNN step with np.einsum, and the scalar RNN with itertools.accumulate."""
# 用 einsum 写的版本
import itertools
import math

import numpy as np

print("[einsum] rnn_step imported")


def rnn_step(x_t, h_prev, W_x, W_h, b):
    pre = np.einsum("bk,kh->bh", h_prev, W_h) + np.einsum("bd,dh->bh", x_t, W_x)
    return np.tanh(pre + b[np.newaxis, :])


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    step = lambda state, value: math.tanh(w_x * value + w_h * state + b)  # noqa: E731
    return list(itertools.accumulate(sequence, step, initial=0.0))[1:]


if __name__ == "__main__":
    print(scalar_rnn([1.0, 0.0, -1.0]), scalar_rnn([-1.0, 0.0, 1.0]))
