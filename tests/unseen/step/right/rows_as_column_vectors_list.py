# right: seed 004's column form W^T x per row, a Python list of rows, then np.array

def rnn_step(x_t, h_prev, W_x, W_h, b):
    rows = []
    for x, h in zip(x_t, h_prev):
        rows.append(np.tanh(W_x.T @ x + W_h.T @ h + b))   # seed 004's column form, one row at a time
    return np.array(rows).reshape(h_prev.shape)
