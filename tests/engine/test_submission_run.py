"""One Grader, one run per submission (grader/grading/run.py): the stages run in their declared
order, and nothing of one submission reaches the next one's grading."""

from __future__ import annotations

from conftest import ROOT, copy_reference, with_mistake
from grader.grading.run import SubmissionRun
from grader.submission.load import load_submission

MISTAKES = ROOT / "solutions" / "mistakes"


def _without_times(data):
    if isinstance(data, dict):
        return {k: _without_times(v) for k, v in data.items() if k != "elapsed"}
    if isinstance(data, list):
        return [_without_times(v) for v in data]
    return data


def test_the_stages_run_in_their_declared_order(grader, tmp_path):
    folder = with_mistake(copy_reference(tmp_path / "s"), "rnn_step.py", MISTAKES / "step" / "keeps_state.py")
    run = SubmissionRun(grader, load_submission(folder, tmp_path / "work"), ["step", "forward", "quiz"])
    result = run.run()
    assert [e.id for e in result.exercises] == ["step", "forward", "quiz"]
    assert [stage for stage, exercise in run.trace if exercise is None] == list(SubmissionRun.STAGES)
    for exercise in ("step", "forward"):
        stages = [stage for stage, which in run.trace if which == exercise]
        assert stages == [*SubmissionRun.EXERCISE_STAGES, *SubmissionRun.HIDDEN_STAGES], (exercise, stages)
    assert ("quiz", "quiz") in run.trace
    # every exercise's stages come within "exercises" or "hidden_checks_last", never after "unstage"
    names = [stage for stage, _ in run.trace]
    assert names.index("exercises") < names.index(SubmissionRun.EXERCISE_STAGES[0]) < names.index("unstage")
    assert max(i for i, (_, which) in enumerate(run.trace) if which) < names.index("unstage")


def test_a_grader_carries_nothing_from_one_submission_to_the_next(grader, tmp_path):
    """A submission that loses points (stand-ins, lost exercises, timed-out and broken modules) and
    then another: the second is graded as it is alone."""
    only = ["step", "forward", "bptt"]
    first = with_mistake(copy_reference(tmp_path / "a"), "rnn_step.py", MISTAKES / "step" / "keeps_state.py")
    (first / "bptt.py").write_text("def broken(:\n", encoding="utf-8")
    second = with_mistake(copy_reference(tmp_path / "b"), "rnn_forward.py",
                          MISTAKES / "forward" / "ignores_h0.py")

    def grade(folder, work):
        return grader.grade(load_submission(folder, tmp_path / work), only)

    alone = grade(second, "w0")
    lost_first = grade(first, "w1")
    assert lost_first.score < lost_first.max_score
    after = grade(second, "w2")
    assert _without_times(after.to_data()) == _without_times(alone.to_data())
    assert after.score < after.max_score
