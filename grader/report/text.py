"""The human report: readable in a terminal (coloured there) or a file.

Messages quote student values (dict keys, exception texts, file names), so every text
goes through :func:`~grader.report.escaping.visible`: control characters arrive as escapes such
as ``\\x1b``, never as terminal commands (rich passes them through as they are).
"""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text

from grader.report.escaping import visible
from grader.report.view import OUTPUT_LINES, UNANSWERED, CheckView, ExerciseView, SubmissionView, points
from grader.report import Writer, class_writer


def render_text(view: SubmissionView, color: bool = False, verbose: bool = False) -> str:
    """The report; an exercise not started is one line, unanswered quiz questions one line with
    their count, unless ``verbose`` (``grade check --verbose``: every check, as always before)."""
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color, width=100,
                      highlight=False, soft_wrap=False, emoji=False)
    console.print(Text(f"{view.label('report.title')} — {visible(view.source)}", style="bold"))
    for note in view.notes:
        console.print(Text(visible(note), style="yellow"))
    console.print(Text(f"{view.label('report.isolation')}: {visible(view.isolation)}", style="dim"))
    for exercise in view.exercises:
        console.print()
        if exercise.not_started and not verbose:
            write_not_started(console, exercise, view)
        else:
            write_exercise(console, exercise, view, verbose=verbose)
    console.print()
    line = Text(f"{view.label('report.total')}: {view.points}", style="bold")
    if view.all_passed:
        line.append("  " + view.label("report.all_passed"), style="green")
    console.print(line)
    begin = where_to_begin(view)
    if begin:
        console.print(Text(begin, style="bold"))
    return buffer.getvalue()


# This format's entry of grader/report/__init__.py WRITERS.
WRITER = Writer(render_text, ".txt", many=class_writer("text"), colored=True)


def write_not_started(console: Console, exercise: ExerciseView, view: SubmissionView) -> None:
    """One line: the exercise, its points, "not started" and the file to edit (or the questions to answer)."""
    head = Text()
    head.append(f"{exercise.id}", style="bold cyan")
    head.append(f"  {exercise.title}  ")
    head.append(exercise.points, style="bold red")
    if exercise.unanswered:
        said = view.label("report.quiz_not_started", count=exercise.unanswered)
    elif exercise.file:
        said = view.label("report.not_started", file=visible(exercise.file))
    else:
        said = view.label("report.not_started_no_file")
    head.append(f"  {said}", style="yellow")
    console.print(head)


def where_to_begin(view: SubmissionView) -> str:
    """The report's last line where the first exercise still to do is not started: its file."""
    todo = next((e for e in view.exercises if not e.complete), None)
    if todo is None or not todo.not_started or todo.unanswered:
        return ""
    if todo.file:
        return view.label("report.begin_with", id=todo.id, title=todo.title, file=visible(todo.file))
    return view.label("report.begin_with_no_file", id=todo.id, title=todo.title)


def write_exercise(console: Console, exercise: ExerciseView, view: SubmissionView, verbose: bool = True) -> None:
    head = Text()
    head.append(f"{exercise.id}", style="bold cyan")
    head.append(f"  {exercise.title}  ")
    head.append(exercise.points, style="bold green" if exercise.score == exercise.max_score else "bold red")
    console.print(head)
    for note in exercise.notes:
        console.print(Text(f"  {visible(note)}", style="yellow"))
    if exercise.problem:
        console.print(Text(f"  {view.label('report.problem')}: {visible(exercise.problem)}", style="red"))
    unanswered = [] if verbose else [c for c in exercise.checks if c.message_key == UNANSWERED and not c.passed]
    for check in exercise.checks:
        if check not in unanswered:
            write_check(console, check, view, show_message=not exercise.problem)
    if unanswered:
        lost = sum(c.max_score for c in unanswered)
        line = Text(f"  ✗ {view.label('report.unanswered', count=len(unanswered))}", style="red")
        line.append(f"  0/{points(lost)}", style="dim")
        console.print(line)
    for diagnosis in exercise.diagnoses:
        line = Text(f"  {view.label('report.diagnosis')} [{diagnosis.id}]: ", style="bold magenta")
        line.append(diagnosis.title, style="magenta")
        console.print(line)
        console.print(Text(f"      {diagnosis.explanation}"))
        if diagnosis.hint:
            console.print(Text(f"      {view.label('report.hint')}: {diagnosis.hint}", style="dim"))
    excerpt = exercise.output_excerpt(lines=None)
    if excerpt:
        console.print(Text(f"  {view.label('report.output')}:", style="dim"))
        for row in visible(excerpt).splitlines()[:OUTPUT_LINES]:
            console.print(Text("      | " + row, style="dim"))


def write_check(console: Console, check: CheckView, view: SubmissionView, show_message: bool = True) -> None:
    mark, style = ("✓", "green") if check.passed else ("✗", "red")
    line = Text(f"  {mark} ", style=style)
    line.append(check.name)
    if check.hidden:
        line.append(f" ({view.label('report.hidden')})", style="dim")
    line.append(f"  {check.points}", style="dim")
    title = check.short_title if check.passed else check.title
    if title:
        line.append(f"  {title}", style="dim")
    console.print(line)
    if not check.passed and show_message:
        if check.message:
            console.print(Text(f"      {visible(check.message)}"))
        for row in visible(check.counterexample).splitlines():
            console.print(Text(f"      {row}", style="cyan"))
        if check.hint:
            console.print(Text(f"      {view.label('report.hint')}: {check.hint}", style="yellow"))
    elif check.partial and check.message:
        console.print(Text(f"      {visible(check.message)}"))
