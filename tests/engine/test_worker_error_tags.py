"""Every way a call can fail has its own words (issue 36 item 8).

The worker (grader/sandbox/worker/zygote.py) and the trusted side (grader/sandbox/client.py, grader/grading/plan.py,
grader/sandbox/notebook_run.py) end a call with an error dict whose "kind" is a tag. The trusted side turns it into a
message (grader/checks/call_errors.py). A tag without its own branch used to fall through to
"returned something the grader cannot accept", even for a SyntaxError raised while the function ran.
This test reads every tag out of those files, so a new tag without words fails here.
"""

from __future__ import annotations

import re
import textwrap

import pytest

from conftest import ROOT, copy_reference
from grader.base.i18n import Message
from grader.checks.call_errors import CALL_ERROR_KINDS, call_error_message

SOURCES = ["grader/sandbox/worker/zygote.py", "grader/sandbox/client.py", "grader/grading/plan.py"]
TAG = re.compile(r"""["']kind["']\s*:\s*["'](\w+)["']|\bkind\s*=\s*["'](\w+)["']""")
NOT_CALL_TAGS = {"scalar", "array"}     # wire.py's value tags, not errors


def sent_tags() -> set:
    tags = set()
    for rel in SOURCES:
        for m in TAG.finditer((ROOT / rel).read_text(encoding="utf-8")):
            tags.add(m.group(1) or m.group(2))
    tags |= {"exit", "syntax", "exception"}     # describe_exception's, set through a variable or update()
    return tags - NOT_CALL_TAGS


def test_every_tag_the_worker_or_runner_sends_is_known():
    tags = sent_tags()
    assert {"syntax", "protocol", "bad_return", "missing", "crash", "time_limit", "not_run"} <= tags
    assert tags - set(CALL_ERROR_KINDS) == set(), "a tag with no words of its own in grader/grading/worker_errors.py"


SAMPLE = {
    "import": {"kind": "import", "cause": {"kind": "exception", "type": "ValueError", "message": "x", "frames": []}},
    "too_large": {"kind": "too_large", "scope": "call", "size": 1 << 30, "limit": 1 << 20},
    "missing": {"kind": "missing", "name": "f"},
    "exception": {"kind": "exception", "type": "ValueError", "message": "boom", "frames": [["m.py", 3, "f"]]},
    "exit": {"kind": "exit", "type": "SystemExit", "message": "1", "frames": []},
    "timeout": {"kind": "timeout", "seconds": 3},
    "timed_out_before": {"kind": "timed_out_before", "seconds": 3},
    "crash": {"kind": "crash", "signal": "SIGSEGV"},
    "time_limit": {"kind": "time_limit"},
    "gave_up": {"kind": "gave_up", "failures": 3},
    "syntax": {"kind": "syntax", "type": "SyntaxError", "file": "<string>", "line": 1, "column": 4,
               "text": "f(1", "message": "'(' was never closed"},
    "not_run": {"kind": "not_run"},
    "protocol": {"kind": "protocol", "message": "malformed reply"},
    "bad_return": {"kind": "bad_return", "message": "a generator"},
}


@pytest.mark.parametrize("tag", CALL_ERROR_KINDS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_tag_has_its_own_message_in_both_languages(tag, lang):
    assert set(SAMPLE) == set(CALL_ERROR_KINDS)
    key, params = call_error_message(SAMPLE[tag], "tiny_rnn_forward", "tiny_rnn.py", lambda m, line: f"{m}:{line}", 10)
    if tag != "bad_return":
        assert key not in ("err.bad_return", "err.call_failed"), (tag, key)
    others = {call_error_message(SAMPLE[t], "f", "f.py", lambda m, line: f"{m}:{line}", 10)[0]
              for t in CALL_ERROR_KINDS if t != tag}
    if tag not in ("timeout",):     # an import's own timeout shares nothing; every call tag has its own key
        assert key not in others or tag in ("exit",), (tag, key)
    text = Message(key, params).render(lang)
    assert text and "{" not in text and key not in text, text


def test_an_unknown_tag_is_not_called_a_bad_return():
    key, params = call_error_message({"kind": "brand_new"}, "f", "f.py", lambda m, line: "", 10)
    assert key == "err.call_failed" and params["how"] == "brand_new"


def test_a_syntax_error_raised_while_the_function_runs_says_it_raised(grade, tmp_path):
    folder = copy_reference(tmp_path / "student")
    with open(folder / "rnn_step.py", "a", encoding="utf-8") as fh:
        fh.write("\n\n" + textwrap.dedent('''
            def rnn_step(x_t, h_prev, W_x, W_h, b):
                exec("y = (1")
                return np.tanh(x_t @ W_x + h_prev @ W_h + b)
            '''))
    (ex,) = grade(folder, ["step"]).exercises
    messages = [c.message.render("en") for c in ex.checks if not c.passed and c.message]
    assert messages and all("cannot accept" not in m for m in messages), messages
    assert any("raised SyntaxError while it ran" in m and "never closed" in m for m in messages), messages
