# 作业：双向 RNN（逐行循环，只处理每行的有效部分）
import numpy as np

print("birnn.py (loops) loaded")


def _run(xs, W_x, W_h, b, h):
    states = []
    for x in xs:
        h = np.tanh(np.dot(x, W_x) + np.dot(h, W_h) + b)
        states.append(h)
    return states


def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, d = X.shape
    H = fwd[1].shape[0]
    out = np.zeros((B, T, 2 * H))
    for i in range(B):
        L = int(lengths[i])
        start = np.zeros(H) if h0 is None else np.array(h0[i], dtype=np.float64)
        valid = [X[i, t] for t in range(L)]
        fwd_states = _run(valid, *fwd, start)
        bwd_states = _run(valid[::-1], *bwd, start)   # 从最后一个有效步开始
        for t in range(L):
            out[i, t, :H] = fwd_states[t]
            out[i, t, H:] = bwd_states[L - 1 - t]      # 对齐回时间步 t
    return out


if __name__ == "__main__":
    rng = np.random.default_rng(1)
    W = (rng.normal(size=(2, 3)), rng.normal(size=(3, 3)), rng.normal(size=3))
    print(birnn_forward(rng.normal(size=(2, 4, 2)), np.array([4, 2]), W, W).shape)
