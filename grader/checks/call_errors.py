"""What the student is told when a call returned no value: the error a call ends with
(an exception, a timeout, a crash, a refused reply... tagged by the worker,
grader/sandbox/worker/zygote.py, or by the trusted side, grader/sandbox/client.py) as a
message key and parameters. A check's ``ctx.call`` words its failures here; the submission's
side (imports of a whole file, notebook cells: grader/grading/worker_errors.py) builds on it.

Every parameter that comes from the student's side (exception types and texts, file names,
signal names) goes through :func:`~grader.report.escaping.plain`: one line, control characters
visible, bounded. Files are named as the student handed them in by the ``describe_line`` the
caller gives.
"""

from __future__ import annotations

from grader.report.escaping import plain

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
        return "err.not_implemented", {"name": func, "file": file}
    if kind in ("exception", "exit"):
        where = where_called(error.get("frames") or [], describe_line)
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
    if kind == "syntax":    # a SyntaxError raised while the function ran (code compiled or exec'ed at run time)
        return "err.call_syntax", {"name": func, "message": plain(error.get("message", "")),
                                   "text": plain(error.get("text", ""), 120)}
    if kind == "not_run":   # an earlier call of the same batch crashed or timed out
        return "err.not_run", {"name": func}
    if kind == "protocol":  # the worker's reply could not be read (the student's code broke the channel)
        return "err.protocol", {"name": func, "message": plain(error.get("message", ""))}
    if kind == "bad_return":
        return "err.bad_return", {"name": func, "message": plain(error.get("message", kind))}
    return "err.call_failed", {"name": func, "how": plain(str(kind), 40)}

# Every kind of error a call can end with (the worker's tags, grader/sandbox/worker/zygote.py, and the
# trusted side's, grader/sandbox/client.py): each has its own words above; tests/engine/test_worker_error_tags.py
# finds every tag in those files and fails on one missing here.
CALL_ERROR_KINDS = ("import", "too_large", "missing", "exception", "exit", "timeout", "timed_out_before", "crash",
                    "time_limit", "gave_up", "syntax", "not_run", "protocol", "bad_return")

def import_error_message(cause: dict, file: str, describe_line) -> tuple:
    """(key, params) for a student module that did not import."""
    kind = cause.get("kind")
    if kind == "syntax":
        module = (cause.get("file") or file)
        module = module[:-3] if module.endswith(".py") else module
        return "err.syntax", {"where": describe_line(plain(module, 80), cause.get("line", 0)),
                              "message": plain(cause.get("message", "")), "text": plain(cause.get("text", ""), 120)}
    if kind in ("exception", "exit"):
        where = where_called(cause.get("frames") or [], describe_line)
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

def refusal_message(error: dict, func: str) -> tuple:
    """A reply over a call's or a submission's budget (grader/runner.Limits)."""
    scope = "call" if error.get("scope") == "call" else "submission"
    return f"err.too_large_{scope}", {"name": func, "size": _mib(error.get("size")), "limit": _mib(error.get("limit"))}

def _mib(size) -> str:
    return f"{size / (1 << 20):.3g}" if type(size) is int else "?"

def where_called(frames, describe_line) -> str:
    if not frames or type(frames) is not list or not isinstance(frames[-1], (list, tuple)) or len(frames[-1]) != 3:
        return NOWHERE
    path, line, _ = frames[-1]
    path = plain(str(path), 80)
    module = path[:-3] if path.endswith(".py") else path
    return describe_line(module, line)
