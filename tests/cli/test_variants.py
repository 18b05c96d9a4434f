"""Per-student variants (CONTRACT section 11): a quiz question declares parameters drawn from the
course secret and the student's id; ``grade release --roster`` writes one kit per student with
their own numbers, the same on every release; ``grade class --roster`` grades each entry against
its student's own answer, so another student's numbers are wrong; an entry not on the roster is
not graded. The bundled course is untouched: a copy of tests/courses/stats gains the question."""

from __future__ import annotations

import json
import os
import shutil

import nbformat
import pytest
import yaml

from conftest import ROOT, run_grade as run
from grader.base.errors import CourseError
from grader.sandbox.isolation import bwrap_path
from grader.quiz.variants import draw, evaluate

SECRET = "variants-test-secret-0123456789abcdef"
ENV = dict(os.environ, GRADER_SECRET=SECRET)
PARAMS = {"d": [2, 8], "H": [2, 8]}
QUESTION = {
    "key": "param_count", "format": "int", "points": 2, "params": PARAMS, "defaults": {"d": 3, "H": 4},
    "answer": "H*d + H*H + H",
    "question": {"en": "How many parameters has an RNN cell with d = {d} inputs and H = {H} hidden units?",
                 "zh": "输入 d = {d}、隐藏单元 H = {H} 的 RNN 单元有多少个参数？"},
    "hint": {"en": "W_x, W_h and b.", "zh": "W_x、W_h 与 b。"},
}


def answer_of(student: str) -> int:
    values = draw(SECRET.encode(), student, "param_count", PARAMS)
    return values["H"] * values["d"] + values["H"] ** 2 + values["H"]


@pytest.fixture
def course(tmp_path):
    root = tmp_path / "course"
    shutil.copytree(ROOT / "tests" / "courses" / "stats", root)
    quiz = root / "exercises" / "quiz.yaml"
    data = yaml.safe_load(quiz.read_text(encoding="utf-8"))
    data["questions"].append(QUESTION)
    quiz.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    for answers, value in ((root / "solutions" / "reference" / "answers.yaml", "32"),
                           (root / "exercises" / "stubs" / "answers.yaml", "")):
        answers.write_text(answers.read_text(encoding="utf-8") + f"\nparam_count: {value}\n", encoding="utf-8")
    return root


def test_values_are_drawn_per_student_and_stable():
    secret = SECRET.encode()
    alice, bob = draw(secret, "alice", "q", PARAMS), draw(secret, "bob", "q", PARAMS)
    assert alice == draw(secret, "alice", "q", PARAMS)
    assert all(2 <= v <= 8 for v in (*alice.values(), *bob.values()))
    assert draw(b"another secret of the course", "alice", "q", PARAMS) != alice or \
        draw(b"another secret of the course", "bob", "q", PARAMS) != bob
    seen = {tuple(draw(secret, f"s{n}", "q", PARAMS).values()) for n in range(200)}
    assert len(seen) > 30                               # spread over the 49 combinations
    assert draw(secret, "x", "q", {"act": {"choices": ["tanh", "relu"]}})["act"] in ("tanh", "relu")
    assert evaluate("H*d + H*H + H", {"d": 3, "H": 4}) == 32
    assert evaluate("round(sqrt(d) * 2, 2)", {"d": 4}) == 4.0
    for bad in ("__import__('os')", "d.__class__", "[d]", "2 ** 1000", "H +"):
        with pytest.raises(CourseError):
            evaluate(bad, {"d": 3, "H": 4})


def test_one_kit_per_student_the_same_on_every_release(course, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("student,name\nalice,Alice A\nbob,Bob B\n", encoding="utf-8")
    kits = []
    for n in (1, 2):
        out = tmp_path / f"kits{n}"
        code, out_text, err = run("release", out, "--course", course, "--roster", roster,
                                  "--grader-requirement", "rnn-grader==0.1.0", env=ENV)
        assert code == 0, err
        assert "(2 kits)" in out_text
        kits.append(out)
    texts = {}
    for student in ("alice", "bob"):
        first = (kits[0] / student / "stats_exercises.ipynb").read_text(encoding="utf-8")
        # every cell the same (nbformat gives each cell a random id on every release, variants or not)
        assert [c.source for c in nbformat.reads(first, as_version=4).cells] == \
            [c.source for c in nbformat.read(kits[1] / student / "stats_exercises.ipynb", as_version=4).cells]
        for name in ("answers.yaml", "stats.py", "README.md"):
            assert (kits[0] / student / name).read_bytes() == (kits[1] / student / name).read_bytes()
        values = draw(SECRET.encode(), student, "param_count", PARAMS)
        assert f"d = {values['d']} inputs and H = {values['H']} hidden units" in first
        assert f"输入 d = {values['d']}、隐藏单元 H = {values['H']}" in first
        assert "{d}" not in first
        texts[student] = first
    assert texts["alice"] != texts["bob"]
    nbformat.validate(nbformat.reads(texts["alice"], as_version=4))
    # a roster that cannot name kit folders is bad input
    bad = tmp_path / "bad.csv"
    bad.write_text("student\n../escape\n", encoding="utf-8")
    code, _, err = run("release", tmp_path / "k3", "--course", course, "--roster", bad,
                       "--grader-requirement", "rnn-grader==0.1.0", env=ENV)
    assert code == 2 and "cannot name a kit folder" in err


@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")
def test_each_entry_is_graded_against_its_own_variant(course, tmp_path):
    assert answer_of("alice") != answer_of("bob")
    cls = tmp_path / "class"
    reference = course / "solutions" / "reference"
    for student, answer in (("alice", answer_of("alice")), ("bob", answer_of("bob")),
                            ("carol", answer_of("alice")),     # carol copied alice's number
                            ("mallory", answer_of("alice"))):  # not on the roster
        shutil.copytree(reference, cls / student)
        answers = cls / student / "answers.yaml"
        answers.write_text(answers.read_text(encoding="utf-8").replace("param_count: 32", f"param_count: {answer}"),
                           encoding="utf-8")
    roster = tmp_path / "roster.csv"
    roster.write_text("student\nalice\nbob\ncarol\n", encoding="utf-8")
    book = tmp_path / "book.sqlite"
    code, out, err = run("class", cls, "--course", course, "--gradebook", book, "--roster", roster,
                         "--no-counterexamples", "--format", "json", env=ENV)
    assert code == 0, err
    assert "skipped mallory: not on the roster" in err
    scores = {s["student"]: {e["id"]: e for e in s["exercises"]} for s in json.loads(out)["submissions"]}
    assert set(scores) == {"alice", "bob", "carol"}

    def param_count(student):
        return next(c for c in scores[student]["quiz"]["checks"] if c["name"] == "param_count")

    assert param_count("alice")["passed"] and param_count("bob")["passed"]
    assert not param_count("carol")["passed"]             # alice's number is wrong for carol
    # the instructor's grade check (no student) grades against the answer key's defaults: 32
    code, out, _ = run("check", cls / "alice", "--course", course, "--only", "quiz", "--format", "json", env=ENV)
    checks = {c["name"]: c for c in json.loads(out)["exercises"][0]["checks"]}
    assert checks["param_count"]["passed"] == (answer_of("alice") == 32)
    code, out, _ = run("check", reference, "--course", course, "--only", "quiz", "--format", "json", env=ENV)
    assert json.loads(out)["score"] == json.loads(out)["max_score"]


def test_a_cluster_worker_grades_the_students_variant(course, tmp_path, monkeypatch):
    """grader/classroom.grade_loaded, where a Dask worker ends: the variant of the student it is
    given, from the secret the worker holds (checked against the client's)."""
    from grader.classroom.class_run import grade_loaded
    from grader.course.loader import load_course
    from grader.grading.engine import Grader
    from grader.submission.load import load_submission

    monkeypatch.setenv("GRADER_SECRET", SECRET)
    folder = tmp_path / "alice"
    shutil.copytree(course / "solutions" / "reference", folder)
    answers = folder / "answers.yaml"
    answers.write_text(answers.read_text(encoding="utf-8").replace("param_count: 32",
                                                                   f"param_count: {answer_of('alice')}"))
    loaded = load_course(course)
    with Grader(loaded, isolation="none", counterexamples=False) as grader_:
        verdicts = {}
        for student in ("alice", "bob"):
            submission = load_submission(folder, tmp_path / f"work-{student}")
            _, graded, problem, _ = grade_loaded(grader_, None, student, submission, ("quiz",), 0.0)
            assert problem is None, problem
            result = json.loads(graded[0].result)
            verdicts[student] = [c for e in result["exercises"] for c in e["checks"] if c["name"] == "param_count"]
    assert verdicts["alice"][0]["passed"] and not verdicts["bob"][0]["passed"]


def test_a_wrong_default_is_the_course_error_validate_finds(course, tmp_path):
    """The answer key must be the answer of ``defaults``: otherwise grade validate names the question."""
    answers = course / "solutions" / "reference" / "answers.yaml"
    answers.write_text(answers.read_text(encoding="utf-8").replace("param_count: 32", "param_count: 33"))
    code, out, err = run("validate", "--course", course, "--only", "quiz", env=ENV)
    assert code != 0
    assert "the answer key says 33, but its answer with the defaults" in out + err
