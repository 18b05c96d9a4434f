# wrong: a 0.0 element is skipped as padding (the state is kept), wrong on the seed's [1, 0, -1]

def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = 0.0, []
    for value in sequence:
        if value != 0:                      # "0 is padding": the state is kept as it is
            state = math.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states
