# mistake: tinyrnn.head_without_bias
# the head's einsum without + b_o (the loss, calling the forward, follows)
# base: right/einsum.py (these definitions are appended to it, replacing its own)

def tiny_rnn_forward(tokens, params, h0=None):
    Hs = _states(embed(tokens, params["E"]), params["W_x"], params["W_h"], params["b"], h0)
    logits = np.einsum("bth,hv->btv", Hs, params["W_o"])
    return logits, Hs
