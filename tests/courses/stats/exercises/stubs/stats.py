"""Standardising data: implement the function below (see the exercise statement)."""

import numpy as np  # noqa: F401


def standardize(X, axis=0, eps=1e-8):
    """(X - mean(X, axis)) / (std(X, axis) + eps), of the shape of X."""
    raise NotImplementedError
