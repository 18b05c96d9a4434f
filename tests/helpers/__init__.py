"""Plain helpers that test modules of more than one file share (fixtures live in tests/conftest.py).

A test module imports them as ``from helpers.sandbox import ...``: tests/ is on sys.path as it is for
``from conftest import ...``. Test modules never import from one another.
"""
