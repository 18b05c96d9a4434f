"""`grade class --format ...`: a class written in each format, from each student's view.

A :class:`ClassView` lists every student's latest attempt (name and points) and loads a
student's view (grader/report/view.py) only when a writer reaches them, from the language-neutral
result the gradebook stores, so a class of thousands is never held whole.

  * text: one line per student (with the final score beside the graded one where a late policy
    or an adjustment by hand applies), the counts of the run and the gradebook's path;
  * json: ``{"submissions": [{"student": NAME, <grade check's JSON object>}, ...]}``;
  * gradescope: the same list, each student's object Gradescope's results.json;
  * junit: one ``<testsuites>``, one suite per student and exercise (``STUDENT::EXERCISE``);
  * markdown: a table of the class, then each student's report under their name.
"""

from __future__ import annotations

import json as _json
from dataclasses import dataclass, field
from typing import Callable

from grader.report.escaping import one_line
from grader.base.i18n import Catalogue, Message, display_width
from grader.report.view import SubmissionView, points


@dataclass
class ClassView:
    lang: str
    rows: list[tuple[str, float, float]]           # (student, score, max_score), by name
    view_of: Callable[[str], SubmissionView]       # a student's latest report, built when asked
    counts: dict = field(default_factory=dict)     # count, graded, unchanged, skipped (text's title)
    gradebook: str = ""
    finals: dict = field(default_factory=dict)     # student -> final score, where a late policy or adjustment applies
    messages: Catalogue | None = None              # the course's (None: the package's)

    def label(self, key: str, **params) -> str:
        return Message(key, params).render(self.lang, self.messages)

    def views(self):
        for student, _, _ in self.rows:
            yield student, self.view_of(student)


def text(cls: ClassView) -> str:
    lines = [cls.label("class.title", **cls.counts)]
    names = [one_line(student) for student, _, _ in cls.rows]
    width = max([display_width(n) for n in names] + [8])
    for name, (student, score, max_score) in zip(names, cls.rows):
        line = f"  {name}{' ' * (width - display_width(name))}  {points(score):>7}/{points(max_score)}"
        if student in cls.finals:      # the graded score, and beside it the score after penalty and adjustments
            line += "  " + cls.label("staff.total", total=points(cls.finals[student]), max=points(max_score))
        lines.append(line)
    lines.append(cls.label("class.gradebook", path=cls.gradebook))
    return "\n".join(lines) + "\n"


def json(cls: ClassView) -> str:
    from grader.report.json_report import report_data
    return _submissions(cls, report_data)


def gradescope(cls: ClassView) -> str:
    from grader.report.gradescope import results_data
    return _submissions(cls, results_data)


def _submissions(cls: ClassView, data_of) -> str:
    from grader.report.json_report import escape_invisible
    # One student at a time: each object is encoded as soon as it is built.
    parts = [_json.dumps({"student": student, **data_of(view)}, ensure_ascii=False, indent=2)
             for student, view in cls.views()]
    return escape_invisible('{"submissions": [\n' + ",\n".join(parts) + "\n]}\n")


def junit(cls: ClassView) -> str:
    from grader.report.junit import render_junit_class
    return render_junit_class(list(cls.views()), cls.label("class_report.title"))


def markdown(cls: ClassView) -> str:
    from grader.report.markdown import FAIL, PASS, code, inline, render_markdown
    lines = [f"# {inline(cls.label('class_report.title'))}", "",
             f"| {inline(cls.label('class_report.student'))} | {inline(cls.label('report.score'))} | |",
             "|:--|--:|:-:|"]
    for student, score, max_score in cls.rows:
        lines.append(f"| {code(student, cell=True)} | {points(score)}/{points(max_score)} | "
                     f"{PASS if score >= max_score else FAIL} |")
    for student, view in cls.views():
        report = render_markdown(view).splitlines()
        # The student's name heads their report; its own title line (the total) follows as text.
        lines += ["", f"## {code(student)}", "", report[0].lstrip("# "), *report[1:]]
    return "\n".join(lines) + "\n"

