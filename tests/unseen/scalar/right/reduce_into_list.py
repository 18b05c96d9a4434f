# right: functools.reduce that grows the list; float(np.tanh(...)) items

import functools
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    def step(states, v):
        prev = states[-1] if states else 0.0
        return states + [float(np.tanh(w_x * v + w_h * prev + b))]
    return functools.reduce(step, sequence, [])
