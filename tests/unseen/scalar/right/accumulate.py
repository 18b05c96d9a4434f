# right: itertools.accumulate with an initial state, the initial state dropped

import itertools
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    step = lambda s, v: math.tanh(w_x * v + w_h * s + b)
    return list(itertools.accumulate(sequence, step, initial=0.0))[1:]
