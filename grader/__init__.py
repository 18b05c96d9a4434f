"""An autograder for NumPy exercises on recurrent neural networks."""

__version__ = "0.1.0"
