"""The reference. ramp allocates by its argument and harmonic loops by its argument, as
instructor code may: what a student's arguments make them do is bounded by the grader
(grader/sandbox/trusted_calls.py), not by this code."""

import numpy as np


def ramp(n):
    return np.arange(n, dtype=np.float64) * 0.5


def harmonic(k):
    total = 0.0
    for i in range(1, k + 1):
        total += 1.0 / i
    return total


def ramp_total(x):
    return float(x.sum() + ramp(x.size).sum())


def harmonic_total(x):
    return float(x.sum()) + harmonic(x.size)


def double(x):
    return 2.0 * x
