"""tinyrnn.stop_in_prefix: a stop token anywhere in the prefix returns an empty list at once."""
import numpy as np


def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    E, W_x, W_h, b = params["E"], params["W_x"], params["W_h"], params["b"]
    W_o, b_o = params["W_o"], params["b_o"]
    V = E.shape[0]
    if temperature > 0 and u is None:
        u = np.random.default_rng().random(n_max)
    h = np.zeros(W_h.shape[0])
    for tok in prefix:
        h = np.tanh(E[tok] @ W_x + h @ W_h + b)
    ids = []
    if stop_token in list(prefix):
        return ids
    for k in range(n_max):
        logits = h @ W_o + b_o
        if temperature == 0:
            choice = int(np.argmax(logits))
        else:
            z = logits / temperature
            z = z - z.max()
            p = np.exp(z) / np.exp(z).sum()
            choice, acc = 0, p[0]
            while acc <= u[k] and choice < V - 1:
                choice += 1
                acc += p[choice]
        ids.append(choice)
        if choice == stop_token:
            break
        h = np.tanh(E[choice] @ W_x + h @ W_h + b)
    return ids
