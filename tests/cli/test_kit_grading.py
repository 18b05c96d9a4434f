"""A student kit grades from recorded data exactly as the instructor's install grades the visible checks.

The kit's course has ``exercises/`` and ``kit/`` (what ``grade release`` recorded:
the reference's and every known mistake's results on the visible inputs), and no
``solutions/``. For the reference, the stubs and every known mistake, the kit's
verdicts (check by check) and named mistakes must be the instructor's, visible
checks only; hidden checks and the quiz are left to the instructor, and the kit's
report says so.
"""

from __future__ import annotations

import shutil
import uuid

import pytest

from conftest import STUBS
from grader.course.loader import bundled_course_root, load_course
from grader.grading.engine import Grader
from grader.kit.data import write_kit_data
from grader.course.kit_records import NotInKit, RecordedModules
from grader.submission.load import load_submission
from grader.grading.validate import mistake_folder, reference_folder


@pytest.fixture(scope="module")
def courses(tmp_path_factory):
    instructor = load_course(bundled_course_root())
    root = tmp_path_factory.mktemp("kit-course")
    shutil.copytree(instructor.root / "exercises", root / "exercises")
    write_kit_data(instructor, root / "kit")
    kit = load_course(root)
    return instructor, kit


@pytest.fixture(scope="module")
def graders(courses):
    instructor, kit = courses
    with Grader(instructor, counterexamples=False, hidden=False) as a, Grader(kit, counterexamples=False) as b:
        yield a, b


def verdicts(result):
    return {e.id: ([(c.name, c.passed, c.score) for c in e.checks], sorted(d.id for d in e.diagnoses))
            for e in result.exercises}


def both(graders, folder, tmp_path, only=()):
    a, b = graders
    code = [e.id for e in a.course.exercises.values() if not e.is_quiz]
    only = list(only) or code
    results = [g.grade(load_submission(folder, tmp_path / f"w-{uuid.uuid4().hex[:6]}"), only) for g in (a, b)]
    return results


def test_the_kit_course_holds_no_solution(courses):
    _, kit = courses
    assert kit.is_kit and not kit.reference_dir.exists()
    files = [p for p in kit.root.rglob("*") if p.is_file()]
    # Python only as the stubs and the course's check modules (public, as the grader's code is)
    assert not [p for p in files if p.suffix == ".py" and "stubs" not in p.parts
                and p.parent != kit.exercises_dir / "checks"]
    assert all(not p.name == "answers.yaml" or "stubs" in p.parts for p in files)
    # every known mistake is there by its records only, with the catalogue's texts
    for exercise in kit.exercises.values():
        assert all(v.suffix == ".rec" for m in exercise.mistakes for v in m.variants)


def test_the_reference_and_the_stubs_grade_alike(graders, tmp_path):
    folder = reference_folder(graders[0].course, tmp_path / "reference")
    instructor, kit = both(graders, folder, tmp_path)
    assert verdicts(kit) == verdicts(instructor)
    assert kit.score == kit.max_score and kit.max_score == sum(
        c.points for e in graders[1].course.exercises.values() if not e.is_quiz for c in e.checks if not c.hidden)
    instructor, kit = both(graders, STUBS, tmp_path)
    assert verdicts(kit) == verdicts(instructor) and kit.score == 0


def test_every_known_mistake_grades_and_is_named_alike(graders, tmp_path):
    """Alike: the same verdicts and names as the instructor's visible checks give (a mistake only
    hidden checks catch is the instructor's to find)."""
    course = graders[0].course
    compared = named = 0
    for exercise in course.exercises.values():
        for mistake in exercise.mistakes:
            for variant in mistake.variants:
                folder = mistake_folder(course, mistake, variant, tmp_path / f"m{compared}")
                instructor, kit = both(graders, folder, tmp_path, [exercise.id])
                assert verdicts(kit) == verdicts(instructor), variant
                named += mistake.id in verdicts(kit)[exercise.id][1]
                compared += 1
    assert compared > 100 and named > compared * 0.6, (named, compared)


def test_the_kit_says_what_the_instructor_grades(graders, tmp_path):
    _, kit = both(graders, STUBS, tmp_path)
    grader = graders[1]
    result = grader.grade(load_submission(STUBS, tmp_path / "w-all"))
    notes = [n.render("en") for n in result.notes]
    assert any("hidden checks" in n and "instructor" in n for n in notes), notes
    assert any("quiz" in n and "answer key" in n for n in notes), notes
    assert not any(e.is_quiz for e in grader.course.exercises.values() if e.id in {r.id for r in result.exercises})
    assert all(not c.hidden for e in result.exercises for c in e.checks)


def test_a_call_the_release_did_not_record_is_not_answered(courses):
    _, kit = courses
    modules = RecordedModules(kit.kit_dir / "reference.rec")
    import numpy as np
    with pytest.raises(NotInKit):
        modules.function("rnn_step", "rnn_step")(*(np.full((2, 2), 0.123),) * 4, np.zeros(2))


def test_records_of_another_format_answer_nothing(courses, tmp_path):
    """A .rec file written by a grader whose call digests differ (the format number says so) is refused whole."""
    from grader.course import kit_records
    from grader.sandbox.worker import wire

    _, kit = courses
    frame = kit_records.read_frame(kit.kit_dir / "reference.rec")
    old = tmp_path / "reference.rec"
    old.write_bytes(wire.pack({**frame, "format": kit_records.FORMAT - 1}))
    with pytest.raises(NotInKit, match="another format"):
        RecordedModules(old).calls()
    assert RecordedModules(kit.kit_dir / "reference.rec").calls()     # the release's own are read


def test_a_kit_without_records_is_not_a_course_that_grades(tmp_path):
    """exercises/ alone (no solutions/, no kit/) is not a kit: it has nothing to grade with."""
    shutil.copytree(bundled_course_root() / "exercises", tmp_path / "exercises")
    assert not load_course(tmp_path).is_kit


def test_calls_the_release_could_not_record_leave_the_rest_of_the_diagnosis(graders, tmp_path):
    """The capstone's training run goes on from the parameters the student's own sgd_step
    returned: a step up the gradient leaves the reference's path at once, so those calls have no
    record in the kit (the release recorded the catalogue's own run only). The kit still names
    the mistake from the calls it has, as the instructor's install does, and the training check
    fails alike."""
    folder = reference_folder(graders[0].course, tmp_path / "ascent")
    # written otherwise than the catalogue's, so its run differs from the recorded one in the last bits
    with open(folder / "tiny_rnn.py", "a", encoding="utf-8") as fh:
        fh.write("\n\ndef sgd_step(params, grads, lr, max_norm=None):\n"
                 "    used = {'d' + k: grads['d' + k] for k in params}\n"
                 "    if max_norm is not None:\n"
                 "        used, _ = clip_by_global_norm(used, max_norm)\n"
                 "    return {k: params[k] + lr * used['d' + k] * 3.0 / 3.0 for k in params}\n")
    instructor, kit = both(graders, folder, tmp_path, ["tinyrnn"])
    assert verdicts(kit) == verdicts(instructor)
    checks, named = verdicts(kit)["tinyrnn"]
    assert ("training", False, 0) in checks and named == ["tinyrnn.ascent"]
