"""Exercise `tinyrnn`, the capstone: TinyRNN, a character-level language model.

params is a dict: E (V, d), W_x (d, H), W_h (H, H), b (H,), W_o (H, V),
b_o (V,). tokens and targets are int arrays (B, T) of ids in [0, V). You may
reuse your earlier files: from rnn_forward import rnn_forward, from bptt
import rnn_backward, clip_by_global_norm, from readout import softmax, ...

练习 `tinyrnn`（综合练习）：字符级语言模型 TinyRNN。
params 是字典：E (V, d)、W_x (d, H)、W_h (H, H)、b (H,)、W_o (H, V)、b_o (V,)。
tokens 与 targets 是 (B, T) 的整数数组，取值在 [0, V)。可以复用之前的文件：
from rnn_forward import rnn_forward、from bptt import rnn_backward, clip_by_global_norm、
from readout import softmax 等。
"""
import numpy as np


def embed(tokens, E):
    """The embedding of every token: (B, T, d), row E[tokens[i, t]] at each position.

    每个词元的嵌入：(B, T, d)，每个位置取 E[tokens[i, t]] 这一行。
    """
    raise NotImplementedError


def tiny_rnn_forward(tokens, params, h0=None):
    """The model's forward pass.

    Returns:
        (logits (B, T, V), Hs (B, T, H)): Hs = rnn_forward(embed(tokens, E),
        W_x, W_h, b, h0) and logits = Hs @ W_o + b_o. h0 None means zeros.

    模型的前向计算。
    返回：
        (logits (B, T, V), Hs (B, T, H))：Hs = rnn_forward(embed(tokens, E), W_x, W_h, b, h0)，
        logits = Hs @ W_o + b_o。h0 为 None 表示全零。
    """
    raise NotImplementedError


def tiny_rnn_loss(tokens, targets, lengths, params, h0=None):
    """The masked loss and its exact gradients.

    Args:
        tokens, targets: (B, T) int ids; lengths: (B,) ints. Padded positions
        (t >= lengths[i]) hold valid ids but count nowhere.

    Returns:
        (loss, grads): loss is the token-level mean of -log softmax(logits)[target]
        over the valid positions (a Python float, 0.0 when none is valid); grads
        is a dict dE, dW_x, dW_h, db, dW_o, db_o of the exact gradients of loss,
        each of its parameter's shape. A token met several times adds up its
        embedding gradients.

    带掩码的损失及其精确梯度。
    参数：
        tokens、targets：(B, T) 整数 id；lengths：(B,) 整数。填充位置（t >= lengths[i]）
        也是合法 id，但不计入任何地方。
    返回：
        (loss, grads)：loss 是有效位置上 -log softmax(logits)[target] 的词元级平均
        （Python float，没有有效位置时为 0.0）；grads 是字典 dE、dW_x、dW_h、db、dW_o、db_o，
        即 loss 的精确梯度，形状与各参数相同。同一词元出现多次时嵌入梯度要累加。
    """
    raise NotImplementedError


def sgd_step(params, grads, lr, max_norm=None):
    """One gradient step: a new dict params[k] - lr * grads["d" + k].

    When max_norm is not None, the gradients grads["d" + k] are first clipped
    together by their global norm (as clip_by_global_norm). The inputs stay
    unchanged.

    一步梯度下降：返回新字典 params[k] - lr * grads["d" + k]。
    max_norm 不为 None 时，先把梯度 grads["d" + k] 按全局范数一起裁剪
    （与 clip_by_global_norm 相同）。输入保持不变。
    """
    raise NotImplementedError


def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    """Generate ids after a prefix.

    Run the prefix (a non-empty list of ids) from a zero state; then up to n_max
    times: p = softmax(logits_last / temperature), next id =
    int(np.searchsorted(np.cumsum(p), u[k], side="right")) capped at V - 1, fed
    back in. temperature == 0: the argmax (lowest id on ties), u ignored.
    u=None with temperature > 0: draw u from np.random.default_rng(). Stop right
    after emitting stop_token. Returns the generated ids only (stop token
    included) as a list.

    在前缀之后生成 id。
    从零状态运行前缀（非空 id 列表）；然后最多 n_max 次：p = softmax(logits_last / temperature)，
    下一个 id = int(np.searchsorted(np.cumsum(p), u[k], side="right"))（不超过 V - 1），
    再送回模型。temperature == 0：取 argmax（并列时取最小 id），忽略 u。
    u=None 且 temperature > 0：从 np.random.default_rng() 抽取 u。生成 stop_token 后立即停止。
    只返回生成的 id（包括停止符），类型为列表。
    """
    raise NotImplementedError
