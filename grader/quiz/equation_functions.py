"""The functions an equation may call, and how each is spelled by default.

A course does not write code for these: its question names the ones its
reference uses and may add spellings (``functions: {tanh: [φ, phi]}``).
Every function here is always recognised, so that an answer calling another
one (``sigmoid`` where ``tanh`` is asked) is diagnosed, not "unknown".
"""

from __future__ import annotations

import numpy as np


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _softmax(z):
    z = z - np.max(z, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=-1, keepdims=True)


def _mm(a, b):
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return np.matmul(a, b)


# one-argument, element-wise or row-wise: what "the activation" of an equation is made of
UNARY = {
    "tanh": np.tanh,
    "sigmoid": _sigmoid,
    "relu": lambda z: np.maximum(z, 0.0),
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "abs": np.abs,
    "softmax": _softmax,
}
BINARY = {"matmul": _mm}

# default spellings, already in canonical form (grader/equation_text.canon)
SPELLINGS = {
    "tanh": ("tanh",),
    "sigmoid": ("sigmoid", "σ", "sigma", "sigm", "logistic", "expit"),
    "relu": ("relu",),
    "exp": ("exp",),
    "log": ("log", "ln"),
    "sqrt": ("sqrt", "√"),
    "abs": ("abs",),
    "softmax": ("softmax",),
    "matmul": ("dot", "matmul", "mm"),
}
KNOWN = tuple(SPELLINGS)


def spelling_table(extra: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """canonical spelling -> function name; ``extra`` (a course's spellings) wins."""
    table = {spelling: name for name, spellings in SPELLINGS.items() for spelling in spellings}
    for name, spellings in extra.items():
        table.update({spelling: name for spelling in spellings})
    return table


def call(name: str, args):
    if name in BINARY:
        if len(args) != 2:
            raise ValueError(f"{name} takes two arguments")
        return BINARY[name](*args)
    if len(args) != 1:
        raise ValueError(f"{name} takes one argument")
    return UNARY[name](args[0])
