def double(x):
    return 3.0 * x
