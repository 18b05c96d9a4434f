"""Grading of the quiz (CONTRACT section 4): one answer, and a whole quiz exercise.

``grade_answer(spec, given, expected)`` turns a student's raw value (from
``answers.yaml`` or an ``ANSWERS`` dict, so of any type at all) into a
:class:`Verdict`: a credit in [0, 1], a message key looked up in
``grader/base/locales/<lang>/quiz.yaml`` and plain str/int/float params for
``str.format``. It never raises, never echoes more than ``ECHO_LIMIT``
characters of the student's value, and never puts the correct answer into a
message or its params.

Why one file of this size: one grading rule per question type, and the rules share the
normalisation of a student's raw value (numbers, names, lists, escapes); the equation type,
the one large rule, lives in grader/equation*.py.
"""

from __future__ import annotations

import math
import numbers
import re
import reprlib
import unicodedata
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

import numpy as np

from grader.quiz.equation import check_equation

__all__ = ["Verdict", "grade_answer", "grade_quiz", "ECHO_LIMIT", "MESSAGE_KEYS"]

ECHO_LIMIT = 80
_MAX_TEXT = 200          # longer strings are not a number / letter / name list

MESSAGE_KEYS = (
    "quiz.correct",
    "quiz.unanswered",
    "quiz.wrong",
    "quiz.bad_spec",
    "quiz.bad_key",
    "quiz.not_bool",
    "quiz.not_a_choice",
    "quiz.not_a_list",
    "quiz.list_partial",
    "quiz.list_unknown",
    "quiz.not_int",
    "quiz.wrong_number",
    "quiz.int_close",
    "quiz.not_number",
    "quiz.number_close",
    "quiz.not_mapping",
    "quiz.mapping_wrong_keys",
    "quiz.mapping_unknown_keys",
    "quiz.not_text",
    "quiz.escaped_backslash",
    "quiz.known_wrong",
)


@dataclass(frozen=True)
class Verdict:
    fraction: float          # credit in [0, 1] for this question (partial credit allowed)
    message: str             # a message key, looked up in grader/base/locales/<lang>/quiz.yaml
    params: dict = field(default_factory=dict)   # plain str/int/float values


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

_repr = reprlib.Repr()
_repr.maxlevel = 3
_repr.maxstring = ECHO_LIMIT
_repr.maxother = ECHO_LIMIT
_repr.maxlong = 40
for _attr in ("maxlist", "maxtuple", "maxdict", "maxset", "maxfrozenset", "maxdeque", "maxarray"):
    setattr(_repr, _attr, 6)


def _truncate(text: str, limit: int = ECHO_LIMIT) -> str:
    text = text.replace("\n", " ").replace("\r", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def echo(value, limit: int = ECHO_LIMIT) -> str:
    """A short, safe rendering of any student value (at most ``limit`` characters)."""
    try:
        if isinstance(value, str):
            return _truncate(value[: limit * 2], limit)
        if isinstance(value, bool) or value is None:
            return str(value)
        if isinstance(value, int):
            if value.bit_length() > 200:
                return _truncate(("-" if value < 0 else "") + "a %d-bit integer" % value.bit_length(), limit)
            return _truncate(str(value), limit)
        if isinstance(value, float):
            return _truncate(repr(value), limit)
        return _truncate(_repr.repr(value), limit)
    except Exception:
        return "<%s>" % type(value).__name__[:40]


def _is_bool(value) -> bool:
    return isinstance(value, (bool, np.bool_))


def _is_blank(value) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return value.strip() == ""
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return len(value) == 0
    return False


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


# --------------------------------------------------------------------------
# bool
# --------------------------------------------------------------------------

_TRUE = {"true", "t", "yes", "y", "对", "对的", "正确", "是", "是的", "真", "√", "✓", "✔"}
_FALSE = {"false", "f", "no", "n", "错", "错的", "错误", "否", "不是", "假", "不对", "不正确", "×", "✗", "✘"}


def _parse_bool(value):
    """True/False, or None when the value is not a true/false value."""
    if _is_bool(value):
        return bool(value)
    if isinstance(value, str) and len(value) <= _MAX_TEXT:
        text = _nfkc(value).strip().strip(".。!！").strip().casefold()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    return None


def _grade_bool(spec, given, expected):
    want = _parse_bool(expected)
    if want is None:
        return Verdict(0.0, "quiz.bad_key", {"key": echo(spec.get("key", "?"))})
    got = _parse_bool(given)
    if got is None:
        return Verdict(0.0, "quiz.not_bool", {"given": echo(given)})
    return Verdict(1.0, "quiz.correct") if got == want else Verdict(0.0, "quiz.wrong")


# --------------------------------------------------------------------------
# choice
# --------------------------------------------------------------------------

_LETTER_RE = re.compile(r"^[\(\[]?\s*([A-Za-z])\s*[\)\]]?\s*[.)\]:：、]?$")
_LETTER_TEXT_RE = re.compile(r"^[\(\[]?\s*([A-Za-z])\s*(?:[.)\]:：、]|\s-)\s*\S")


def _parse_letter(value):
    """The upper-case letter, or None."""
    if not isinstance(value, str) or len(value) > _MAX_TEXT * 5:
        return None
    text = _nfkc(value).strip().strip("`'\"“”‘’").strip()
    m = _LETTER_RE.match(text)
    if m is None:
        m = _LETTER_TEXT_RE.match(text)   # "B. the gradient ..." (copied option text)
    return m.group(1).upper() if m else None


def _choices(spec, expected_letters):
    raw = spec.get("choices")
    letters = []
    if isinstance(raw, (list, tuple)):
        for item in raw:
            letter = _parse_letter(item) if isinstance(item, str) else None
            if letter and letter not in letters:
                letters.append(letter)
    if not letters:
        letters = ["A", "B", "C", "D"]
    for letter in expected_letters:
        if letter not in letters:
            letters.append(letter)
    return letters


def _grade_choice(spec, given, expected):
    want = _parse_letter(expected)
    if want is None:
        return Verdict(0.0, "quiz.bad_key", {"key": echo(spec.get("key", "?"))})
    allowed = _choices(spec, [want])
    got = _parse_letter(given)
    if got is None or got not in allowed:
        return Verdict(0.0, "quiz.not_a_choice", {"given": echo(given), "choices": ", ".join(allowed)})
    return Verdict(1.0, "quiz.correct") if got == want else Verdict(0.0, "quiz.wrong")


# --------------------------------------------------------------------------
# list of names
# --------------------------------------------------------------------------

_SPLIT_RE = re.compile(r"[,\s、，;；/|]+|\band\b|和|与|及")


def _canon_name(name: str) -> str:
    text = _nfkc(name).strip()
    text = re.sub(r"\\(?:mathbf|boldsymbol|mathrm|text|bm)\s*", "", text)
    text = text.strip("`'\"“”‘’$*").strip()
    text = text.replace("−", "-").replace("–", "-")
    return re.sub(r"[\s_{}\[\]\\]", "", text.casefold())


def _split_names(value):
    """A list of raw name strings, or None when the value is not a list of names."""
    if isinstance(value, str):
        if len(value) > _MAX_TEXT * 5:
            return None
        text = _nfkc(value).strip()
        if text[:1] in "[(" and text[-1:] in "])":
            text = text[1:-1]
        return [part for part in _SPLIT_RE.split(text) if part and part.strip("`'\"“”‘’")]
    if isinstance(value, dict) and value and all(v is None for v in value.values()):
        value = list(value)      # YAML reads "{a, b, c}" as a mapping to nulls
    if isinstance(value, (list, tuple, set, frozenset)):
        if len(value) > 100:
            return None
        names = []
        for item in value:
            if isinstance(item, str):
                sub = _split_names(item)
                if sub is None:
                    return None
                names.extend(sub)
            else:                # numbers, None, nested junk: shown back as unknown names
                names.append(echo(item, 20))
        return names
    return None


def _grade_list(spec, given, expected):
    options = spec.get("options")
    if not isinstance(options, (list, tuple)) or not options:
        options = None
    expected_names = _split_names(expected) if expected is not None else None
    if expected_names is None:
        return Verdict(0.0, "quiz.bad_key", {"key": echo(spec.get("key", "?"))})

    option_names = [str(o) for o in (options or expected_names)]
    canon_to_option = {}
    for option in option_names:
        canon_to_option.setdefault(_canon_name(option), option)
    # The question's unambiguous aliases (``aliases: {alias: option}``), used only where the
    # alias is not itself an option.
    aliases = spec.get("aliases") if isinstance(spec.get("aliases"), dict) else {}
    alias_to_canon = {_canon_name(str(a)): _canon_name(str(o)) for a, o in aliases.items()}
    want = {_canon_name(n) for n in expected_names}
    if not want <= set(canon_to_option):
        return Verdict(0.0, "quiz.bad_key", {"key": echo(spec.get("key", "?"))})

    names = _split_names(given)
    if names is None:
        return Verdict(0.0, "quiz.not_a_list", {"given": echo(given)})
    if not names:
        return Verdict(0.0, "quiz.unanswered")

    picked, unknown = set(), []
    for raw in names:
        canon = _canon_name(raw)
        if canon not in canon_to_option:
            alias = alias_to_canon.get(canon)
            canon = alias if alias in canon_to_option else None
        if canon is None:
            shown = raw.strip()
            if shown and shown not in unknown:
                unknown.append(shown)
        else:
            picked.add(canon)

    right = len(picked & want)
    wrong = len(picked - want)
    fraction = 1.0 if not want else max(0.0, (right - wrong) / len(want))
    fraction = min(1.0, fraction)
    if unknown:
        return Verdict(fraction, "quiz.list_unknown", {
            "unknown": _truncate(", ".join(unknown)),
            "options": _truncate(", ".join(option_names)),
            "credit": round(100 * fraction),
        })
    if picked == want:
        return Verdict(1.0, "quiz.correct")
    if fraction > 0:
        return Verdict(fraction, "quiz.list_partial", {"credit": round(100 * fraction)})
    return Verdict(0.0, "quiz.wrong")


# --------------------------------------------------------------------------
# numbers
# --------------------------------------------------------------------------

_INT_GROUPS_RE = re.compile(r"^[-+]?\d{1,3}(?:,\d{3})+$")


def _parse_int(value):
    """An exact Python int, or None."""
    if _is_bool(value):
        return None
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        try:
            f = float(value)
        except (OverflowError, ValueError, TypeError):
            return None
        if math.isfinite(f) and f.is_integer():
            return int(f)
        return None
    if isinstance(value, str):
        text = _nfkc(value).strip()
        if not text or len(text) > 60:
            return None
        if _INT_GROUPS_RE.match(text):
            text = text.replace(",", "")
        try:
            d = Decimal(text.replace("_", ""))
        except (InvalidOperation, ValueError):
            return None
        if not d.is_finite() or d != d.to_integral_value() or abs(d.adjusted()) > 30:
            return None
        return int(d)
    return None


def _parse_float(value):
    """A finite or non-finite float, or None when the value is not a number."""
    if _is_bool(value):
        return None
    if isinstance(value, numbers.Real):
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
        except (ValueError, TypeError):
            return None
    if isinstance(value, str):
        text = _nfkc(value).strip().replace("−", "-")
        if not text or len(text) > 60:
            return None
        try:
            return float(text.replace("_", ""))
        except ValueError:
            return None
    return None


def _grade_int(spec, given, expected):
    want = _parse_int(expected)
    if want is None:
        return Verdict(0.0, "quiz.bad_key", {"key": echo(spec.get("key", "?"))})
    got = _parse_int(given)
    if got is None:
        return Verdict(0.0, "quiz.not_int", {"given": echo(given)})
    if got == want:
        return Verdict(1.0, "quiz.correct")
    close = want != 0 and 10 * abs(got - want) <= abs(want)
    if close:
        return Verdict(0.0, "quiz.int_close", {"given": echo(got), "close": 1})
    return Verdict(0.0, "quiz.wrong_number", {"given": echo(got), "close": 0})


def _positive(spec, name, default):
    value = spec.get(name, default)
    try:
        value = float(value)
    except (TypeError, ValueError, OverflowError):
        return default
    return value if math.isfinite(value) and value >= 0 else default


def _grade_number(spec, given, expected):
    want = _parse_float(expected)
    if want is None or not math.isfinite(want):
        return Verdict(0.0, "quiz.bad_key", {"key": echo(spec.get("key", "?"))})
    got = _parse_float(given)
    if got is None:
        return Verdict(0.0, "quiz.not_number", {"given": echo(given)})
    if not math.isfinite(got):
        return Verdict(0.0, "quiz.wrong")
    rtol = _positive(spec, "rtol", 1e-3)
    atol = _positive(spec, "atol", 1e-6)
    tol = atol + rtol * abs(want)
    err = abs(got - want)
    if err <= tol:
        return Verdict(1.0, "quiz.correct")
    if err <= 10 * tol or err <= 0.05 * abs(want):
        return Verdict(0.0, "quiz.number_close", {"given": echo(given)})
    return Verdict(0.0, "quiz.wrong")


# --------------------------------------------------------------------------
# mapping
# --------------------------------------------------------------------------

_PAIR_RE = re.compile(r"([A-Za-z_][\w\- ]*?)\s*[:=：]\s*([^,;，；\n]+)")


def _canon_key(key) -> str:
    if not isinstance(key, (str, int)) or _is_bool(key):
        return ""
    text = _nfkc(str(key))[:_MAX_TEXT].casefold()
    return re.sub(r"[^0-9a-z\u4e00-\u9fff]", "", text)


def _as_mapping(value):
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and len(value) <= _MAX_TEXT * 5:
        pairs = _PAIR_RE.findall(value)
        if pairs:
            return {k.strip(): v.strip() for k, v in pairs}
    return None


def _grade_mapping(spec, given, expected):
    if not isinstance(expected, dict) or not expected:
        return Verdict(0.0, "quiz.bad_key", {"key": echo(spec.get("key", "?"))})
    want = {}
    for key, letter in expected.items():
        parsed = _parse_letter(letter)
        if parsed is None:
            return Verdict(0.0, "quiz.bad_key", {"key": echo(spec.get("key", "?"))})
        want[_canon_key(key)] = (str(key), parsed)

    if isinstance(given, dict) and all(_is_blank(v) for v in list(given.values())[:1000]):
        return Verdict(0.0, "quiz.unanswered")      # the template's keys, none filled in
    mapping = _as_mapping(given)
    if mapping is None:
        return Verdict(0.0, "quiz.not_mapping", {"given": echo(given)})

    got, unknown = {}, []
    for i, (key, value) in enumerate(mapping.items()):
        if i >= 100:
            break
        canon = _canon_key(key)
        if canon in want:
            got[canon] = _parse_letter(value)
        else:
            unknown.append(echo(key, 20))

    wrong = [name for canon, (name, letter) in want.items() if got.get(canon) != letter]
    fraction = (len(want) - len(wrong)) / len(want)
    if not wrong:
        return Verdict(1.0, "quiz.correct")
    params = {"wrong": ", ".join(wrong), "right": len(want) - len(wrong), "total": len(want)}
    if unknown:
        params["unknown"] = _truncate(", ".join(unknown))
        params["keys"] = _truncate(", ".join(name for name, _ in want.values()))
        return Verdict(fraction, "quiz.mapping_unknown_keys", params)
    return Verdict(fraction, "quiz.mapping_wrong_keys", params)


# --------------------------------------------------------------------------
# equation
# --------------------------------------------------------------------------

def _grade_equation(spec, given, expected):
    if not isinstance(given, str):
        return Verdict(0.0, "quiz.not_text", {"given": echo(given)})
    verdict = check_equation(given, spec.get("equation"), expected)
    params = {k: v for k, v in verdict.params.items() if isinstance(v, (str, int, float))}
    return Verdict(1.0 if verdict.ok else 0.0, verdict.message, params)


# --------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------

_GRADERS = {
    "bool": _grade_bool,
    "choice": _grade_choice,
    "list": _grade_list,
    "int": _grade_int,
    "number": _grade_number,
    "mapping": _grade_mapping,
    "equation": _grade_equation,
}


# What a backslash escape between double quotes makes of "\\x" (YAML and Python alike):
# "\\tanh" is a tab and "anh", "\\frac" a form feed and "rac", "\\beta" a backspace.
_ESCAPED = {"\t": "\\t", "\b": "\\b", "\f": "\\f", "\v": "\\v", "\a": "\\a", "\r": "\\r",
            "\n": "\\n", "\x1b": "\\e", "\x00": "\\0", "\x85": "\\N"}


def _backslash_meant(given, spec, expected, verdict: Verdict):
    """The escape that ate a backslash of a wrong text answer, if reading it back as a
    backslash grades better (so the message never blames a real tab or newline)."""
    if not isinstance(given, str) or len(given) > _MAX_TEXT * 5 or verdict.fraction >= 1:
        return None
    eaten = [c for c in _ESCAPED if c in given.rstrip("\n")]
    if not eaten:
        return None
    restored = "".join(_ESCAPED[c] if c in _ESCAPED else c for c in given.rstrip("\n"))
    try:
        again = _GRADERS[spec["format"]](spec, restored, expected)
    except Exception:
        return None
    return _ESCAPED[eaten[0]] if again.fraction > verdict.fraction else None


def known_wrong(spec: dict, given):
    """The question's known wrong answer (a key of its ``wrong:`` mapping) that ``given`` is, graded
    as the question grades an answer (a number within its tolerance, the same letter), or None."""
    wrong = spec.get("wrong") if isinstance(spec, dict) else None
    grader = _GRADERS.get(spec.get("format")) if isinstance(wrong, dict) else None
    if grader is None or _is_blank(given):
        return None
    for answer in wrong:
        try:
            if grader(spec, given, answer).fraction >= 1:
                return answer
        except Exception:  # noqa: BLE001 -- never raises, like grade_answer
            continue
    return None


def wrong_answer_problems(exercise, key: dict) -> list[str]:
    """Known wrong answers that the answer key grades right: the course's error, at the question's line."""
    problems = []
    for spec in exercise.checks:
        question = spec.question or {}
        for answer in question.get("wrong") or {}:
            if key.get(spec.id) is not None and grade_answer(question, answer, key.get(spec.id)).fraction >= 1:
                where = str(exercise.path or exercise.id) + (f":{spec.line}" if spec.line else "")
                problems.append(f"{where}: question {spec.id!r} lists {answer!r} as a known wrong answer, "
                                "but the answer key grades it right")
    return problems


def grade_quiz(exercise, answers: dict, key: dict, output: str = "", messages=None):
    """The quiz exercise's result: each question graded against the answer key, its credit
    clamped to [0, 1] of its points (``output``: what an ANSWERS dict's module printed). A
    known wrong answer (``wrong:``) is named like a code exercise's known mistake. A known wrong
    answer that the key grades right is the course's error (:class:`CourseError`). ``messages``: the
    course's catalogue, a known wrong answer's title is written with (None: the package's)."""
    from grader.base.errors import CourseError
    from grader.base.i18n import LANGUAGES, Message
    from grader.report.results import CheckResult, Diagnosis, ExerciseResult

    from grader.quiz.variants import variant_key

    key = variant_key(exercise, key, grade_answer)     # a variant question's answer: the student's own
    problems = wrong_answer_problems(exercise, key)
    if problems:
        raise CourseError(problems[0])
    checks, diagnoses = [], []
    for spec in exercise.checks:
        given = answers.get(spec.id)
        verdict = grade_answer(spec.question, given, key.get(spec.id))
        fraction = min(max(float(verdict.fraction), 0.0), 1.0)
        answer = known_wrong(spec.question, given) if fraction < 1.0 and not spec.hidden else None
        if answer is not None:
            verdict = Verdict(verdict.fraction, "quiz.known_wrong", {"given": echo(given)})
            title = {lang: Message("quiz.known_wrong_title", question=spec.id,
                                   answer=str(answer)).render(lang, messages)
                     for lang in LANGUAGES}
            diagnoses.append(Diagnosis(f"{exercise.id}.{spec.id}={answer}", title,
                                       dict(spec.question["wrong"][answer]), spec.hint))
        checks.append(CheckResult(name=spec.id, passed=fraction >= 1.0, score=fraction * spec.points,
                                  max_score=spec.points, message=Message(verdict.message, verdict.params),
                                  title=spec.title, hint=spec.hint, hidden=spec.hidden))
    return ExerciseResult(id=exercise.id, title=exercise.title, checks=checks, diagnoses=diagnoses, output=output)


def grade_answer(spec: dict, given, expected) -> Verdict:
    """Grade one quiz answer; never raises."""
    if not isinstance(spec, dict):
        return Verdict(0.0, "quiz.bad_spec", {"key": "?"})
    fmt = spec.get("format")
    grader = _GRADERS.get(fmt) if isinstance(fmt, str) else None
    if grader is None:
        return Verdict(0.0, "quiz.bad_spec", {"key": echo(spec.get("key", "?"))})
    if _is_blank(given):
        if (spec.get("format") == "list" and isinstance(given, (list, tuple, set, frozenset))
                and isinstance(expected, (list, tuple)) and len(expected) == 0):
            return Verdict(1.0, "quiz.correct")      # "none of them" is the answer
        return Verdict(0.0, "quiz.unanswered")
    try:
        verdict = grader(spec, given, expected)
    except RecursionError:
        return Verdict(0.0, "quiz.wrong")
    except Exception:
        return Verdict(0.0, "quiz.wrong")
    escape = _backslash_meant(given, spec, expected, verdict)
    if escape is not None:
        # The credit stays what the text as read earns: the instructor's grading reads it alike.
        return Verdict(verdict.fraction, "quiz.escaped_backslash", {"escape": escape})
    return verdict
