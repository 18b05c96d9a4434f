"""What the student is told when a submission's code returned no value, on the submission's side:
a whole file or notebook that did not import, a module the grader's environment does not
have, a notebook cell that stopped. The words for one call's failure are in
grader/checks/call_errors.py, which this builds on.

Every parameter that comes from the student's side (exception types and texts, file names,
signal names) goes through :func:`~grader.report.escaping.plain`: one line, control characters
visible, bounded. Files are named as the student handed them in (a single file or notebook
by its own name, ``homework.ipynb, cell 3, line 2``) by the ``describe_line`` the caller gives.
"""

from __future__ import annotations

import re

from grader.checks.call_errors import NOWHERE, where_called, call_error_message, import_error_message
from grader.report.escaping import plain


def submission_import_message(cause: dict, file: str, submission, course) -> tuple:
    """:func:`import_error_message`, or for a single file or notebook whose import failed on a course
    module it does not have (a form grader/grading/graded_work.py's rewrite_course_imports leaves alone),
    the advice to delete that import; for any other module the grader's environment does not
    have, what graded code may import and how to keep plotting out of it."""
    from grader.grading.graded_work import course_modules

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
    the submission's runs, grader/sandbox/notebook_run.py)."""
    if submission is not None and error.get("kind") == "import":
        return submission_import_message(error.get("cause") or {}, submission.file_of(exercise.file),
                                         submission, course)
    if submission is not None and error.get("kind") == "missing" and notebooks:
        traced = missing_in_notebook(str(error.get("name") or func), exercise, submission, notebooks)
        if traced is not None:
            return traced
    module = missing_module(error) if error.get("kind") == "exception" else None
    if module is not None and (submission is None or module.split(".")[0] not in _course_modules(course)):
        where = where_called(error.get("frames") or [], describe_line)
        params = {"name": func, "module": plain(module, 80), "allowed": allowed_imports(course)}
        if where == NOWHERE:
            return "err.call_no_module_unplaced", params
        return "err.call_no_module", {**params, "where": where}
    key, params = call_error_message(error, func, exercise.file, describe_line, exercise.timeout)
    if submission is None or error.get("kind") == "too_large" or "file" not in params:
        return key, params
    return key, {**params, "file": submission.file_of(exercise.file)}


# ---------------------------------------------------------------- notebooks, cell by cell

def _course_modules(course) -> list[str]:
    from grader.grading.graded_work import course_modules

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
    from grader.base.i18n import Message

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
    """(key, params) for a notebook cell that stopped (grader/sandbox/notebook_run.py): what it raised and
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
    where = where_called(error.get("frames") or [], describe_line)
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
