"""End to end: every submission form of the reference gets full marks, the stubs zero,
and a broken file costs only the exercises that live in it."""

from __future__ import annotations

import shutil
import textwrap

import pytest

from conftest import (IMPLS, REFERENCE, STUBS, copy_reference, full_marks, notebook_from_source, single_file_source,
                      zip_folder)
from grader.report import check_message


def exercise(result, ex_id):
    return next(e for e in result.exercises if e.id == ex_id)


def test_reference_folder_full_marks_and_no_diagnosis(grade, tmp_path):
    result = grade(copy_reference(tmp_path / "ref"))
    assert full_marks(result), [(e.id, c.name) for e in result.exercises for c in e.checks if not c.passed]
    assert all(not e.diagnoses for e in result.exercises)


def test_reference_as_single_file_notebook_and_zips(grade, tmp_path):
    single = tmp_path / "homework.py"
    single.write_text(single_file_source(), encoding="utf-8")
    assert full_marks(grade(single))
    assert full_marks(grade(notebook_from_source(single_file_source(), tmp_path / "homework.ipynb")))
    folder = copy_reference(tmp_path / "ref")
    assert full_marks(grade(zip_folder(folder, tmp_path / "folder.zip")))
    assert full_marks(grade(zip_folder(folder, tmp_path / "nested.zip", prefix="my_homework/")))


def test_stubs_score_zero_and_say_not_implemented(grade):
    result = grade(STUBS)
    assert result.score == 0 and result.max_score > 100
    message = exercise(result, "step").checks[0].message
    assert message.key == "err.not_implemented"


@pytest.mark.parametrize("style", ["loops", "einsum"])
def test_alternative_correct_folders_keep_full_marks(grade, tmp_path, style):
    folder = tmp_path / style
    shutil.copytree(IMPLS / style, folder)
    shutil.copy2(copy_reference(tmp_path / "ref") / "answers.yaml", folder / "answers.yaml")
    result = grade(folder)
    failed = [(e.id, c.name, check_message(c, "en")) for e in result.exercises for c in e.checks if not c.passed]
    assert failed == []
    assert all(not e.diagnoses for e in result.exercises)


def test_alternative_single_file_with_other_answer_spellings(grade):
    result = grade(IMPLS / "single_file.py")
    failed = [(e.id, c.name, check_message(c, "en")) for e in result.exercises for c in e.checks if not c.passed]
    assert failed == []


def test_syntax_error_costs_only_its_file_and_names_the_line(grade, tmp_path):
    folder = copy_reference(tmp_path / "ref")
    (folder / "readout.py").write_text("import numpy as np\n\ndef softmax(z, axis=-1:\n    pass\n")
    result = grade(folder)
    readout = exercise(result, "readout")
    assert readout.score == 0
    assert readout.problem.key == "err.syntax"
    assert "readout.py, line 3" in readout.problem.render("en")
    others = [e for e in result.exercises if e.id != "readout"]
    assert all(e.score == e.max_score for e in others)


@pytest.mark.parametrize("body, key", [
    ("raise RuntimeError('boom at import')", "err.import_exception"),
    ("import sys\nsys.exit(3)", "err.import_exit"),
    ("import os\nos._exit(7)", "err.import_crash"),
])
def test_failure_at_import_costs_only_that_file(grade, tmp_path, body, key):
    folder = copy_reference(tmp_path / "ref")
    path = folder / "gradient_flow.py"
    path.write_text(path.read_text() + "\n" + body + "\n")
    result = grade(folder)
    flow = exercise(result, "gradient_flow")
    assert flow.score == 0 and flow.problem.key == key
    assert all(e.score == e.max_score for e in result.exercises if e.id != "gradient_flow")


def test_exceptions_crashes_and_exits_in_calls_cost_only_their_checks(grade, tmp_path):
    folder = copy_reference(tmp_path / "ref")
    path = folder / "param_count.py"
    path.write_text(path.read_text() + textwrap.dedent('''
        _real = count_rnn_params
        def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1, bidirectional=False, double_bias=False):
            import os, sys
            if double_bias:
                os._exit(9)
            if num_layers == 3:
                sys.exit("bye")
            if bidirectional:
                raise ValueError("no bidirectional today")
            return _real(input_size, hidden_size, output_size, num_layers, bidirectional, double_bias)
    '''))  # noqa: E501 -- the student's code: the def line as a student writes it
    result = grade(folder, only=["params"])
    checks = {c.name: c for c in result.exercises[0].checks}
    assert checks["chapter_examples"].passed
    assert checks["double_bias"].message.key == "err.crash"
    assert checks["multi_layer"].message.key == "err.exit"
    assert checks["bidirectional"].message.key == "err.exception"
    assert "param_count.py, line" in checks["bidirectional"].message.render("en")


def test_a_hanging_function_times_out_and_the_rest_is_graded(course, tmp_path):
    from grader.grading.engine import Grader
    from grader.submission.load import load_submission

    folder = copy_reference(tmp_path / "ref")
    path = folder / "rnn_step.py"
    path.write_text(path.read_text() + textwrap.dedent('''
        def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
            while True:
                pass
    '''))
    scalar = course.exercises["scalar"]
    saved, scalar.timeout = scalar.timeout, 0.5
    try:
        with Grader(course) as grader:
            result = grader.grade(load_submission(folder, tmp_path / "work"), ["step", "scalar"])
    finally:
        scalar.timeout = saved
    step, scalar_result = result.exercises
    assert step.score == step.max_score
    assert scalar_result.score == 0
    keys = [c.message.key for c in scalar_result.checks]
    # the timeout is paid once; later checks say it timed out before instead of waiting again
    assert keys[0] == "err.timeout" and set(keys[1:]) == {"err.timed_out_before"}


def test_an_endless_loop_costs_its_timeout_once_per_submission(course, tmp_path):
    """An endless loop in rnn_step used to cost the exercise's timeout in every check that
    called it (85 s of silence); now once, and the other checks say why they were not run."""
    import time
    from grader.grading.engine import Grader
    from grader.submission.load import load_submission

    folder = copy_reference(tmp_path / "ref")
    path = folder / "rnn_step.py"
    source = path.read_text()
    head = "def rnn_step(x_t, h_prev, W_x, W_h, b):\n"
    assert head in source
    path.write_text(source.replace(head, head + "    while True:\n        pass\n"))
    step = course.exercises["step"]
    saved, step.timeout = step.timeout, 1.0
    try:
        with Grader(course) as grader:
            start = time.monotonic()
            result = grader.grade(load_submission(folder, tmp_path / "work"), ["step", "forward"])
            took = time.monotonic() - start
    finally:
        step.timeout = saved
    step_result, forward = result.exercises
    keys = [c.message.key for c in step_result.checks]
    assert step_result.score == 0 and keys.count("err.timeout") == 1, keys
    assert set(keys) == {"err.timeout", "err.timed_out_before"}, keys
    # seven checks call rnn_step: seven timeouts would take 7 s at least
    assert took < 5, took
    # forward calls rnn_step through the student's own code: graded with a correct one (issue 12)
    assert forward.score == forward.max_score
    later = next(c.message for c in step_result.checks if c.message.key == "err.timed_out_before")
    assert "`rnn_step`" in later.render("en") and "not called again" in later.render("en")
    assert "`rnn_step`" in later.render("zh") and "超时" in later.render("zh")


def test_a_warning_names_the_student_s_file_the_same_in_every_run(grade, tmp_path):
    """Python names the file a warning comes from by its staged path, which changes with the order
    a run grades in (/submission/s48/...): the output shows the student's own file name."""
    outputs = []
    for n in range(2):
        folder = copy_reference(tmp_path / f"ref{n}")
        path = folder / "rnn_step.py"
        path.write_text("import warnings\nwarnings.warn('from the import')\n" + path.read_text())
        outputs.append(grade(folder, only=["step"]).exercises[0].output)
    assert outputs[0] == outputs[1], outputs
    assert "rnn_step.py:2: UserWarning: from the import" in outputs[0]
    assert "/submission/" not in outputs[0] and "grade-exchange" not in outputs[0]


def test_student_prints_are_captured_not_leaked(grade, tmp_path, capfd):
    folder = copy_reference(tmp_path / "ref")
    path = folder / "rnn_step.py"
    path.write_text("print('hello from import')\nimport os\nos.write(1, b'raw fd write\\n')\n" + path.read_text())
    result = grade(folder, only=["step"])
    out, err = capfd.readouterr()
    assert "hello" not in out and "raw fd" not in out and "hello" not in err
    assert "hello from import" in result.exercises[0].output
    assert result.exercises[0].score == result.exercises[0].max_score


def test_bom_crlf_chinese_comments_and_main_block_grade_normally(grade, tmp_path):
    folder = copy_reference(tmp_path / "ref")
    path = folder / "rnn_forward.py"
    source = ("# 前向传播：逐步更新隐藏状态\n" + path.read_text()
              + "\nif __name__ == '__main__':\n    raise SystemExit('demo')\n")
    path.write_bytes(b"\xef\xbb\xbf" + source.replace("\n", "\r\n").encode("utf-8"))
    result = grade(folder, only=["forward"])
    assert full_marks(result)


def test_missing_file_costs_its_exercises(grade, tmp_path):
    folder = copy_reference(tmp_path / "ref")
    (folder / "birnn.py").unlink()
    result = grade(folder)
    birnn = exercise(result, "birnn")
    assert birnn.score == 0 and birnn.problem.key == "err.missing_file"
    assert exercise(result, "bptt").score == exercise(result, "bptt").max_score


def test_malformed_answers_yaml_costs_only_the_quiz(grade, tmp_path):
    folder = copy_reference(tmp_path / "ref")
    (folder / "answers.yaml").write_text("params_rnn: 32\nstep_equation: [unclosed\n")
    result = grade(folder)
    quiz = exercise(result, "quiz")
    assert quiz.score == 0 and quiz.problem.key == "err.answers_yaml"
    assert "line" in quiz.problem.render("en")
    assert all(e.score == e.max_score for e in result.exercises if e.id != "quiz")


def test_yaml_alias_bomb_and_python_tags_are_refused(grade, tmp_path):
    folder = copy_reference(tmp_path / "ref")
    bomb = ("a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            "c: [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n")
    (folder / "answers.yaml").write_text(bomb)
    assert exercise(grade(folder, only=["quiz"]), "quiz").problem.key == "err.answers_yaml"
    (folder / "answers.yaml").write_text("params_rnn: !!python/object/apply:os.system ['true']\n")
    assert exercise(grade(folder, only=["quiz"]), "quiz").problem.key == "err.answers_yaml"


def test_single_file_without_answers_dict_loses_only_the_quiz(grade, tmp_path):
    single = tmp_path / "hw.py"
    single.write_text(single_file_source().split("ANSWERS =")[0])
    result = grade(single)
    quiz = exercise(result, "quiz")
    assert quiz.score == 0 and quiz.problem.key == "err.no_answers_dict"
    assert all(e.score == e.max_score for e in result.exercises if e.id != "quiz")


def test_partial_quiz_credit(grade, tmp_path):
    folder = copy_reference(tmp_path / "ref")
    text = (folder / "answers.yaml").read_text()
    text = text.replace("classification: A", "classification: B")
    (folder / "answers.yaml").write_text(text)
    quiz = exercise(grade(folder, only=["quiz"]), "quiz")
    match = next(c for c in quiz.checks if c.name == "match_outputs")
    assert not match.passed and 0 < match.score < match.max_score


@pytest.mark.parametrize("libyaml", [True, False])
def test_answers_load_alike_with_and_without_libyaml(monkeypatch, libyaml):
    import yaml

    from grader.submission.answers import load_answers

    text = (REFERENCE / "answers.yaml").read_text(encoding="utf-8")
    expected = yaml.safe_load(text)
    monkeypatch.setattr(yaml, "__with_libyaml__", libyaml and yaml.__with_libyaml__, raising=False)
    assert load_answers(text) == expected
    for bad in ("a: &x [1]\nb: *x\n", "a: " + "[" * 5000 + "]" * 5000 + "\n"):
        with pytest.raises((yaml.YAMLError, RecursionError)):
            load_answers(bad)


def test_a_call_with_the_wrong_arguments_points_at_no_line(grade, tmp_path):
    # The TypeError is raised before any line of the student's runs: no "(-)" where the line would be.
    folder = copy_reference(tmp_path / "ref")
    (folder / "rnn_step.py").write_text("import numpy as np\n\ndef rnn_step(x_t, h_prev, W_x, W_h):\n"
                                        "    return np.tanh(x_t @ W_x + h_prev @ W_h)\n")
    result = grade(folder, only=["step"])
    failed = [c for c in result.exercises[0].checks if not c.passed]
    assert failed and {c.message.key for c in failed} == {"err.exception_unplaced"}
    for lang in ("en", "zh"):
        text = failed[0].message.render(lang)
        assert "TypeError" in text and "5 were given" in text and "(-)" not in text and "（-）" not in text
