# right: a generator over np.float64 arithmetic, .item() to Python floats

def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    def states():
        s = np.float64(0.0)
        for v in sequence:
            s = np.tanh(np.float64(w_x) * v + np.float64(w_h) * s + b)
            yield s.item()
    return list(states())
