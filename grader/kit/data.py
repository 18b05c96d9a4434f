"""The student kit's grading data: what the course's own code returns on the visible checks' inputs.

The student wheel holds no reference solution, no known-mistake implementation
and no answer key. Instead, ``grade release`` runs the visible checks on the
reference and on every known mistake in the instructor's install, and records
every result the checks and the diagnosis asked of the course's code, keyed by
a digest of the call (the function and its inputs). In the kit those records
answer in place of the code (:class:`RecordedModules`): a check gets the same
expected values, a mistake is named from the same results. A call nobody
recorded raises :class:`NotInKit`; what depends on it is left to the
instructor's grading. Hidden checks never run at release: their inputs come
from the instructor's secret, and nothing of them is in the kit.

This module writes the records at release (:func:`write_kit_data`); the records, and
what answers from them, are grader/course/kit_records.py's.
"""

from __future__ import annotations

from pathlib import Path

from grader.course.kit_records import REFERENCE, Recording


# ------------------------------------------------------------------ the release

def write_kit_data(course, folder: Path) -> None:
    """Record, in the instructor's install, what the kit needs to grade the visible checks:
    the reference's results on every visible input, and each known mistake's results on the
    calls its diagnosis replays. Every submission ``grade validate`` grades is graded here,
    visible checks only (hidden checks and the quiz never run: nothing of them is recorded),
    so every call a visible check or a diagnosis makes is in the records."""
    import shutil
    from grader.base.temp_folders import temporary_folder

    from grader.grading.engine import Grader
    from grader.grading.grade_path import grade_path
    from grader.course.runtime import CourseRuntime
    from grader.course.solution_folders import mistake_folder, reference_folder

    folder = Path(folder)
    recording = Recording()
    recording.expect(REFERENCE)
    code_exercises = [e.id for e in course.exercises.values() if not e.is_quiz]
    runtime = CourseRuntime(course, recording=recording)
    with temporary_folder("kit") as tmp, \
            Grader(course, runtime=runtime, counterexamples=False, hidden=False) as grader:
        tmp = Path(tmp)
        grade_path(reference_folder(course, tmp / "reference"), grader, code_exercises, kind="kit")
        grade_path(course.stubs_dir, grader, code_exercises, kind="kit")
        count = 0
        for exercise in course.exercises.values():
            for mistake in exercise.mistakes:
                for variant in mistake.variants:
                    recording.expect(f"mistakes/{exercise.id}/{variant.stem}")
                    count += 1
                    wrong = mistake_folder(course, mistake, variant, tmp / f"m{count}")
                    grade_path(wrong, grader, [exercise.id], kind="kit")
    recording.write(folder)
    for exercise in course.exercises.values():   # the catalogues' texts name the mistakes in the kit
        catalogue = course.root / "solutions" / "mistakes" / exercise.id / "catalogue.yaml"
        if catalogue.is_file():
            target = folder / "mistakes" / exercise.id / "catalogue.yaml"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(catalogue, target)
