# wrong: the initial state 0 is reported too (len(sequence) + 1 entries)

def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    states = [0.0]
    for value in sequence:
        states.append(math.tanh(w_x * value + w_h * states[-1] + b))
    return states
