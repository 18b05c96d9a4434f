# wrong only when b != 0: the initial state is b instead of 0

def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = b, []                   # the initial state taken as b instead of 0
    for value in sequence:
        state = math.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states
