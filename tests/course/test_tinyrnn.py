"""The capstone, TinyRNN (CONTRACT section 6): an exercise written in the course folder only,
graded fairly when it reuses the student's earlier files, and diagnosed only on evidence that
does not depend on chance."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from conftest import REFERENCE, ROOT, copy_reference
from grader.checks.api import Case, RecordedCall
from grader.course.loader import MistakeSpec, load_course
from grader.grading.diagnose import Diagnoser
from grader.report import check_message


def exercise(result, exercise_id):
    return next(e for e in result.exercises if e.id == exercise_id)


def lost(result):
    return {e.id for e in result.exercises if e.score < e.max_score}


def edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_the_grader_package_knows_nothing_of_the_capstone():
    """A new exercise needs no change to the grader: nothing under grader/ names it."""
    named = [str(p.relative_to(ROOT)) for p in (ROOT / "grader").rglob("*")
             if p.is_file() and p.suffix in (".py", ".yaml", ".md", ".txt", ".j2", ".html")
             and re.search(r"tiny_?rnn|sgd_step", p.read_text(encoding="utf-8"), re.IGNORECASE)]
    assert named == []
    # ...and the course folder holds all of it
    for part in ("exercises/tinyrnn.yaml", "exercises/checks/tinyrnn.py", "exercises/stubs/tiny_rnn.py",
                 "exercises/locales/en/tinyrnn.yaml", "exercises/locales/zh/tinyrnn.yaml",
                 "solutions/reference/tiny_rnn.py", "solutions/mistakes/tinyrnn/catalogue.yaml"):
        assert (ROOT / part).is_file(), part


def test_reference_full_marks_and_stub_zero(grade, tmp_path):
    result = grade(copy_reference(tmp_path / "ref"), ["tinyrnn"])
    tiny = exercise(result, "tinyrnn")
    assert tiny.score == tiny.max_score == 20 and not tiny.diagnoses
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "tiny_rnn.py").write_text((ROOT / "exercises/stubs/tiny_rnn.py").read_text(encoding="utf-8"))
    tiny = exercise(grade(stub, ["tinyrnn"]), "tinyrnn")
    assert tiny.score == 0 and all(not c.passed for c in tiny.checks)


@pytest.mark.parametrize("file, old, new, exercise_lost", [
    # rnn_backward (and truncation, its sibling) wrong: the loss's gradients come from a correct one
    ("bptt.py", '"db": dA.sum(axis=(0, 1)),', '"db": 2 * dA.sum(axis=(0, 1)),', {"bptt", "truncation"}),
    # the student's softmax normalises over the first axis: sample's softmax is answered by the reference
    ("readout.py", "return e / np.sum(e, axis=axis, keepdims=True)", "return e / np.sum(e, axis=0, keepdims=True)",
     {"readout"}),
    # clip_by_global_norm wrong: sgd_step's clipping is the reference's
    ("bptt.py", "    scale = max_norm / total_norm if", "    scale = 0.5 * max_norm / total_norm if", {"clipping"}),
])
def test_a_wrong_earlier_file_does_not_dock_the_capstone(grade, tmp_path, file, old, new, exercise_lost):
    folder = copy_reference(tmp_path / "sub")
    edit(folder / file, old, new)
    result = grade(folder)
    assert lost(result) == exercise_lost
    tiny = exercise(result, "tinyrnn")
    notes = [n.render("en") for n in tiny.notes]
    assert any("Graded with a correct" in n for n in notes), notes


def test_functions_reused_within_the_file_are_graded_as_written(grade, tmp_path):
    """A student's loss calling their own forward pass, and a sampler that re-runs the whole
    sequence through their own tiny_rnn_forward at every step (slow but right): full marks."""
    folder = copy_reference(tmp_path / "sub")
    edit(folder / "tiny_rnn.py", "def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):",
         "def _unused_sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):")
    with open(folder / "tiny_rnn.py", "a", encoding="utf-8") as fh:
        fh.write('''

def sample(params, prefix, n_max, stop_token, temperature=1.0, u=None):
    if u is None:
        u = np.random.default_rng().random(n_max)
    seq, out = list(prefix), []
    for k in range(n_max):
        logits, _ = tiny_rnn_forward(np.array([seq]), params)
        z = logits[0, -1]
        nxt = int(np.argmax(z)) if temperature == 0 else min(
            int(np.searchsorted(np.cumsum(softmax(z / temperature)), u[k], side="right")), len(z) - 1)
        out.append(nxt)
        seq.append(nxt)
        if nxt == stop_token:
            break
    return out
''')
    tiny = exercise(grade(folder, ["tinyrnn"]), "tinyrnn")
    assert tiny.score == tiny.max_score and not tiny.diagnoses, [(c.name, check_message(c, "en")) for c in tiny.checks]


def test_a_wrong_embed_inside_the_file_is_named_where_it_is(grade, tmp_path):
    """embed squeezed: the forward pass and the loss that call it fail too (their own code is the
    student's), and the diagnosis names embed's mistake."""
    folder = copy_reference(tmp_path / "sub")
    with open(folder / "tiny_rnn.py", "a", encoding="utf-8") as fh:
        fh.write("\n\ndef embed(tokens, E):\n    return np.squeeze(E[tokens])\n")
    tiny = exercise(grade(folder, ["tinyrnn"]), "tinyrnn")
    assert [d.id for d in tiny.diagnoses] == ["tinyrnn.embed_squeezed"]
    assert not next(c for c in tiny.checks if c.name == "embed_reference").passed


def test_training_is_judged_on_the_students_own_run(grade, tmp_path, course):
    """sgd_step going up the gradient: the training check reports the student's loss beside the
    reference's run."""
    folder = copy_reference(tmp_path / "sub")
    edit(folder / "tiny_rnn.py", 'return {k: params[k] - lr * used["d" + k] for k in params}',
         'return {k: params[k] + lr * used["d" + k] for k in params}')
    tiny = exercise(grade(folder, ["tinyrnn"]), "tinyrnn")
    training = next(c for c in tiny.checks if c.name == "training")
    assert not training.passed
    text = check_message(training, "en", course.messages)   # the course's own message
    assert "After 12 steps of training with your tiny_rnn_loss and sgd_step" in text and "reference's run" in text
    assert "tinyrnn.ascent" in [d.id for d in tiny.diagnoses]


def test_the_quiz_answer_is_the_chapter_model_counted():
    """tinyrnn_params: nn.Embedding(65, 64) + nn.RNN(64, 64) with two biases + nn.Linear(64, 65)."""
    spec = importlib.util.spec_from_file_location("param_count_ref", REFERENCE / "param_count.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    key = yaml.safe_load((REFERENCE / "answers.yaml").read_text(encoding="utf-8"))
    expected = 65 * 64 + module.count_rnn_params(64, 64, output_size=65, double_bias=True)
    assert key["tinyrnn_params"] == expected == 16705
    assert key["tinyrnn_forgets"] == "B"


def test_quiz_keys_are_graded(grade, tmp_path):
    folder = copy_reference(tmp_path / "sub")
    answers = yaml.safe_load((folder / "answers.yaml").read_text(encoding="utf-8"))
    answers["tinyrnn_params"] = 16705 - 64      # one bias vector only
    answers["tinyrnn_forgets"] = "b)"
    (folder / "answers.yaml").write_text(yaml.safe_dump(answers, allow_unicode=True), encoding="utf-8")
    quiz = exercise(grade(folder, ["quiz"]), "quiz")
    verdict = {c.name: c.passed for c in quiz.checks}
    assert verdict["tinyrnn_params"] is False and verdict["tinyrnn_forgets"] is True


# ------------------------------------------------------------------ diagnosis and chance

class _Runtime:
    """The reference answers a call differently every time it runs (a sampler drawing its own u);
    the known mistake answers [0] or raises."""

    def __init__(self, mistake):
        self.runs = 0
        self.mistake = mistake

    def reference_function(self, file, func):
        def reference():
            self.runs += 1
            return [self.runs % 2]
        return reference

    def variant_function(self, exercise, variant, func):
        if self.mistake == "raises":
            def wrong():
                raise TypeError("'NoneType' object is not subscriptable")
            return wrong
        return lambda: [0]


class _Exercise:
    def __init__(self):
        self.id, self.file, self.rtol, self.atol = "toy", "toy.py", 1e-9, 1e-11
        self.mistakes = [MistakeSpec("toy.wrong", "toy", {}, {}, {}, [], [Path("toy_wrong.py")])]


def test_a_value_returned_by_a_call_that_draws_its_own_randomness_names_nothing():
    """The student returns [0], as the mistake does, where the reference happened to return [1]:
    the reference gives [0] on a second run, so the agreement is chance, not evidence."""
    call = RecordedCall("sample", Case(()), ("ok", [0], [], {}))
    assert Diagnoser(_Runtime("value")).diagnose(_Exercise(), [call]) == []


def test_an_exception_on_such_a_call_is_still_evidence():
    """Correct code never raises there, whatever it draws: a student raising the mistake's
    exception is named."""
    call = RecordedCall("sample", Case(()), ("error", "TypeError"))
    found = Diagnoser(_Runtime("raises")).diagnose(_Exercise(), [call])
    assert [m.id for m in found] == ["toy.wrong"]


def test_the_sampling_inputs_keep_u_away_from_every_partial_sum():
    """CONTRACT section 6: a grader only uses u[k] at least 1e-9 from every partial sum of p, so
    implementations differing in the last bits of p pick the same ids. The checks keep 1e-6."""
    import sys
    load_course(ROOT)   # imports the course's check modules, as a package of their own
    checks = next(m for name, m in sys.modules.items()
                  if name.startswith("grader_course_") and name.endswith(".tinyrnn"))
    rng = np.random.default_rng(5)
    for temperature in (0.5, 1.0, 2.0):
        case = checks.sample_case(rng, 5, 3, 4, 10, temperature)
        params, prefix, n_max, stop = case.args
        ids, u = checks.sample_path(params, prefix, n_max, stop, temperature, np.random.default_rng(1))
        h = np.zeros(params["W_h"].shape[0])
        for token in prefix:
            h = np.tanh(params["E"][token] @ params["W_x"] + h @ params["W_h"] + params["b"])
        for k, token in enumerate(ids):
            z = (h @ params["W_o"] + params["b_o"]) / temperature
            sums = np.cumsum(np.exp(z - z.max()) / np.exp(z - z.max()).sum())
            assert np.min(np.abs(sums - u[k])) > 1e-6
            h = np.tanh(params["E"][token] @ params["W_x"] + h @ params["W_h"] + params["b"])


def test_the_samplers_search_inputs_keep_u_clear_of_every_partial_sum():
    """The counterexample search's sampler inputs above temperature 0 (its ladder, random rungs
    included, and the cases simpler than each): every u[k] used on the reference's path lies
    well away from every partial sum of p, so no correct implementation is shown as wrong."""
    from grader.checks.choices import ladder, simpler

    spec = load_course(ROOT).registry.builders["sample"]
    rungs = ladder(spec, repr)
    rungs += [s for r in rungs for s in simpler(spec, r)]
    searched = 0
    for rung in rungs:
        params, prefix, n_max, stop = rung.case.args
        temperature, u = rung.case.kwargs["temperature"], rung.case.kwargs.get("u")
        if temperature == 0:
            assert u is None
            continue
        searched += 1
        h = np.zeros(params["W_h"].shape[0])
        for token in prefix:
            h = np.tanh(params["E"][token] @ params["W_x"] + h @ params["W_h"] + params["b"])
        for k in range(n_max):
            z = (h @ params["W_o"] + params["b_o"]) / temperature
            sums = np.cumsum(np.exp(z - z.max()) / np.exp(z - z.max()).sum())
            assert np.min(np.abs(sums - u[k])) > 1e-4, (rung.case, k)
            token = min(int(np.searchsorted(sums, u[k], side="right")), len(sums) - 1)
            if token == stop:
                break
            h = np.tanh(params["E"][token] @ params["W_x"] + h @ params["W_h"] + params["b"])
    assert searched >= 20


@pytest.mark.parametrize("mistake", ["stops_before_stop_token", "stop_in_prefix", "prefix_returned"])
def test_a_stop_rule_mistake_costs_the_stop_checks_only_and_the_same_every_time(grade, tmp_path, mistake):
    """sample_fresh_u (u=None: the sampler draws its own numbers) judges valid ids, not the stop rule:
    whether a fresh draw meets the stop token is chance, and a mistake must cost the same every run."""
    folder = copy_reference(tmp_path / "sub")
    wrong = ROOT / "solutions" / "mistakes" / "tinyrnn" / f"{mistake}.py"
    (folder / "tiny_rnn.py").write_text((folder / "tiny_rnn.py").read_text() + "\n\n" + wrong.read_text())
    outcomes = set()
    for _ in range(4):
        ex = exercise(grade(folder, ["tinyrnn"]), "tinyrnn")
        outcomes.add((ex.score, tuple(sorted(c.name for c in ex.checks if not c.passed))))
        assert next(c for c in ex.checks if c.name == "sample_fresh_u").passed
    assert len(outcomes) == 1, outcomes
