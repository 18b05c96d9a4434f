"""A check fails only for what its name says (issue 12): a check named after a shape, a type,
the inputs or state passes a mistake that is only about values, so one mistake is not
punished twice under a misleading name. Proven on every known mistake of the bundled course."""

from __future__ import annotations

import pytest

from grader.course.loader import bundled_course_root, load_course
from grader.submission.load import load_submission
from grader.grading.validate import mistake_folder
from grader.report import check_message

PROPERTY_CHECKS = {"shape_dtype", "shape", "keys_and_shapes", "returns_int", "returns_floats",
                   "inputs_unchanged", "no_state"}

COURSE = load_course(bundled_course_root())
VARIANTS = [(m, v) for e in COURSE.exercises.values() for m in e.mistakes for v in m.variants]


@pytest.mark.parametrize("mistake, variant", VARIANTS, ids=[f"{m.id}:{v.stem}" for m, v in VARIANTS])
def test_a_property_check_fails_only_the_mistakes_about_it(grader, tmp_path, mistake, variant):
    folder = mistake_folder(COURSE, mistake, variant, tmp_path / "m")
    result = grader.grade(load_submission(folder, tmp_path / "work"), [mistake.exercise]).exercises[0]
    # a call that raised cannot show a property either way: its own message says so (err.*)
    failed = {c.name for c in result.checks if not c.passed and not c.message.key.startswith("err.")}
    wrongly = (failed & PROPERTY_CHECKS) - set(mistake.fails)
    assert not wrongly, (mistake.id, {c.name: check_message(c, "en") for c in result.checks if c.name in wrongly})


def test_there_are_mistakes_about_each_property():
    """The test above is not empty: mistakes exist that do fail property checks (and must)."""
    about = {c for m, _ in VARIANTS for c in m.fails if c in PROPERTY_CHECKS}
    assert {"shape_dtype", "inputs_unchanged", "no_state"} <= about
