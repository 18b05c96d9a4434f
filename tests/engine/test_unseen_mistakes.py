"""Accuracy against mistakes the catalogue does not list.

Course staff's promise: every wrong implementation of an exercise loses points
on that exercise, and every correct style keeps full marks. Each case is a small
student function in ``tests/unseen/<exercise>/<kind>/<name>.py``, appended to a copy
of the reference file so that it overrides the reference's definition, then graded
on its own exercise only.

- ``wrong/`` cases must score below the maximum on their exercise.
- ``right/`` cases (correct, in an unusual style) must keep full marks.

Each file starts with a comment header (why the case is wrong, or what is unusual
about it) and a blank line; the header is not graded, the rest is appended as is.
None of these is in ``solutions/mistakes/`` (nor a variation of one: those are in
``tests/variants/``). A case the grader gets wrong goes in FINDINGS (marked
``xfail(strict=True)`` with the reason) until the grader is fixed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import ROOT, copy_reference
from grader.report import check_message

UNSEEN = ROOT / "tests" / "unseen"

FILES = {"step": "rnn_step.py", "scalar": "rnn_step.py", "forward": "rnn_forward.py", "params": "param_count.py",
         "masking": "masking.py", "readout": "readout.py", "bptt": "bptt.py", "clipping": "bptt.py",
         "truncation": "bptt.py", "gradient_flow": "gradient_flow.py", "birnn": "birnn.py"}

WRONG, RIGHT = "wrong", "right"

# Every snippet is appended after this, so it may use np and math like a student file would.
PRELUDE = "import math\nimport numpy as np\n\n"


@dataclass
class Impl:
    exercise: str
    name: str
    kind: str          # WRONG or RIGHT
    path: Path

    @property
    def id(self) -> str:
        return f"{self.exercise}-{self.kind}-{self.name}"

    @property
    def source(self) -> str:
        """The graded snippet: the file without its comment header and the blank line after it."""
        text = self.path.read_text(encoding="utf-8")
        header, sep, source = text.partition("\n\n")
        assert sep and all(line.startswith("#") for line in header.splitlines()), \
            f"{self.path}: a comment header, then a blank line, then the snippet"
        return source


CASES: list[Impl] = [Impl(path.parent.parent.name, path.stem, path.parent.name, path)
                     for path in sorted(UNSEEN.glob("*/*/*.py"))]
assert {c.kind for c in CASES} <= {WRONG, RIGHT} and {c.exercise for c in CASES} <= set(FILES)


# =====================================================================================
# findings: cases the grader misjudges (kept as strict xfails until fixed)
# =====================================================================================

# Cases the grader misjudges, by test id (<exercise>-<kind>-<name>), with the reason. The 23
# found by the first red-team pass (float32 shortcuts under a loose tolerance, caches keyed on
# id() or shapes, +/-inf padding, 0-d arrays for floats, the input dict returned as is, a renamed
# parameter, ...) are all caught since the checks were tightened. The second pass (inputs where a
# mistake only shows sometimes) found the ones below; each reason names the input that would catch it.
FINDINGS: dict[str, str] = {}   # the second pass found 8 (H == 1, B == 1, C == 1, w_x=0.0, int32 counts,
# a self-inverse sort order, float32 eigenvalues); all caught since.

assert set(FINDINGS) <= {c.id for c in CASES}


# =====================================================================================
# the tests
# =====================================================================================

def _params(kind: str):
    params = []
    for case in CASES:
        if case.kind == kind:
            finding = FINDINGS.get(case.id, "")
            marks = [pytest.mark.xfail(strict=True, raises=AssertionError, reason=finding)] if finding else []
            params.append(pytest.param(case, id=case.id, marks=marks))
    return params


def _grade(grade, tmp_path, case: Impl):
    folder = copy_reference(tmp_path / "student")
    path = folder / FILES[case.exercise]
    path.write_text(path.read_text(encoding="utf-8") + "\n\n" + PRELUDE + case.source, encoding="utf-8")
    result = grade(folder, only=(case.exercise,))
    (exercise,) = result.exercises
    failed = [(c.name, check_message(c, "en")) for c in exercise.checks if not c.passed]
    return exercise, failed


@pytest.mark.parametrize("case", _params(WRONG))
def test_unseen_wrong(grade, tmp_path, case: Impl):
    exercise, _ = _grade(grade, tmp_path, case)
    assert exercise.score < exercise.max_score, f"wrong implementation kept full marks: {case.name}"


@pytest.mark.parametrize("case", _params(RIGHT))
def test_unseen_right(grade, tmp_path, case: Impl):
    exercise, failed = _grade(grade, tmp_path, case)
    assert exercise.score == exercise.max_score and not failed, failed


def test_every_exercise_has_enough_cases():
    for exercise in FILES:
        kinds = [c.kind for c in CASES if c.exercise == exercise]
        assert kinds.count(WRONG) >= 4 and kinds.count(RIGHT) >= 2, exercise
