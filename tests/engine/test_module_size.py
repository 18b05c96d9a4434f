"""Small modules with one job each: a module of grader/ over about 500 lines says in its
docstring why it is one file ("Why one file of this size: ...")."""

from __future__ import annotations

import ast

from conftest import ROOT

LIMIT = 550          # "about 500": a module may grow a little before it must explain itself
REASON = "Why one file of this size:"


def test_long_modules_say_why_they_are_one_file():
    unexplained = []
    for path in sorted((ROOT / "grader").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if source.count("\n") <= LIMIT:
            continue
        doc = ast.get_docstring(ast.parse(source)) or ""
        if REASON not in doc:
            unexplained.append(f"{path.relative_to(ROOT)} ({source.count(chr(10))} lines)")
    assert not unexplained, "split these or say why in the docstring: " + ", ".join(unexplained)
