def harmonic(k):
    total = 0.0
    for i in range(1, k):
        total += 1.0 / i
    return total
