# right: recursion over the prefix

def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    def go(values, state):
        if not values:
            return []
        new = math.tanh(w_x * values[0] + w_h * state + b)
        return [new] + go(values[1:], new)
    return go(list(sequence), 0.0)
