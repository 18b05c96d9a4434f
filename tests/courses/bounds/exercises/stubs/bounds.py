"""Ramps, harmonic sums and their totals: implement the functions below (see the statements)."""

import numpy as np  # noqa: F401


def ramp(n):
    """0, 0.5, 1, ..., (n - 1) / 2: a float64 array of length n."""
    raise NotImplementedError


def harmonic(k):
    """1 + 1/2 + ... + 1/k."""
    raise NotImplementedError


def ramp_total(x):
    """sum(x) + sum(ramp(x.size))."""
    raise NotImplementedError


def harmonic_total(x):
    """sum(x) + harmonic(x.size)."""
    raise NotImplementedError


def double(x):
    """2 * x."""
    raise NotImplementedError
