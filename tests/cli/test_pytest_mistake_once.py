"""pytest shows an exercise's known mistake once: under its first failing check about code
that exists, not under every failing test nor under a function still to be written."""

from grader.base.i18n import Message
from grader.kit.pytest_plugin import check_feedback, hidden_feedback
from grader.report.results import CheckResult, Diagnosis, ExerciseResult

MISTAKE = Diagnosis(id="missing_bias", title={"en": "The bias is missing", "zh": "缺少偏置"},
                    explanation={"en": "b is never added.", "zh": "没有加上 b。"}, hint={})


def result(*checks) -> ExerciseResult:
    return ExerciseResult(id="step", title={"en": "One step", "zh": "一步"}, checks=list(checks),
                          diagnoses=[MISTAKE], output="debug print\n")


def failing(name, key="cmp.values", hidden=False):
    return CheckResult(name=name, passed=False, score=0, max_score=1, message=Message(key, name="f", file="x.py"),
                       hidden=hidden)


def test_the_mistake_is_shown_under_one_test_and_pointed_to_from_the_others():
    stub, first, second = failing("helper", "err.not_implemented"), failing("values"), failing("square")
    hidden = failing("extreme", hidden=True)
    exercise = result(stub, first, second, hidden)
    texts = {c.name: check_feedback(exercise, c, "en") for c in (stub, first, second)}
    texts["hidden"] = hidden_feedback(exercise, "en")
    assert texts["values"].count("The bias is missing") == 1 and "debug print" in texts["values"]
    for name in ("helper", "square", "hidden"):
        assert "The bias is missing" not in texts[name] and "debug print" not in texts[name], name
        assert "step::values" in texts[name], name


def test_with_only_hidden_failures_the_hidden_test_shows_it():
    exercise = result(CheckResult(name="values", passed=True, score=1, max_score=1), failing("extreme", hidden=True))
    assert "缺少偏置" in hidden_feedback(exercise, "zh")
