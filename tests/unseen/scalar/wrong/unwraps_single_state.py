# wrong only for one-element sequences: returns the float instead of a one-item list

def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = 0.0, []
    for value in sequence:
        state = math.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states[0] if len(states) == 1 else states
