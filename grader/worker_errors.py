"""What the student is told when a call or an import returned no value: the worker's errors
(grader/runner.py: an exception, a timeout, a crash, a refused reply...) as message keys and
parameters, in one place.

Every parameter that comes from the student's side (exception types and texts, file names,
signal names) goes through :func:`~grader.escaping.plain`: one line, control characters
visible, bounded. Files are named as the student handed them in (a single file or notebook
by its own name, ``homework.ipynb, cell 3, line 2``) by the ``describe_line`` the caller gives.
"""

from __future__ import annotations

import re

from grader.escaping import plain

NOWHERE = "-"     # no line of the student's code to point at


def call_error_message(error: dict, func: str, file: str, describe_line, timeout) -> tuple:
    """(key, params) for a call to ``func`` (of the course file ``file``) that returned no value;
    ``timeout``: the exercise's, for errors that do not say theirs."""
    kind = error.get("kind")
    if kind == "import":
        return import_error_message(error.get("cause") or {}, file, describe_line)
    if kind == "too_large":
        return refusal_message(error, func)
    if kind == "missing":
        return "err.missing_function", {"name": error.get("name", func), "file": file}
    if kind == "exception" and error.get("type") == "NotImplementedError":
        return "err.not_implemented", {"name": func}
    if kind in ("exception", "exit"):
        where = _where(error.get("frames") or [], describe_line)
        params = {"name": func, "type": plain(error.get("type", ""), 80), "message": plain(error.get("message", ""))}
        if where == NOWHERE:    # raised before any line of the student's (a call with the wrong arguments)
            return f"err.{kind}_unplaced", params
        return f"err.{kind}", {**params, "where": where}
    if kind in ("timeout", "timed_out_before"):
        return f"err.{kind}", {"name": func, "seconds": plain(error.get("seconds", timeout), 20)}
    if kind == "crash":
        how = error.get("signal") or f"exit code {error.get('exit_code', '?')}"
        return "err.crash", {"name": func, "how": plain(how, 40)}
    if kind == "time_limit":
        return "err.time_limit", {"name": func}
    if kind == "gave_up":
        return "err.gave_up", {"name": func, "failures": error.get("failures", 0)}
    return "err.bad_return", {"name": func, "message": plain(error.get("message", kind))}


def import_error_message(cause: dict, file: str, describe_line) -> tuple:
    """(key, params) for a student module that did not import."""
    kind = cause.get("kind")
    if kind == "syntax":
        module = (cause.get("file") or file)
        module = module[:-3] if module.endswith(".py") else module
        return "err.syntax", {"where": describe_line(plain(module, 80), cause.get("line", 0)),
                              "message": plain(cause.get("message", "")), "text": plain(cause.get("text", ""), 120)}
    if kind in ("exception", "exit"):
        where = _where(cause.get("frames") or [], describe_line)
        params = {"file": file, "type": plain(cause.get("type", ""), 80), "message": plain(cause.get("message", ""))}
        if where == NOWHERE:
            return f"err.import_{kind}_unplaced", params
        return f"err.import_{kind}", {**params, "where": where}
    if kind == "timeout":
        return "err.import_timeout", {"file": file, "seconds": cause.get("seconds", "?")}
    if kind == "time_limit":
        return "err.time_limit", {"name": file}
    how = cause.get("signal") or f"exit code {cause.get('exit_code', '?')}"
    return "err.import_crash", {"file": file, "how": how}


def submission_import_message(cause: dict, file: str, submission, course) -> tuple:
    """:func:`import_error_message`, or for a single file or notebook whose import failed on a course
    module it does not have (a form grader/graded_work.py's rewrite_course_imports leaves alone),
    the advice to delete that import."""
    from grader.graded_work import course_modules

    key, params = import_error_message(cause, file, submission.describe_line)
    if submission.single_module is None or cause.get("type") != "ModuleNotFoundError":
        return key, params
    m = re.search(r"No module named '([\w.]+)'", str(cause.get("message", "")))
    if m is None or m.group(1).split(".")[0] not in course_modules(course):
        return key, params
    found = {"file": file, "module": m.group(1).split(".")[0]}
    if "where" in params:
        return "err.course_import", {**found, "where": params["where"]}
    return "err.course_import_unplaced", found


def submission_error_message(error: dict, func: str, exercise, submission, course, describe_line) -> tuple:
    """:func:`call_error_message` with files named as the student handed them in."""
    if submission is not None and error.get("kind") == "import":
        return submission_import_message(error.get("cause") or {}, submission.file_of(exercise.file),
                                         submission, course)
    key, params = call_error_message(error, func, exercise.file, describe_line, exercise.timeout)
    if submission is None or error.get("kind") == "too_large" or "file" not in params:
        return key, params
    return key, {**params, "file": submission.file_of(exercise.file)}


def refusal_message(error: dict, func: str) -> tuple:
    """A reply over a call's or a submission's budget (grader/runner.Limits)."""
    scope = "call" if error.get("scope") == "call" else "submission"
    return f"err.too_large_{scope}", {"name": func, "size": _mib(error.get("size")), "limit": _mib(error.get("limit"))}


def _mib(size) -> str:
    return f"{size / (1 << 20):.3g}" if type(size) is int else "?"


def _where(frames, describe_line) -> str:
    if not frames or type(frames) is not list or not isinstance(frames[-1], (list, tuple)) or len(frames[-1]) != 3:
        return NOWHERE
    path, line, _ = frames[-1]
    path = plain(str(path), 80)
    module = path[:-3] if path.endswith(".py") else path
    return describe_line(module, line)
