# right: last_valid_state of the masked pass (zeros for length 0 == h0 here)

from masking import last_valid_state
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    Hs, _ = rnn_forward_masked(X, lengths, W_x, W_h, b)
    return softmax(last_valid_state(Hs, lengths) @ W_o + b_o, axis=1)   # zeros for L == 0, which is h0 here
