# right: a list comprehension with an assignment expression carrying the state

def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state = 0.0
    return [state := math.tanh(w_x * v + w_h * state + b) for v in sequence]
