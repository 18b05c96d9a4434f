"""The human report: readable in a terminal (coloured there) or a file.

Messages quote student values (dict keys, exception texts, file names), so every
message goes through :func:`visible`: control characters arrive as escapes such as
``\\x1b``, never as terminal commands (rich passes them through as they are).
"""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text

from grader.i18n import Message, render, text
from grader.report.markdown import visible
from grader.results import SubmissionResult

OUTPUT_SHOWN = 600   # characters of a student's own prints shown per exercise


def _msg(key: str, lang: str) -> str:
    return Message(key).render(lang)


def render_text(result: SubmissionResult, lang: str, color: bool = False) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color, width=100,
                      highlight=False, soft_wrap=False, emoji=False)
    console.print(Text(f"{_msg('report.title', lang)} — {visible(result.source)}", style="bold"))
    for note in result.notes:
        console.print(Text(visible(note.render(lang)), style="yellow"))
    console.print(Text(f"{_msg('report.isolation', lang)}: {result.isolation}", style="dim"))
    for exercise in result.exercises:
        console.print()
        write_exercise(console, exercise, lang)
    console.print()
    line = Text(f"{_msg('report.total', lang)}: {_num(result.score)}/{_num(result.max_score)}", style="bold")
    if result.all_passed:
        line.append("  " + _msg("report.all_passed", lang), style="green")
    console.print(line)
    return buffer.getvalue()


def write_exercise(console: Console, exercise, lang: str) -> None:
    complete = exercise.score == exercise.max_score
    head = Text()
    head.append(f"{exercise.id}", style="bold cyan")
    head.append(f"  {text(exercise.title, lang)}  ")
    head.append(f"{_num(exercise.score)}/{_num(exercise.max_score)}", style="bold green" if complete else "bold red")
    console.print(head)
    for note in exercise.notes:
        console.print(Text(f"  {visible(note.render(lang))}", style="yellow"))
    if exercise.problem is not None:
        console.print(Text(f"  {_msg('report.problem', lang)}: {visible(exercise.problem.render(lang))}", style="red"))
    for check in exercise.checks:
        write_check(console, check, lang, show_message=exercise.problem is None)
    for diagnosis in exercise.diagnoses:
        line = Text(f"  {_msg('report.diagnosis', lang)} [{diagnosis.id}]: ", style="bold magenta")
        line.append(text(diagnosis.title, lang), style="magenta")
        console.print(line)
        console.print(Text(f"      {text(diagnosis.explanation, lang)}"))
        if text(diagnosis.hint, lang):
            console.print(Text(f"      {_msg('report.hint', lang)}: {text(diagnosis.hint, lang)}", style="dim"))
    if exercise.output.strip():
        shown = exercise.output[:OUTPUT_SHOWN] + ("…" if len(exercise.output) > OUTPUT_SHOWN else "")
        console.print(Text(f"  {_msg('report.output', lang)}:", style="dim"))
        for row in escape_output(shown).splitlines()[:12]:
            console.print(Text("      | " + row, style="dim"))


def write_check(console: Console, check, lang: str, show_message: bool = True) -> None:
    mark, style = ("✓", "green") if check.passed else ("✗", "red")
    line = Text(f"  {mark} ", style=style)
    line.append(check.name)
    if check.hidden:
        line.append(f" ({_msg('report.hidden', lang)})", style="dim")
    line.append(f"  {_num(check.score)}/{_num(check.max_score)}", style="dim")
    title = text(check.title, lang)
    if title and check.passed:
        title = title.strip().splitlines()[0]   # a passed question: its wording, not every choice again
    if title:
        line.append(f"  {title}", style="dim")
    console.print(line)
    if not check.passed and show_message:
        message = check.rendered(lang)
        if message:
            console.print(Text(f"      {visible(message)}"))
        if check.counterexample is not None and not check.hidden:
            for row in visible(check.counterexample.render(lang)).splitlines():
                console.print(Text(f"      {row}", style="cyan"))
        hint = text(check.hint, lang)
        if hint and not check.hidden:
            console.print(Text(f"      {_msg('report.hint', lang)}: {hint}", style="yellow"))
    elif check.passed and check.message is not None and check.score < check.max_score:
        console.print(Text(f"      {visible(check.rendered(lang))}"))


def escape_output(raw: str) -> str:
    """Student output shown as data: control characters (ANSI codes...) made visible."""
    return "".join(c if c.isprintable() or c == "\n" else repr(c)[1:-1] for c in raw)


def _num(x: float) -> str:
    return f"{x:g}" if x != int(x) else str(int(x))


__all__ = ["render_text", "render"]
