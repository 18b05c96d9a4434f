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
        return "err.not_implemented", {"name": func, "file": file}
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


# Every kind of error a call can end with (the worker's tags, grader/worker/zygote.py, and the
# trusted side's, grader/runner.py): each has its own words above; tests/engine/test_worker_error_tags.py
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
    the advice to delete that import; for any other module the grader's environment does not
    have, what graded code may import and how to keep plotting out of it."""
    from grader.graded_work import course_modules

    key, params = import_error_message(cause, file, submission.describe_line)
    if cause.get("type") != "ModuleNotFoundError":
        return key, params
    m = re.search(r"No module named '([\w.]+)'", str(cause.get("message", "")))
    if m is None:
        return key, params
    if m.group(1).split(".")[0] in course_modules(course):
        if submission.single_module is None:
            return key, params        # a course file the folder does not hold: its own exercises say so
    else:
        found = {"file": file, "module": plain(m.group(1), 80), "allowed": allowed_imports(course)}
        if "where" in params:
            return "err.import_no_module", {**found, "where": params["where"]}
        return "err.import_no_module_unplaced", found
    found = {"file": file, "module": m.group(1).split(".")[0]}
    if "where" in params:
        return "err.course_import", {**found, "where": params["where"]}
    return "err.course_import_unplaced", found


def submission_error_message(error: dict, func: str, exercise, submission, course, describe_line,
                             notebooks=None) -> tuple:
    """:func:`call_error_message` with files named as the student handed them in; a function a
    notebook does not define is traced to the cell that should have defined it (``notebooks``:
    the submission's runs, grader/notebook_run.py)."""
    if submission is not None and error.get("kind") == "import":
        return submission_import_message(error.get("cause") or {}, submission.file_of(exercise.file),
                                         submission, course)
    if submission is not None and error.get("kind") == "missing" and notebooks:
        traced = missing_in_notebook(str(error.get("name") or func), exercise, submission, notebooks)
        if traced is not None:
            return traced
    module = missing_module(error) if error.get("kind") == "exception" else None
    if module is not None and (submission is None or module.split(".")[0] not in _course_modules(course)):
        where = _where(error.get("frames") or [], describe_line)
        params = {"name": func, "module": plain(module, 80), "allowed": allowed_imports(course)}
        if where == NOWHERE:
            return "err.call_no_module_unplaced", params
        return "err.call_no_module", {**params, "where": where}
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


# ---------------------------------------------------------------- notebooks, cell by cell

def _course_modules(course) -> list[str]:
    from grader.graded_work import course_modules

    return course_modules(course) if course is not None else []


def allowed_imports(course) -> str:
    """What graded code may import besides the standard library: numpy and the course's
    display-only packages (course.yaml ``display_packages``)."""
    declared = list(getattr(getattr(course, "info", None), "display_packages", None) or ())
    return ", ".join(["numpy", *declared])


def missing_module(error: dict) -> str | None:
    """The module a ModuleNotFoundError names, if that is what ``error`` describes."""
    if error.get("type") != "ModuleNotFoundError":
        return None
    m = re.search(r"No module named '([\w.]+)'", str(error.get("message", "")))
    return m.group(1) if m else None


MAX_CELL_NOTES = 20     # stopped cells named one by one; one more note counts the rest


def stopped_cell_notes(submission, notebooks: dict, course) -> list:
    """One note per notebook cell that stopped, in order: the report names each once, at the top
    (the first MAX_CELL_NOTES, then how many more)."""
    from grader.i18n import Message

    notes = []
    for module, run in notebooks.items():
        cells = submission.cells(module)
        stops = run.ordered()
        for cell, error in stops[:MAX_CELL_NOTES]:
            key, params = cell_stop_message(cell, error, cells.first_lines.get(cell, "") if cells else "",
                                            lambda m, line, _module=module: submission.describe_line(_module, line),
                                            course)
            notes.append(Message(key, params))
        if len(stops) > MAX_CELL_NOTES:
            notes.append(Message("note.cells_more", count=len(stops) - MAX_CELL_NOTES))
    return notes


def cell_stop_message(cell: int, error: dict, first: str, describe_line, course) -> tuple:
    """(key, params) for a notebook cell that stopped (grader/notebook_run.py): what it raised and
    where, or the budget it ran past, or how it ended the process."""
    params = {"cell": cell, "first": plain(first, 80)}
    kind = error.get("kind")
    if kind == "cell_budget":
        return "note.cell_budget", {**params, "seconds": plain(error.get("seconds", "?"), 20)}
    if kind == "notebook_budget":
        return "note.cell_notebook_budget", {**params, "seconds": plain(error.get("seconds", "?"), 20),
                                             "later": error.get("later", 0) if type(error.get("later")) is int else 0}
    if kind == "crash":
        how = error.get("signal") or f"exit code {error.get('exit_code', '?')}"
        return "note.cell_crash", {**params, "how": plain(how, 40)}
    if kind == "syntax":
        where = describe_line("submission", error.get("line", 0) if type(error.get("line")) is int else 0)
        return "note.cell_syntax", {**params, "where": where, "message": plain(error.get("message", ""))}
    where = _where(error.get("frames") or [], describe_line)
    module = missing_module(error)
    if module is not None:
        return "note.cell_no_module", {**params, "module": plain(module, 80), "where": where,
                                       "allowed": allowed_imports(course)}
    return "note.cell_stopped", {**params, "type": plain(error.get("type", ""), 80),
                                 "message": plain(error.get("message", "")), "where": where}


def missing_in_notebook(name: str, exercise, submission, notebooks: dict) -> tuple | None:
    """Why a notebook does not define ``name``: the cell that should have defined it stopped (or
    does not compile), or a cell deletes it. None when no cell defines it (it is simply missing)."""
    module = submission.module_for(exercise.file)
    run, cells = notebooks.get(module), submission.cells(module) if module else None
    if run is None or cells is None:
        return None
    file = submission.file_of(exercise.file)
    defining = cells.defining(name)
    late = run.stop_at is not None
    failed = [c for c in defining if c in run.stops or c in cells.uncompiled or (late and c > run.stop_at)]
    deleting = cells.deleting(name)
    if deleting and (not defining or max(deleting) > max(defining)):
        return "err.missing_deleted", {"name": name, "file": file, "cell": max(deleting)}
    if failed:
        cell = failed[-1]
        if cell in run.stops:
            key = "err.missing_stopped"
        else:
            key = "err.missing_uncompiled" if cell in cells.uncompiled else "err.missing_not_run"
        return key, {"name": name, "file": file, "cell": cell}
    return None
