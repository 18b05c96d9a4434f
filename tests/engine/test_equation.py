"""Tests for grader/quiz/equation.py on the bundled course's step equation: checked for meaning.

The question's ``equation:`` mapping comes from exercises/quiz.yaml and the reference from
the answer key, as in grading; tests/course/test_equation_generic.py covers other questions."""

from __future__ import annotations

import string
import time
from pathlib import Path

import pytest
import yaml

from grader.quiz import equation
from grader.quiz.equation import EquationVerdict

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "grader" / "base" / "locales"
QUESTION = next(q for q in yaml.safe_load((ROOT / "exercises" / "quiz.yaml").read_text(encoding="utf-8"))["questions"]
                if q["key"] == "step_equation")["equation"]
REFERENCE = "h_t = tanh(x_t @ W_x + h_{t-1} @ W_h + b)"


def check_equation(text, question=None):
    return equation.check_equation(text, question or QUESTION, REFERENCE)


def _catalogue(lang):
    with open(LOCALES / lang / "quiz.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


# --------------------------------------------------------------------------
# accepted spellings
# --------------------------------------------------------------------------

ACCEPTED = [
    # row convention (seed 000)
    "h_t = tanh(x_t W_x + h_{t-1} W_h + b)",
    "h_t = tanh(x_tW_x + h_(t−1)W_h + b)",
    "tanh(x_t @ W_x + h_{t-1} @ W_h + b)",
    "h_t = tanh(x_t @ W_x + h_{t-1} @ W_h + b)",
    "h_t = np.tanh(x_t @ W_x + h_prev @ W_h + b)",
    "h = np.tanh(x @ W_x + h @ W_h + b)",
    "h_t = tanh(x_t*W_x + h[t-1]*W_h + b)",
    "h_t = tanh(x_t W_xh + h_{prev} W_hh + b_h)",
    "tanh(x_t W_x + h_{t - 1} W_h + b)",
    "h_t = torch.tanh(x_t @ W_ih + h_prev @ W_hh + b)",
    "H_t = TANH(X_t W_X + H_{t-1} W_H + B)",
    "h_t = tanh(dot(x_t, W_x) + dot(h_prev, W_h) + b)",
    "h_t = tanh(b + h_{t-1} W_h + x_t W_x)",
    "h_t = tanh(x_t W_x + h_{t-1} W_h + b) * 1.0",
    "`h_t = tanh(x_t W_x + h_{t-1} W_h + b)`",
    # column convention (seed 004)
    "tanh(W_h h_{t-1} + W_x x_t + b)",
    "h_t = φ(W_h h_{t-1} + W_x x_t + b)",
    "h_t = ϕ(W_h h_{t-1} + W_x x_t + b)",
    "h_t = phi(W_h h_{t-1} + W_x x_t + b)",
    "h_{t} = tanh(W_h h_{t-1} + W_x x_t + b)",
    "h(t) = tanh(W_hh h(t-1) + W_xh x(t) + b)",
    "h_t = tanh(W_hh_{t-1} + W_xx_t + b)",
    "h_t=tanh(Wh*ht-1+Wx*xt+b)",
    "h_t = tanh(W_h * h_t-1 + W_x * x_t + b)",
    "ht = tanh(Wx xt + Wh ht-1 + b)",
    "h_t = tanh(W_h·h_(t−1) + W_x·x_t + b)",
    "h_t = tanh(W_h × h_{t−1} + W_x × x_t + b)",
    "hₜ = tanh(Wₕ·hₜ₋₁ + Wₓ·xₜ + b)",
    "h_t = tanh(Wₕhₜ₋₁ + Wₓxₜ + b)",
    "h_t = tanh(W_hx x_t + W_hh h_{t-1} + b)",
    "h_t = tanh(W_h h_{t-1} + W_x x_t + b_x + b_h)",
    "h_t ← tanh(W_h h_{t-1} + W_x x_t + b)",
    "h_t := tanh(W_h h_{t-1} + W_x x_t + b)",
    "h_t = tanh[W_h h_{t-1} + W_x x_t + b]",
    "h_t = tanh（W_h h_{t-1} + W_x x_t + b）。",
    "h_{t+1} = tanh(W_h h_t + W_x x_{t+1} + b)",
    # LaTeX
    r"h_t = \tanh(W_h h_{t-1} + W_x x_t + b)",
    r"$h_t = \tanh\left(W_{h}\mathbf{h}_{t-1} + W_{x}\mathbf{x}_{t} + \mathbf{b}\right)$",
    r"\mathbf{h}_t = \varphi(\mathbf{W}_h \mathbf{h}_{t-1} + \mathbf{W}_x \mathbf{x}_t + \mathbf{b})",
    r"h_t = \phi(W_h \cdot h_{t-1} + W_x \cdot x_t + b)",
    r"h_t = \tanh\big(W_h h_{t-1} + W_x x_t + b\big)",
    r"\[ h_t = \tanh(W_h h_{t-1} + W_x x_t + b) \]",
    r"h_t &= \tanh(W_{\text{h}} h_{\text{prev}} + W_{\text{x}} x_t + b)",
    r"h_t=\tanh(W_hh_{t-1}+W_xx_t+b)",
    r"h^{(t)} = \tanh(W_h h^{(t-1)} + W_x x^{(t)} + b)",
    r"h_t = \tanh(\mathbf{W}_{hh}\mathbf{h}_{t-1}+\mathbf{W}_{xh}\mathbf{x}_t+\mathbf{b}_h)",
    r"h_t = \operatorname{tanh}(x_t W_x + h_{t-1} W_h + b)",
    # PyTorch documentation form (row vectors, weights stored (out, in))
    "h_t = tanh(x_t W_{ih}^T + b_{ih} + h_{t-1} W_{hh}^T + b_{hh})",
    "h_t = tanh(x_t @ W_x.T + h_prev @ W_h.T + b)",
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_accepted_spellings(text):
    verdict = check_equation(text)
    assert verdict == EquationVerdict(True, "equation.ok", verdict.params), text
    assert verdict.params["convention"] in ("row", "column", "transposed")


def test_many_accepted_variants():
    assert len(ACCEPTED) >= 15


@pytest.mark.parametrize("text,convention", [
    ("tanh(x_t W_x + h_{t-1} W_h + b)", "row"),
    ("tanh(W_h h_{t-1} + W_x x_t + b)", "column"),
    ("tanh(x_t W_x^T + h_{t-1} W_h^T + b)", "transposed"),
])
def test_convention_is_reported(text, convention):
    assert check_equation(text).params == {"convention": convention}


def test_reference_answer_key_passes():
    path = Path(__file__).resolve().parents[2] / "solutions" / "reference" / "answers.yaml"
    if not path.exists():
        pytest.skip("no answer key in this checkout")
    key = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert equation.check_equation(key["step_equation"], QUESTION, key["step_equation"]).ok
    assert equation.reference_problem(QUESTION, key["step_equation"]) is None


# --------------------------------------------------------------------------
# rejected, with the diagnosis
# --------------------------------------------------------------------------

REJECTED = [
    # h_t on the right
    ("h_t = tanh(x_t W_x + h_t W_h + b)", "equation.uses_result_not_previous"),
    ("h_t = tanh(W_h h_t + W_x x_t + b)", "equation.uses_result_not_previous"),
    ("tanh(W_h h(t) + W_x x_t + b)", "equation.uses_result_not_previous"),
    ("h_t = tanh(W_h h_t - 1 + W_x x_t + b)", "equation.uses_result_not_previous"),
    # missing terms
    ("h_t = tanh(h_{t-1} W_h + b)", "equation.missing_term"),
    ("h_t = tanh(W_x x_t + b)", "equation.missing_term"),
    ("h_t = tanh(W_h h_{t-1} + x_t + b)", "equation.missing_term"),
    ("h_t = tanh(x_t W_x + b)", "equation.missing_term"),
    # missing bias
    ("h_t = tanh(x_t W_x + h_{t-1} W_h)", "equation.missing_bias"),
    ("h_t = tanh(W_x x_t + W_h h_{t-1})", "equation.missing_bias"),
    (r"h_t = \tanh(\mathbf{W}_h \mathbf{h}_{t-1} + \mathbf{W}_x \mathbf{x}_t)", "equation.missing_bias"),
    # activation
    ("h_t = sigmoid(x_t W_x + h_{t-1} W_h + b)", "equation.wrong_activation"),
    ("h_t = σ(W_h h_{t-1} + W_x x_t + b)", "equation.wrong_activation"),
    (r"h_t = \sigma(W_h h_{t-1} + W_x x_t + b)", "equation.wrong_activation"),
    ("h_t = relu(W_h h_{t-1} + W_x x_t + b)", "equation.wrong_activation"),
    ("h_t = ReLU(W_h h_{t-1} + W_x x_t + b)", "equation.wrong_activation"),
    ("h_t = exp(W_h h_{t-1} + W_x x_t + b)", "equation.wrong_activation"),
    ("h_t = x_t W_x + h_{t-1} W_h + b", "equation.no_activation"),
    ("W_h h_{t-1} + W_x x_t + b", "equation.no_activation"),
    ("h_t = tanh(x_t W_x + h_{t-1} W_h) + b", "equation.activation_placement"),
    ("h_t = tanh(x_t W_x) + tanh(h_{t-1} W_h) + b", "equation.activation_placement"),
    ("h_t = tanh(tanh(x_t W_x) + tanh(h_{t-1} W_h) + b)", "equation.activation_placement"),
    ("h_t = tanh(W_h h_{t-1}) + W_x x_t + b", "equation.activation_placement"),
    # mixed conventions
    ("h_t = tanh(W_h h_{t-1} + x_t W_x + b)", "equation.mixed_conventions"),
    ("h_t = tanh(h_{t-1} W_h + W_x x_t + b)", "equation.mixed_conventions"),
    (r"h_t = \tanh(\mathbf{W}_h \mathbf{h}_{t-1} + \mathbf{x}_t \mathbf{W}_x + \mathbf{b})",
     "equation.mixed_conventions"),
    # swapped weights
    ("h_t = tanh(x_t W_h + h_{t-1} W_x + b)", "equation.swapped"),
    ("h_t = tanh(W_x h_{t-1} + W_h x_t + b)", "equation.swapped"),
    ("h_t = tanh(W_xh h_{t-1} + W_hh x_t + b)", "equation.swapped"),
    # transposes
    ("h_t = tanh(x_t W_x + h_{t-1} W_h^T + b)", "equation.transposed"),
    ("h_t = tanh(x_t @ W_x + h_prev @ W_h.T + b)", "equation.transposed"),
    ("h_t = tanh(W_h^T h_{t-1} + W_x x_t + b)", "equation.transposed"),
    ("h_t = tanh(W_hᵀ h_{t-1} + W_x x_t + b)", "equation.transposed"),
    # shapes that fit nowhere
    ("h_t = tanh(W_h h_{t-1} ⊙ W_x x_t + b)", "equation.shape_error"),
    ("h_t = tanh(W_h x_t W_x h_{t-1} + b)", "equation.shape_error"),
    # plainly wrong
    ("h_t = tanh(W_h h_{t-1} + W_x x_t + 2 b)", "equation.wrong"),
    ("h_t = tanh(W_h h_{t-1} + W_x x_t - b)", "equation.wrong"),
    ("h_t = tanh(W_h h_{t-1} - W_x x_t + b)", "equation.wrong"),
    ("h_t = tanh(W_h h_{t-1} + W_x x_t + b + b)", "equation.wrong"),
    ("h_t = 2 tanh(W_h h_{t-1} + W_x x_t + b)", "equation.wrong"),
    # names
    ("h_t = tanh(W h_{t-1} + U x_t + b)", "equation.ambiguous_symbol"),
    ("h_t = tanh(W_h h + W_x x + b)", "equation.ambiguous_symbol"),
    ("h_t = tanh(W_h h_{t-1} + W_x x_t + W_o + b)", "equation.unknown_symbol"),
    ("h_t = tanh(x_t W_x + h_0 W_h + b)", "equation.unknown_symbol"),
    ("h_t = f(W_h h_{t-1} + W_x x_t + b)", "equation.unknown_function"),
    ("h_t = softsign(W_h h_{t-1} + W_x x_t + b)", "equation.unknown_function"),
    ("h_{t-1} = tanh(W_h h_{t-1} + W_x x_t + b)", "equation.wrong_lhs"),
    ("y_t = tanh(W_h h_{t-1} + W_x x_t + b)", "equation.wrong_lhs"),
    # unreadable
    ("h_t = tanh(W_h h_{t-1} + W_x x_t + b", "equation.unparsable"),
    ("h_t = tanh(W_h h_{t-1} + W_x x_t + b))", "equation.unparsable"),
    ("h_t = tanh(W_h h_{t-1} + W_x x_t + b) = 3", "equation.unparsable"),
    ("h_t = tanh W_h h_{t-1} + W_x x_t + b", "equation.unparsable"),
    ("h_t = tanh([h_{t-1}, x_t] W + b)", "equation.unparsable"),
    ("h_t = tanh(x_t W_x + h_{t-1} W_h + b)^2", "equation.unparsable"),
    ("h_t = ?", "equation.unparsable"),
    ("__import__('os').system('echo hacked')", "equation.unparsable"),
    ("", "equation.empty"),
    ("   \n ", "equation.empty"),
]


@pytest.mark.parametrize("text,key", REJECTED)
def test_rejected_with_diagnosis(text, key):
    verdict = check_equation(text)
    assert not verdict.ok, text
    assert verdict.message == key, (text, verdict)


def test_swap_is_caught_even_when_shapes_allow_it():
    # with d == H the swapped form evaluates; it must still be wrong
    assert check_equation("tanh(x_t W_h + h_{t-1} W_x + b)").message == "equation.swapped"


def test_missing_term_names_what_is_missing():
    verdict = check_equation("h_t = tanh(h_{t-1} W_h + b)")
    assert verdict.params == {"missing": "x_t, W_x"}


def test_unknown_symbol_is_named():
    verdict = check_equation("h_t = tanh(W_h h_{t-1} + W_x x_t + W_o + b)")
    assert verdict.params == {"symbol": "W_o", "allowed": "x_t, W_x, h_{t-1}, W_h, b"}


def test_swap_names_the_two_symbols():
    verdict = check_equation("h_t = tanh(x_t W_h + h_{t-1} W_x + b)")
    assert verdict.params == {"first": "W_x", "second": "W_h"}


def test_result_on_the_right_names_the_previous_state():
    verdict = check_equation("h_t = tanh(x_t W_x + h_t W_h + b)")
    assert verdict.params == {"result": "h_t", "previous": "h_{t-1}"}


def test_transposed_form_can_be_switched_off():
    question = dict(QUESTION, conventions=["row", "column"])
    assert not check_equation("h_t = tanh(x_t W_x^T + h_{t-1} W_h^T + b)", question).ok
    assert check_equation("h_t = tanh(x_t W_x + h_{t-1} W_h + b)", question).ok


# --------------------------------------------------------------------------
# hostile input
# --------------------------------------------------------------------------

JUNK = [
    None, 0, 1.5, True, [], ["h_t"], {"h_t": 1}, b"tanh(x)",
    "x" * 10**6,
    "(" * 400 + "x" + ")" * 400,
    "(" * 60 + "x_t W_x" + ")" * 60,
    "tanh(" * 60 + "x" + ")" * 60,
    "-" * 450 + "x",
    "x_t " * 120,
    "+".join(["x_t W_x"] * 60),
    "h_t = tanh(" + "W_h " * 100 + "h_{t-1} + W_x x_t + b)",
    "exp(exp(exp(exp(exp(exp(exp(exp(W_h h_{t-1} + W_x x_t + b))))))))",
    "tanh(W_h h_{t-1} + W_x x_t + b) / 0",
    "1e999999 * tanh(W_h h_{t-1} + W_x x_t + b)",
    "h_t = " + "(W_h h_{t-1} W_h h_{t-1}) " * 6,
    "\\left(\\right(\\mathbf{\\mathbf{\\mathbf{",
    "h_{" * 100,
    "h^{(" * 50,
    "\x00\x01\x02 tanh",
    "ℵ∫∑√∞ ≠ ≤",
    "h_t = tanh(W_h h_{t-1} + W_x x_t + b)" + " " * 10**5,
    string.printable,
    "h_t = tanh(x_t W_x + h_{t-1} W_h + b)\n= tanh(x_t W_x + h_{t-1} W_h + b)",
    "W_h h_{t-1} W_x x_t W_h x_t W_x h_{t-1} + W_h h_{t-1} W_x x_t W_h x_t W_x h_{t-1} "
    "+ W_h h_{t-1} W_x x_t W_h x_t W_x h_{t-1} + W_h h_{t-1} W_x x_t + b",
]


@pytest.mark.parametrize("text", JUNK, ids=lambda t: repr(t)[:40])
def test_junk_never_raises_and_is_fast(text):
    start = time.perf_counter()
    verdict = check_equation(text)
    elapsed = time.perf_counter() - start
    assert isinstance(verdict, EquationVerdict)
    assert verdict.ok is False
    assert verdict.message in equation.MESSAGE_KEYS
    assert elapsed < 2.0
    for value in verdict.params.values():
        assert isinstance(value, (str, int, float))
        if isinstance(value, str):
            assert len(value) <= 80


def test_long_input_is_refused_politely():
    verdict = check_equation("h_t = tanh(" + "x_t W_x + " * 60 + "h_{t-1} W_h + b)")
    assert verdict.message == "equation.too_long"
    assert verdict.params == {"limit": equation.MAX_LENGTH}


def test_deterministic():
    text = "h_t = tanh(W_h h_{t-1} + x_t W_x + b)"
    assert check_equation(text) == check_equation(text)


def test_internal_error_becomes_a_verdict(monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("bug")
    monkeypatch.setattr(equation, "normalise", boom)
    verdict = check_equation("h_t = tanh(W_h h_{t-1} + W_x x_t + b)")
    assert verdict.ok is False and verdict.message == "equation.unparsable"


# --------------------------------------------------------------------------
# messages
# --------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_key_has_a_message(lang):
    catalogue = _catalogue(lang)
    missing = [key for key in equation.MESSAGE_KEYS if key not in catalogue]
    assert missing == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_returned_keys_render_in_both_languages(lang):
    catalogue = _catalogue(lang)
    texts = [t for t in ACCEPTED[:3]] + [t for t, _ in REJECTED] + [j for j in JUNK if isinstance(j, str)]
    seen = set()
    for text in texts:
        verdict = check_equation(text)
        seen.add(verdict.message)
        template = catalogue[verdict.message]
        fields = {f for _, f, _, _ in string.Formatter().parse(template) if f}
        assert fields <= set(verdict.params), (verdict, template)
        assert template.format(**verdict.params)
    assert seen >= {"equation.ok", "equation.uses_result_not_previous", "equation.missing_bias",
                    "equation.wrong_activation", "equation.mixed_conventions",
                    "equation.swapped", "equation.missing_term", "equation.unknown_symbol",
                    "equation.unparsable", "equation.shape_error", "equation.wrong"}


def test_messages_do_not_spell_out_the_equation():
    for lang in ("en", "zh"):
        for key, template in _catalogue(lang).items():
            if key.startswith("equation."):
                compact = template.replace(" ", "")
                assert "W_hh_{{t-1}}" not in compact and "W_xx_t" not in compact
                assert "+b)" not in compact and "x_tW_x" not in compact


def test_trials_have_rectangular_and_square_shapes():
    # d != H makes shape errors show up; d == H lets a swap evaluate to (wrong) numbers
    trials = equation._reference(QUESTION, REFERENCE).trials
    for name in ("row", "column"):
        shapes = {env["wx"].shape for trial, env, _ in trials if trial.convention == name}
        assert any(a == b for a, b in shapes), name
        assert any(a != b for a, b in shapes), name
