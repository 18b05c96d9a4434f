"""Tests for grader/quiz/grade.py: one quiz answer -> Verdict."""

from __future__ import annotations

import dataclasses
import math
import string
from pathlib import Path

import numpy as np
import pytest
import yaml

from grader.quiz import grade as quiz
from grader.quiz.grade import Verdict, grade_answer

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "grader" / "base" / "locales"


def _catalogue(lang):
    with open(LOCALES / lang / "quiz.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


CATALOGUES = {lang: _catalogue(lang) for lang in ("en", "zh")}

BOOL = {"key": "tf_order_matters", "format": "bool"}
CHOICE = {"key": "long_range_cause", "format": "choice", "choices": ["A", "B", "C", "D"]}
# The list question as the course declares it: its options and the aliases students use.
LIST = {"key": "shared_parameters", "format": "list",
        **{k: v for k, v in next(q for q in yaml.safe_load(
            (Path(__file__).resolve().parents[2] / "exercises" / "quiz.yaml").read_text(encoding="utf-8"))["questions"]
            if q["key"] == "shared_parameters").items() if k in ("options", "aliases")}}
INT = {"key": "params_rnn", "format": "int"}
NUMBER = {"key": "scalar_last_state", "format": "number"}
MAPPING = {"key": "match_outputs", "format": "mapping", "choices": ["A", "B", "C", "D"]}
EQUATION = {k: v for k, v in next(q for q in yaml.safe_load(
    (Path(__file__).resolve().parents[2] / "exercises" / "quiz.yaml").read_text(encoding="utf-8"))["questions"]
    if q["key"] == "step_equation").items() if k in ("key", "format", "equation")}

SHARED = ["W_x", "W_h", "b"]
MATCH = {"classification": "A", "tagging": "B", "next_step": "C", "seq2seq": "D"}
SCALAR = -0.6741436761583508


def check(verdict):
    """Every verdict obeys the interface: credit in range, known key, plain short params."""
    assert isinstance(verdict, Verdict)
    assert isinstance(verdict.fraction, float)
    assert 0.0 <= verdict.fraction <= 1.0
    for lang, catalogue in CATALOGUES.items():
        assert verdict.message in catalogue, (lang, verdict.message)
        template = catalogue[verdict.message]
        fields = {f for _, f, _, _ in string.Formatter().parse(template) if f}
        assert fields <= set(verdict.params), (verdict, template)
        template.format(**verdict.params)
    for value in verdict.params.values():
        assert type(value) in (str, int, float)
        if isinstance(value, str):
            assert len(value) <= 80
    return verdict


def grade(spec, given, expected):
    return check(grade_answer(spec, given, expected))


# --------------------------------------------------------------------------
# unanswered
# --------------------------------------------------------------------------

@pytest.mark.parametrize("spec,expected", [
    (BOOL, True), (CHOICE, "B"), (LIST, SHARED), (INT, 32), (NUMBER, SCALAR),
    (MAPPING, MATCH), (EQUATION, "h_t = tanh(x_t W_x + h_{t-1} W_h + b)"),
])
@pytest.mark.parametrize("given", [None, "", "   ", "\n", [], {}])
def test_unanswered(spec, expected, given):
    verdict = grade(spec, given, expected)
    assert (verdict.fraction, verdict.message) == (0.0, "quiz.unanswered")


# --------------------------------------------------------------------------
# bool
# --------------------------------------------------------------------------

@pytest.mark.parametrize("given", [True, "true", "True", " TRUE ", "yes", "t", "T", "对", "正确", " 对 ",
                                   np.bool_(True), "y", "是"])
def test_bool_true_spellings(given):
    assert grade(BOOL, given, True) == Verdict(1.0, "quiz.correct")
    assert grade(BOOL, given, False) == Verdict(0.0, "quiz.wrong")


@pytest.mark.parametrize("given", [False, "false", "False", "no", "f", "F", "错", "错误", "否", "false.",
                                   yaml.safe_load("no"), yaml.safe_load("'错'")])
def test_bool_false_spellings(given):
    assert grade(BOOL, given, False) == Verdict(1.0, "quiz.correct")
    assert grade(BOOL, given, True) == Verdict(0.0, "quiz.wrong")


@pytest.mark.parametrize("given", [0, 1, 1.0, 0.0, "1", "0", "maybe", "truee", [True], {"a": True},
                                   "true false", "x" * 10**6, float("nan")])
def test_bool_rejects_non_bool_values(given):
    verdict = grade(BOOL, given, True)
    assert (verdict.fraction, verdict.message) == (0.0, "quiz.not_bool")
    assert len(verdict.params["given"]) <= 80


def test_bool_answer_key_may_be_a_string():
    assert grade(BOOL, True, "true").fraction == 1.0
    assert grade(BOOL, "错", "false").fraction == 1.0


def test_bool_wrong_does_not_reveal():
    verdict = grade(BOOL, True, False)
    assert verdict.params == {}


# --------------------------------------------------------------------------
# choice
# --------------------------------------------------------------------------

@pytest.mark.parametrize("given", ["B", "b", "b.", "B.", "(b)", "(B)", " B) ", "B)", "b )", "（B）", "Ｂ",
                                   "[B]", "B、", "B. the gradient reaching k steps back vanishes"])
def test_choice_spellings(given):
    assert grade(CHOICE, given, "B") == Verdict(1.0, "quiz.correct")


@pytest.mark.parametrize("given", ["A", "c.", "(d)"])
def test_choice_wrong(given):
    verdict = grade(CHOICE, given, "B")
    assert verdict == Verdict(0.0, "quiz.wrong")


@pytest.mark.parametrize("given", ["E", "z", "(e)", "BC", "B, C", 2, True, 1.0, ["B"], {"B": 1},
                                   "the second one", "x" * 10**6, "AB."])
def test_choice_not_a_choice(given):
    verdict = grade(CHOICE, given, "B")
    assert (verdict.fraction, verdict.message) == (0.0, "quiz.not_a_choice")
    assert verdict.params["choices"] == "A, B, C, D"
    assert len(verdict.params["given"]) <= 80


def test_choice_respects_spec_choices():
    spec = dict(CHOICE, choices=["A", "B", "C"])
    assert grade(spec, "D", "B").message == "quiz.not_a_choice"
    assert grade(spec, "D", "B").params["choices"] == "A, B, C"
    assert grade(dict(CHOICE, choices=["A", "B", "C", "D", "E"]), "e", "E").fraction == 1.0


def test_choice_default_choices_without_spec():
    spec = {"key": "q", "format": "choice"}
    assert grade(spec, "b)", "B").fraction == 1.0
    assert grade(spec, "F", "B").message == "quiz.not_a_choice"


# --------------------------------------------------------------------------
# list
# --------------------------------------------------------------------------

@pytest.mark.parametrize("given", [
    ["W_x", "W_h", "b"],
    ["b", "W_h", "W_x"],
    ("W_x", "W_h", "b"),
    ["Wx", "Wh", "b"],
    ["W_{x}", "W_{h}", "b"],
    ["w_x", "w_h", "B"],
    ["`W_x`", "'W_h'", '"b"'],
    ["$W_x$", "$W_h$", "$b$"],
    ["W_xh", "W_hh", "b"],
    ["W_x", "W_h", "b", "W_x"],
    "W_x, W_h, b",
    "W_x W_h b",
    "W_x、W_h、b",
    "W_x，W_h，b",
    "[W_x, W_h, b]",
    "W_x, W_h and b",
    "W_x、W_h 和 b",
    ["W_x, W_h", "b"],
    [r"\mathbf{W}_x", r"\mathbf{W}_h", r"\mathbf{b}"],
    yaml.safe_load("{W_x, W_h, b}"),
    yaml.safe_load("- W_x\n- W_h\n- b"),
    yaml.safe_load("W_x, W_h, b"),
])
def test_list_accepted(given):
    assert grade(LIST, given, SHARED) == Verdict(1.0, "quiz.correct")


@pytest.mark.parametrize("given,fraction", [
    (["W_x", "W_h"], 2 / 3),
    (["W_x"], 1 / 3),
    (["W_x", "W_h", "b", "h_t"], 2 / 3),
    (["W_x", "W_h", "b", "h_t", "x_t"], 1 / 3),
    (["W_x", "h_0"], 0.0),
    (["x_t", "h_t", "h_0"], 0.0),
    (["W_x", "W_h", "b", "x_t", "h_t", "h_0"], 0.0),
])
def test_list_partial_credit(given, fraction):
    verdict = grade(LIST, given, SHARED)
    assert verdict.fraction == pytest.approx(fraction)
    if fraction == 0:
        assert verdict.message == "quiz.wrong"
    else:
        assert verdict.message == "quiz.list_partial"
        assert verdict.params == {"credit": round(100 * fraction)}


def test_list_does_not_conflate_h_t_and_h_0():
    spec = dict(LIST)
    assert grade(spec, ["h_t"], ["h_0"]).fraction == 0.0
    assert grade(spec, ["h_0"], ["h_0"]).fraction == 1.0
    assert grade(spec, ["h0"], ["h_0"]).fraction == 1.0
    assert grade(spec, ["W_h"], ["W_x"]).fraction == 0.0


def test_list_unknown_names_are_mentioned():
    verdict = grade(LIST, ["W_x", "W_h", "b", "W_o"], SHARED)
    assert verdict.message == "quiz.list_unknown"
    assert verdict.params["unknown"] == "W_o"
    assert verdict.fraction == 1.0          # unknown names are mentioned, not penalised
    verdict = grade(LIST, "W_x, U, V", SHARED)
    assert verdict.message == "quiz.list_unknown"
    assert verdict.params["unknown"] == "U, V"
    assert verdict.fraction == pytest.approx(1 / 3)


def test_list_unknown_is_truncated():
    verdict = grade(LIST, ["Q" * 500, "Z" * 500], SHARED)
    assert verdict.message == "quiz.list_unknown"
    assert len(verdict.params["unknown"]) <= 80
    assert verdict.fraction == 0.0


@pytest.mark.parametrize("given", [32, 1.5, True, {"W_x": 1}, "x" * 10**6, list(range(1000))])
def test_list_rejects_non_lists(given):
    verdict = grade(LIST, given, SHARED)
    assert verdict.fraction == 0.0
    assert verdict.message in ("quiz.not_a_list", "quiz.list_unknown")


def test_list_nested_junk_is_unknown_not_a_crash():
    verdict = grade(LIST, [["W_x"], {"a": [1, 2]}, None, 3.5], SHARED)
    assert verdict.fraction == 0.0
    assert verdict.message == "quiz.list_unknown"


def test_list_empty_answer_key():
    assert grade(LIST, [], []) == Verdict(1.0, "quiz.correct")


def test_list_messages_do_not_reveal():
    verdict = grade(LIST, ["W_x"], SHARED)
    assert "W_h" not in str(verdict.params) and "b" not in str(verdict.params.values())


# --------------------------------------------------------------------------
# int
# --------------------------------------------------------------------------

@pytest.mark.parametrize("given", [32, 32.0, "32", " 32 ", "32.0", "3.2e1", "+32", np.int64(32),
                                   np.float64(32.0), "３２"])
def test_int_accepted(given):
    assert grade(INT, given, 32) == Verdict(1.0, "quiz.correct")


def test_int_thousands():
    assert grade(INT, "1,000", 1000).fraction == 1.0
    assert grade(INT, "1_000", 1000).fraction == 1.0


@pytest.mark.parametrize("given", [True, False, 32.5, "32.5", "thirty-two", "32 params", [32], {"n": 32},
                                   float("nan"), float("inf"), "x" * 10**6, "1e400", np.bool_(True)])
def test_int_rejects(given):
    verdict = grade(INT, given, 32)
    assert (verdict.fraction, verdict.message) == (0.0, "quiz.not_int")
    assert len(verdict.params["given"]) <= 80


@pytest.mark.parametrize("given", [31, 33, 35, 29, "34"])
def test_int_close(given):
    verdict = grade(INT, given, 32)
    assert (verdict.fraction, verdict.message) == (0.0, "quiz.int_close")
    assert verdict.params["close"] == 1


@pytest.mark.parametrize("given", [36, 28, 0, -32, 320, 10**400])
def test_int_far(given):
    verdict = grade(INT, given, 32)
    assert (verdict.fraction, verdict.message) == (0.0, "quiz.wrong_number")
    assert verdict.params["close"] == 0
    assert set(verdict.params) == {"given", "close"}     # the student's value only


def test_int_expected_zero_is_never_close():
    assert grade(INT, 1, 0).message == "quiz.wrong_number"


# --------------------------------------------------------------------------
# number
# --------------------------------------------------------------------------

@pytest.mark.parametrize("given", [SCALAR, -0.674, -0.6745, "-0.674", " -0.67414 ", "−0.6741", np.float32(-0.6741)])
def test_number_accepted(given):
    assert grade(NUMBER, given, SCALAR) == Verdict(1.0, "quiz.correct")


def test_number_int_accepted():
    assert grade(NUMBER, 2, 2.0).fraction == 1.0
    assert grade(NUMBER, "2", 2.0).fraction == 1.0


@pytest.mark.parametrize("given", [-0.67, -0.68, -0.66, "-0.7"])
def test_number_close(given):
    verdict = grade(NUMBER, given, SCALAR)
    assert (verdict.fraction, verdict.message) == (0.0, "quiz.number_close")


@pytest.mark.parametrize("given", [0.674, 0.0, -1, 12345, "1e308", 10**400])
def test_number_far(given):
    assert grade(NUMBER, given, SCALAR) == Verdict(0.0, "quiz.wrong")


@pytest.mark.parametrize("given", [float("nan"), float("inf"), float("-inf"), "nan", "inf", "-Infinity"])
def test_number_nan_inf_are_wrong(given):
    assert grade(NUMBER, given, SCALAR) == Verdict(0.0, "quiz.wrong")


@pytest.mark.parametrize("given", [True, False, "about -0.67", [SCALAR], {"v": SCALAR}, "x" * 10**6, object()])
def test_number_rejects(given):
    verdict = grade(NUMBER, given, SCALAR)
    assert (verdict.fraction, verdict.message) == (0.0, "quiz.not_number")


def test_number_tolerances_from_spec():
    tight = dict(NUMBER, rtol=0, atol=1e-12)
    assert grade(tight, -0.674, SCALAR).message == "quiz.number_close"
    loose = dict(NUMBER, rtol=0.1, atol=0)
    assert grade(loose, -0.7, SCALAR).fraction == 1.0
    broken = dict(NUMBER, rtol="junk", atol=None)
    assert grade(broken, -0.6741, SCALAR).fraction == 1.0     # defaults


def test_number_near_zero_uses_atol():
    assert grade(NUMBER, 5e-7, 0.0).fraction == 1.0
    assert grade(NUMBER, 5e-6, 0.0).message == "quiz.number_close"
    assert grade(NUMBER, 0.1, 0.0).message == "quiz.wrong"


# --------------------------------------------------------------------------
# mapping
# --------------------------------------------------------------------------

@pytest.mark.parametrize("given", [
    MATCH,
    {"classification": "a", "tagging": "b.", "next_step": "(c)", "seq2seq": " D) "},
    {"Classification": "A", "Tagging": "B", "next step": "C", "Seq2Seq": "D"},
    {"classification": "A", "tagging": "B", "next-step": "C", "seq2seq": "D"},
    "classification: A, tagging: B, next_step: C, seq2seq: D",
    "classification: A\ntagging: B\nnext_step: C\nseq2seq: D",
])
def test_mapping_accepted(given):
    assert grade(MAPPING, given, MATCH) == Verdict(1.0, "quiz.correct")


def test_mapping_partial_lists_wrong_keys():
    given = {"classification": "A", "tagging": "C", "next_step": "B", "seq2seq": "D"}
    verdict = grade(MAPPING, given, MATCH)
    assert verdict.fraction == 0.5
    assert verdict.message == "quiz.mapping_wrong_keys"
    assert verdict.params == {"wrong": "tagging, next_step", "right": 2, "total": 4}


def test_mapping_missing_keys_are_wrong():
    verdict = grade(MAPPING, {"classification": "A"}, MATCH)
    assert verdict.fraction == 0.25
    assert verdict.params["wrong"] == "tagging, next_step, seq2seq"


def test_mapping_bad_values_are_wrong_not_fatal():
    given = {"classification": ["A"], "tagging": None, "next_step": {"x": 1}, "seq2seq": "D"}
    verdict = grade(MAPPING, given, MATCH)
    assert verdict.fraction == 0.25
    assert verdict.message == "quiz.mapping_wrong_keys"


def test_mapping_unknown_keys_are_mentioned():
    given = {"classify": "A", "tagging": "B", "next_step": "C", "seq2seq": "D"}
    verdict = grade(MAPPING, given, MATCH)
    assert verdict.fraction == 0.75
    assert verdict.message == "quiz.mapping_unknown_keys"
    assert verdict.params["unknown"] == "classify"
    assert verdict.params["wrong"] == "classification"


def test_mapping_does_not_reveal_letters():
    verdict = grade(MAPPING, {"classification": "B", "tagging": "A", "next_step": "C", "seq2seq": "D"}, MATCH)
    assert not any(v in ("A", "B") for v in verdict.params.values())
    assert "A" not in verdict.params["wrong"].replace("classification", "").upper().replace("TAGGING", "")


@pytest.mark.parametrize("given", ["A B C D", 42, ["A", "B", "C", "D"], True, "x" * 10**6])
def test_mapping_rejects_non_mappings(given):
    verdict = grade(MAPPING, given, MATCH)
    assert (verdict.fraction, verdict.message) == (0.0, "quiz.not_mapping")


def test_mapping_huge_dict():
    given = {f"k{i}": "A" for i in range(10**5)}
    given.update(MATCH)
    verdict = grade(MAPPING, given, MATCH)
    assert verdict.fraction < 1.0          # the real keys come after the first 100
    assert verdict.message == "quiz.mapping_unknown_keys"


# --------------------------------------------------------------------------
# equation
# --------------------------------------------------------------------------

def test_equation_accepted():
    key = "h_t = tanh(x_t @ W_x + h_{t-1} @ W_h + b)"
    assert grade(EQUATION, r"h_t = \tanh(W_h h_{t-1} + W_x x_t + b)", key) == Verdict(1.0, "equation.ok",
                                                                                      {"convention": "column"})
    assert grade(EQUATION, "tanh(x_tW_x + h_(t−1)W_h + b)", key).fraction == 1.0


@pytest.mark.parametrize("given,key", [
    ("h_t = tanh(x_t W_x + h_{t-1} W_h)", "equation.missing_bias"),
    ("h_t = tanh(W_h h_{t-1} + x_t W_x + b)", "equation.mixed_conventions"),
    ("h_t = sigmoid(x_t W_x + h_{t-1} W_h + b)", "equation.wrong_activation"),
    ("h_t = tanh(x_t W_x + h_t W_h + b)", "equation.uses_result_not_previous"),
    ("h_t = tanh(x_t W_h + h_{t-1} W_x + b)", "equation.swapped"),
    ("h_t = tanh(", "equation.unparsable"),
])
def test_equation_rejected(given, key):
    verdict = grade(EQUATION, given, "h_t = tanh(x_t @ W_x + h_{t-1} @ W_h + b)")
    assert (verdict.fraction, verdict.message) == (0.0, key)


def test_equation_without_a_usable_reference_is_the_course_fault():
    """A broken answer key is named as such, not charged to the student as a wrong answer."""
    verdict = grade(EQUATION, "h_t = tanh(x_t W_x + h_{t-1} W_h + b)", "h_t = tanh(x_t W_q + b)")
    assert (verdict.fraction, verdict.message) == (0.0, "equation.bad_question")
    assert "W_q" in verdict.params["problem"]
    assert grade({"key": "eq", "format": "equation"}, "y = x", "y = x").message == "equation.bad_question"


@pytest.mark.parametrize("given", [42, 1.5, True, ["h_t = tanh(x_t W_x + h_{t-1} W_h + b)"], {"eq": "x"}])
def test_equation_not_text(given):
    verdict = grade(EQUATION, given, "unused")
    assert (verdict.fraction, verdict.message) == (0.0, "quiz.not_text")


# --------------------------------------------------------------------------
# junk, for every format
# --------------------------------------------------------------------------

def _deep(n):
    value = "B"
    for _ in range(n):
        value = {"a": [value]}
    return value


class _Nasty:
    def __repr__(self):
        raise RuntimeError("no repr")

    def __str__(self):
        raise RuntimeError("no str")


_loop = []
_loop.append(_loop)

JUNK = [
    _deep(5000), {"a": {"b": {"c": {"d": [1, 2, {"e": None}]}}}}, [[[[["W_x"]]]]],
    "x" * 10**6, "\x00" * 1000, "对" * 10**5, 10**5000, -10**5000, 1e308, -0.0,
    float("nan"), float("inf"), 0.5, 1.0, 0.0, b"bytes", bytearray(b"B"), _Nasty(), _loop,
    {1: 2, (3, 4): [5]}, {None: None}, set(), frozenset({"zzz"}), range(10), np.arange(5),
    np.float64("nan"), object(), Exception("boom"), 3 + 4j, ..., "   B   " * 10000,
]

SPECS = [
    (BOOL, True), (CHOICE, "B"), (LIST, SHARED), (INT, 32), (NUMBER, SCALAR),
    (MAPPING, MATCH), (EQUATION, "h_t = tanh(x_t W_x + h_{t-1} W_h + b)"),
]


@pytest.mark.parametrize("spec,expected", SPECS, ids=[s["format"] for s, _ in SPECS])
@pytest.mark.parametrize("given", JUNK, ids=lambda v: type(v).__name__)
def test_junk_never_crashes(spec, expected, given):
    verdict = grade(spec, given, expected)
    assert verdict.fraction == 0.0


NON_NUMERIC = [(s, e) for s, e in SPECS if s["format"] not in ("int", "number")]


@pytest.mark.parametrize("spec,expected", NON_NUMERIC, ids=[s["format"] for s, _ in NON_NUMERIC])
def test_floats_are_not_answers_to_non_numeric_questions(spec, expected):
    for value in (0.0, 1.0, 0.5):
        assert grade(spec, value, expected).fraction == 0.0


def test_echo_is_short_and_safe():
    assert len(quiz.echo("x" * 10**6)) <= 80
    assert len(quiz.echo(_deep(5000))) <= 80
    assert len(quiz.echo(10**5000)) <= 80
    assert quiz.echo(_Nasty()).startswith("<_Nasty")
    assert len(quiz.echo(_loop)) <= 80


# --------------------------------------------------------------------------
# specs and answer keys
# --------------------------------------------------------------------------

@pytest.mark.parametrize("spec", [None, "bool", {}, {"key": "q"}, {"key": "q", "format": "essay"},
                                  {"key": "q", "format": ["bool"]}])
def test_bad_spec(spec):
    verdict = grade_answer(spec, "B", "B")
    check(verdict)
    assert (verdict.fraction, verdict.message) == (0.0, "quiz.bad_spec")


@pytest.mark.parametrize("spec,expected", [
    (BOOL, "maybe"), (CHOICE, "BB"), (INT, "thirty"), (NUMBER, "nan"), (MAPPING, "A"),
    (LIST, None), (LIST, ["W_o"]), (MAPPING, {"classification": "AB"}),
])
def test_bad_answer_key(spec, expected):
    verdict = grade(spec, "B", expected)
    assert (verdict.fraction, verdict.message) == (0.0, "quiz.bad_key")


def test_grader_bug_becomes_a_verdict(monkeypatch):
    def boom(*args):
        raise RuntimeError("bug")
    monkeypatch.setitem(quiz._GRADERS, "bool", boom)
    assert grade(BOOL, True, True) == Verdict(0.0, "quiz.wrong")


def test_verdict_is_frozen():
    verdict = Verdict(1.0, "quiz.correct")
    assert verdict.params == {}
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict.fraction = 0.5


def test_reference_answer_key_gets_full_marks():
    """The course's own answer key, graded against itself, is all correct."""
    path = ROOT / "solutions" / "reference" / "answers.yaml"
    if not path.exists():
        pytest.skip("no answer key in this checkout")
    key = yaml.safe_load(path.read_text(encoding="utf-8"))
    formats = {"step_equation": "equation", "shared_parameters": "list", "long_range_cause": "choice",
               "many_to_one_readout": "choice", "padding_pitfall": "choice", "match_outputs": "mapping",
               "tinyrnn_forgets": "choice",
               "scalar_last_state": "number", "scalar_reverse_last_state": "number"}
    for name, value in key.items():
        fmt = formats.get(name) or ("bool" if name.startswith("tf_") else "int")
        spec = {"key": name, "format": fmt}
        if fmt == "equation":
            spec = EQUATION
        if fmt == "list":
            spec["options"] = ["W_x", "W_h", "b", "x_t", "h_t", "h_0"]
        verdict = grade(spec, value, value)
        assert verdict.fraction == 1.0, (name, verdict)


# --------------------------------------------------------------------------
# locale files
# --------------------------------------------------------------------------

def test_locales_have_the_same_keys():
    assert set(CATALOGUES["en"]) == set(CATALOGUES["zh"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_key_we_can_return_is_in_the_locale(lang):
    from grader.quiz.equation import MESSAGE_KEYS as EQ_KEYS
    for key in quiz.MESSAGE_KEYS + EQ_KEYS:
        assert key in CATALOGUES[lang], key
        assert isinstance(CATALOGUES[lang][key], str) and CATALOGUES[lang][key].strip()


def test_chinese_messages_are_chinese():
    for key, text in CATALOGUES["zh"].items():
        assert any("\u4e00" <= c <= "\u9fff" for c in text), key
        assert text != CATALOGUES["en"][key]


def test_format_placeholders_match_between_languages():
    for key in CATALOGUES["en"]:
        fields = [{f for _, f, _, _ in string.Formatter().parse(CATALOGUES[lang][key]) if f}
                  for lang in ("en", "zh")]
        assert fields[0] == fields[1], key


def test_no_message_mentions_an_answer():
    # answer values from the key must not be baked into any template
    for catalogue in CATALOGUES.values():
        for key, text in catalogue.items():
            for answer in ("32", "42", "36", "51", "0.674", "-0.674"):
                assert answer not in text, (key, answer)


def test_fraction_is_a_float_even_for_ints():
    assert isinstance(grade(INT, 32, 32).fraction, float)
    assert math.isclose(grade(LIST, ["W_x", "W_h"], SHARED).fraction, 2 / 3)


def test_list_aliases_are_the_questions_own():
    # The grader knows no course's names: without the question's aliases, W_xh is no option.
    bare = {"key": "shared_parameters", "format": "list", "options": LIST["options"]}
    assert grade(LIST, ["W_xh", "W_hh", "bias"], SHARED) == Verdict(1.0, "quiz.correct")
    assert grade(bare, ["W_xh", "W_hh", "bias"], SHARED).message == "quiz.list_unknown"
