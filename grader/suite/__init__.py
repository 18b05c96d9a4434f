"""The checks of the RNN course, one module per exercise.

Importing a module registers its checks (see :func:`grader.checks.check`);
the course YAML then chooses which run, for how many points.
"""

from __future__ import annotations

import importlib

from grader.checks import registered

MODULES = ("step", "scalar", "forward", "params", "masking", "readout", "bptt",
           "clipping", "truncation", "gradient_flow", "birnn")


def registry():
    for name in MODULES:
        importlib.import_module(f"grader.suite.{name}")
    return registered()
