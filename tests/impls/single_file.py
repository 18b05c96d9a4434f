# 我的 RNN 作业（全部写在一个文件里）
# My RNN homework, every exercise in one file, quiz answers in ANSWERS.
import math

import numpy as np

print("homework loaded / 作业已加载")


# ---------------------------------------------------------------- 一次状态更新
def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh(np.dot(h_prev, W_h) + np.dot(x_t, W_x) + b)


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, out = 0.0, []
    for value in sequence:
        state = math.tanh(w_x * value + w_h * state + b)
        out.append(float(state))
    return out


# ---------------------------------------------------------------- 沿时间展开
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    Hs = np.empty((B, T, H))
    h = np.zeros((B, H)) if h0 is None else h0
    for t in range(T):
        h = rnn_step(X[:, t], h, W_x, W_h, b)
        Hs[:, t] = h
    return Hs


# ---------------------------------------------------------------- 参数个数
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    dirs = 2 if bidirectional else 1
    per_bias = 2 * hidden_size if double_bias else hidden_size
    sizes_in = [input_size] + [hidden_size * dirs] * (num_layers - 1)
    n = sum(dirs * (i * hidden_size + hidden_size ** 2 + per_bias) for i in sizes_in)
    if output_size:
        n += (hidden_size * dirs) * output_size + output_size
    return n


# ---------------------------------------------------------------- 掩码
def sequence_mask(lengths, T):
    return np.arange(T) < np.asarray(lengths).reshape(-1, 1)


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    mask = sequence_mask(lengths, T)
    h = np.zeros((B, H)) if h0 is None else np.copy(h0)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        rows = np.flatnonzero(mask[:, t])                 # 只更新这一步仍然有效的行
        if rows.size:
            h[rows] = rnn_step(X[rows, t], h[rows], W_x, W_h, b)
            Hs[rows, t] = h[rows]
    return Hs, h


def last_valid_state(Hs, lengths):
    lengths = np.asarray(lengths)
    out = np.zeros((Hs.shape[0], Hs.shape[2]))
    rows = np.flatnonzero(lengths > 0)
    out[rows] = Hs[rows, lengths[rows] - 1]
    return out


def masked_mean_pool(Hs, lengths):
    lengths = np.asarray(lengths)
    mask = sequence_mask(lengths, Hs.shape[1])
    out = np.zeros((Hs.shape[0], Hs.shape[2]))
    for i in np.flatnonzero(lengths > 0):
        out[i] = Hs[i][mask[i]].mean(axis=0)
    return out


def masked_cross_entropy(logits, targets, lengths):
    mask = sequence_mask(lengths, logits.shape[1])
    if mask.sum() == 0:
        return 0.0
    z = logits[mask]                                   # (N, V)，填充位置被丢掉
    y = np.asarray(targets)[mask].astype(int)
    z_max = z.max(axis=1, keepdims=True)
    lse = z_max[:, 0] + np.log(np.exp(z - z_max).sum(axis=1))
    return float(np.mean(lse - z[np.arange(len(y)), y]))


# ---------------------------------------------------------------- 读出
def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    h_last = rnn_forward_masked(X, lengths, W_x, W_h, b)[1]
    return softmax(h_last @ W_o + b_o)


# ---------------------------------------------------------------- BPTT
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    prev = np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)      # h_{t-1}
    grads = {"dX": np.zeros_like(X), "dh0": np.zeros((B, H)), "dW_x": np.zeros((d, H)),
             "dW_h": np.zeros((H, H)), "db": np.zeros(H)}
    dh = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        if (t + 1) % k == 0:
            dh = np.zeros((B, H))               # 新的一段（从后往前）：入口状态当作常数
        da = (dh + dHs[:, t]) * (1 - Hs[:, t] ** 2)
        grads["dX"][:, t] = da @ W_x.T
        grads["dW_x"] += X[:, t].T @ da
        grads["dW_h"] += prev[:, t].T @ da
        grads["db"] += da.sum(0)
        dh = da @ W_h.T
    if T > 0:
        grads["dh0"] = dh
    return grads


def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    return truncated_rnn_backward(X, W_x, W_h, b, dHs, X.shape[1] + 1, h0)


def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum((g ** 2).sum() for g in grads.values())))
    c = max_norm / total if total > max_norm else 1.0
    return {name: g * c for name, g in grads.items()}, total


# ---------------------------------------------------------------- 梯度流
def spectral_radius(W):
    return float(abs(np.linalg.eigvals(W)).max())


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dHs = np.zeros_like(Hs)
    dHs[:, -1] = 1.0
    T = Hs.shape[1]
    norms = []
    g = dHs[:, -1]
    for t in range(T - 1, -1, -1):
        norms.append(np.linalg.norm(g))
        g = (g * (1 - Hs[:, t] ** 2)) @ W_h.T
    return np.array(norms[::-1])


# ---------------------------------------------------------------- 双向
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    lengths = np.asarray(lengths)
    B, T, _ = X.shape
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    X_rev = np.zeros_like(X)
    for i in range(B):
        L = int(lengths[i])
        X_rev[i, :L] = X[i, :L][::-1]
    H_r, _ = rnn_forward_masked(X_rev, lengths, *bwd, h0=h0)
    H_b = np.zeros_like(H_r)
    for i in range(B):
        L = int(lengths[i])
        H_b[i, :L] = H_r[i, :L][::-1]
    return np.concatenate([H_f, H_b], axis=-1)


# ---------------------------------------------------------------- TinyRNN
def embed(tokens, E):
    return np.take(E, tokens, axis=0)


def tiny_rnn_forward(tokens, params, h0=None):
    Hs = rnn_forward(embed(tokens, params["E"]), params["W_x"], params["W_h"], params["b"], h0)
    return Hs @ params["W_o"] + params["b_o"], Hs


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    logits, Hs = tiny_rnn_forward(tokens, params, h0)
    B, T, V = logits.shape
    valid = np.arange(T) < np.asarray(lengths)[:, None]
    n = valid.sum()
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    loss = masked_cross_entropy(logits, targets, lengths)
    d = p.copy()
    b_idx, t_idx = np.nonzero(np.ones((B, T), dtype=bool))
    d[b_idx, t_idx, np.asarray(targets).ravel()] -= 1.0
    d[~valid] = 0.0
    d /= max(n, 1)
    g = rnn_backward(embed(tokens, params["E"]), params["W_x"], params["W_h"], params["b"], d @ params["W_o"].T, h0)
    dE = np.zeros_like(params["E"])
    np.add.at(dE, np.asarray(tokens).ravel(), g["dX"].reshape(-1, g["dX"].shape[-1]))
    return loss, {"dE": dE, "dW_x": g["dW_x"], "dW_h": g["dW_h"], "db": g["db"],
                  "dW_o": Hs.reshape(-1, Hs.shape[-1]).T @ d.reshape(-1, V), "db_o": d.sum((0, 1))}


def sgd_step(params, grads, lr, max_norm=None):
    g = {k: grads["d" + k] for k in params}
    if max_norm is not None:
        g = clip_by_global_norm(g, max_norm)[0]
    return {k: params[k] - lr * g[k] for k in params}


def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    if u is None:
        u = np.random.default_rng().random(n_max)
    h = np.zeros((1, params["W_h"].shape[0]))
    for tok in prefix:
        h = rnn_step(params["E"][[tok]], h, params["W_x"], params["W_h"], params["b"])
    ids = []
    for k in range(n_max):
        z = (h @ params["W_o"] + params["b_o"])[0]
        if temperature == 0:
            tok = int(z.argmax())
        else:
            tok = min(int(np.searchsorted(np.cumsum(softmax(z / temperature)), u[k], side="right")), len(z) - 1)
        ids.append(tok)
        if tok == stop_token:
            break
        h = rnn_step(params["E"][[tok]], h, params["W_x"], params["W_h"], params["b"])
    return ids


# ---------------------------------------------------------------- 自测题
ANSWERS = {
    "step_equation": "h_t = tanh(W_h h_{t-1} + W_x x_t + b)",
    "shared_parameters": ["b", "W_h", "W_x"],
    "params_rnn": 32,
    "params_rnn_head": 42,
    "params_double_bias": 36,
    "params_length_1000": 32,
    "scalar_last_state": -0.6741,
    "scalar_reverse_last_state": 0.67414,
    "decay_steps": 51,
    "long_range_cause": "B.",
    "many_to_one_readout": "a)",
    "padding_pitfall": "b",
    "match_outputs": {"classification": "a", "tagging": "B.", "next_step": "C", "seq2seq": "d)"},
    "tf_params_per_step": "错",
    "tf_lossless_state": False,
    "tf_state_is_chat_history": "false",
    "tf_reset_between_sequences": "对",
    "tf_longer_more_params": False,
    "tf_no_parallelism": "错",
    "tf_clipping_restores": False,
    "tf_truncation_cuts": "true",
    "tf_bidirectional_online": "错",
    "tf_rnn_useless": False,
    "tf_grads_accumulate": True,
    "tf_order_matters": "对",
    "tinyrnn_params": 16705,
    "tinyrnn_forgets": "b)",
}


if __name__ == "__main__":
    print(scalar_rnn([1.0, 0.0, -1.0]))
    print(count_rnn_params(3, 4), count_rnn_params(3, 4, 2))
