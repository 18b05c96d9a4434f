"""The human report: readable in a terminal (coloured there) or a file.

Messages quote student values (dict keys, exception texts, file names), so every text
goes through :func:`~grader.escaping.visible`: control characters arrive as escapes such
as ``\\x1b``, never as terminal commands (rich passes them through as they are).
"""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text

from grader.escaping import visible
from grader.view import OUTPUT_LINES, CheckView, ExerciseView, SubmissionView


def render_text(view: SubmissionView, color: bool = False) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color, width=100,
                      highlight=False, soft_wrap=False, emoji=False)
    console.print(Text(f"{view.label('report.title')} — {visible(view.source)}", style="bold"))
    for note in view.notes:
        console.print(Text(visible(note), style="yellow"))
    console.print(Text(f"{view.label('report.isolation')}: {visible(view.isolation)}", style="dim"))
    for exercise in view.exercises:
        console.print()
        write_exercise(console, exercise, view)
    console.print()
    line = Text(f"{view.label('report.total')}: {view.points}", style="bold")
    if view.all_passed:
        line.append("  " + view.label("report.all_passed"), style="green")
    console.print(line)
    return buffer.getvalue()


def write_exercise(console: Console, exercise: ExerciseView, view: SubmissionView) -> None:
    head = Text()
    head.append(f"{exercise.id}", style="bold cyan")
    head.append(f"  {exercise.title}  ")
    head.append(exercise.points, style="bold green" if exercise.score == exercise.max_score else "bold red")
    console.print(head)
    for note in exercise.notes:
        console.print(Text(f"  {visible(note)}", style="yellow"))
    if exercise.problem:
        console.print(Text(f"  {view.label('report.problem')}: {visible(exercise.problem)}", style="red"))
    for check in exercise.checks:
        write_check(console, check, view, show_message=not exercise.problem)
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
