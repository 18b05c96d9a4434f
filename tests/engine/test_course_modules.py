"""The course's own modules (grader/course/modules.py): private sets that share only compiled code."""

from __future__ import annotations

from grader.course.modules import ModuleSet


def test_sets_share_compiled_code_but_never_module_state(tmp_path):
    (tmp_path / "counter.py").write_text("hits = []\n\ndef tick():\n    hits.append(1)\n    return len(hits)\n")
    (tmp_path / "user.py").write_text("from counter import tick\n\ndef twice():\n    tick()\n    return tick()\n")
    first, second = ModuleSet(tmp_path), ModuleSet(tmp_path)
    assert first.function("user", "twice")() == 2
    assert first.function("user", "twice")() == 4
    assert second.function("user", "twice")() == 2          # its own module, its own globals
    assert first.get("counter") is not second.get("counter")
    assert first.function("counter", "tick").__code__ is second.function("counter", "tick").__code__


def test_an_override_or_an_edit_is_compiled_afresh(tmp_path):
    (tmp_path / "f.py").write_text("def value():\n    return 1\n")
    assert ModuleSet(tmp_path).function("f", "value")() == 1
    assert ModuleSet(tmp_path, {"f": "def value():\n    return 2\n"}).function("f", "value")() == 2
    (tmp_path / "f.py").write_text("def value():\n    return 3\n")
    assert ModuleSet(tmp_path).function("f", "value")() == 3
