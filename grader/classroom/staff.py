"""What ``grade class`` does for the course's staff around the marks (CONTRACT section 11):
the deadline, the late policy and extensions kept in the gradebook, hand-in times from
``--submitted-at``, ``--only-student``, ``--roster`` with per-student variants, and each
student's feedback ending with their final score (grader/classroom/late_policy.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from grader.base.errors import BadInput
from grader.classroom.late_policy import LatePolicy, parse_deadline, parse_policy, read_extensions, read_submitted_at


@dataclass
class StaffOptions:
    deadline: str | None = None
    policy: LatePolicy | None = None
    times: dict[str, str] = field(default_factory=dict)
    times_file: str = ""
    extensions: dict[str, str] | None = None
    only_students: tuple = ()
    roster: list[str] | None = None
    unknown_times: list[str] = field(default_factory=list)

    @classmethod
    def read(cls, deadline, late, submitted_at, extensions, only_students=(), roster=None) -> "StaffOptions":
        """Every option checked before anything is grouped or graded (bad input: exit 2)."""
        options = cls(only_students=tuple(only_students))
        if deadline is not None:
            options.deadline = parse_deadline(deadline).isoformat()
        if late is not None:
            options.policy = parse_policy(late)
        if submitted_at is not None:
            options.times = read_submitted_at(submitted_at)
            options.times_file = Path(submitted_at).name
        if extensions is not None:
            options.extensions = read_extensions(extensions)
        if roster is not None:
            from grader.quiz.variants import read_roster
            options.roster = read_roster(roster)
        return options

    def apply_to(self, found):
        """``--submitted-at`` times on the entries (the LMS's CSV wins over a timestamp.txt), and
        ``--only-student``: the other entries are left alone (their grades and history stay)."""
        seen = set()
        for entry in found.entries:
            for info in entry.info:
                if info.student in self.times:
                    seen.add(info.student)
                    info.submitted_at = self.times[info.student]
                    info.time_source = f"{self.times_file} (--submitted-at)"
                    from grader.classroom.lms_layouts import _time_precision
                    info.time_precision = _time_precision(info.submitted_at)
        self.unknown_times = sorted(set(self.times) - seen)
        if self.only_students:
            wanted = set(self.only_students)
            entries = [e for e in found.entries if wanted & {e.student, *e.members}]
            missing = wanted - {s for e in entries for s in (e.student, *e.members)}
            if missing:
                raise BadInput(f"--only-student: no submission of {sorted(missing)[0]!r} in this class")
            found.entries = entries
            found.skipped = []
        if self.roster is not None:
            roster = set(self.roster)
            kept = []
            for entry in found.entries:
                if entry.student in roster:
                    kept.append(entry)
                else:
                    found.skipped.append((entry.student, "not on the roster (--roster): no variant of its own, "
                                                         "name the entry by the student's roster id"))
            found.entries = kept
        return found

    def store(self, book) -> None:
        """The deadline and policy kept in the gradebook (a rerun without them keeps the stored ones)."""
        if self.extensions is not None:
            book.set_extensions(self.extensions)
        if self.deadline is None and self.policy is None:
            return
        stored = book.late_setting()
        deadline = self.deadline or (stored[0] if stored else None)
        policy = self.policy.text if self.policy is not None else (stored[1] if stored else None)
        if policy is None:
            raise BadInput("--deadline needs a late policy: add --late, like --late '10%/day, max 3 days' "
                           "(or --late none)")
        if deadline is None and policy != "none":
            raise BadInput("--late needs a deadline: add --deadline, like --deadline 2026-12-10T23:59+08:00")
        book.set_late_policy(deadline, policy)

    def variants(self, course, found):
        """Entries graded against their student's own variant: nothing to change here, the entry's
        name is the student id (grader/classroom/class_run.py hands it to grader/quiz/variants.py)."""
        return found

    def refresh_feedback(self, book, writer, run) -> None:
        """Each student's feedback ends with their final score where a policy or an adjustment
        applies: written again from the stored result, so a changed policy or an adjustment made
        since shows without regrading."""
        from grader.classroom.adjustments import per_exercise
        from grader.classroom.late_policy import final_for

        if writer is None or writer.kind == "none":
            return
        policy = book.late_setting()
        adjusted = {row.student for row in book.adjustments()}
        if policy is None and not adjusted:
            return
        active = policy is not None and policy[1] != "none"
        for student in dict.fromkeys(s for e in run.entries for s in (e.student, *e.members)):
            if not active and student not in adjusted and policy is None:
                continue           # nothing to add, and no block an earlier policy left to take away
            attempt = book.latest(student)
            if attempt is None:
                continue
            text = writer.render(attempt.result, student)
            if active or student in adjusted:
                text = with_final(text, writer.kind, writer.lang, final_for(book, attempt),
                                  per_exercise(book, attempt), book.adjustments(student), writer.messages)
            writer.save(student, text)

    def summary(self, book, run) -> list[str]:
        lines = []
        if self.unknown_times:
            lines.append(f"warning: --submitted-at names {len(self.unknown_times)} students with no submission: "
                         + ", ".join(self.unknown_times[:10]) + (", ..." if len(self.unknown_times) > 10 else ""))
        setting = book.late_setting()
        if setting and setting[1] != "none":
            from grader.classroom.late_policy import finals
            wanted = {s for e in run.entries for s in (e.student, *e.members)}
            result = finals(book, [a for a in book.latest_all() if a.student in wanted])
            late = sum(1 for f in result.values() if f.status in ("late", "past_cap"))
            no_time = sorted(s for s, f in result.items() if f.status == "no_time")
            lines.append(f"late policy {setting[1]!r}, deadline {setting[0]}: {late} late"
                         + (f", {len(no_time)} with no hand-in time (no penalty): " + ", ".join(no_time[:10])
                            if no_time else ""))
        return lines


def refresh_one(book, book_path: Path, student: str, messages=None) -> Path | None:
    """After ``grade adjust``: the student's feedback file of the latest run, written again with the
    final score, in its kind and language (read from the file: ``lang="zh`` or Chinese in its first
    line) and with ``messages`` (the course's catalogue; None: the package's); None when the run
    wrote none. The next ``grade class`` run writes it again anyway."""
    import re

    from grader.classroom.adjustments import per_exercise
    from grader.classroom.feedback import FeedbackWriter, hashed_name, safe_name
    from grader.classroom.late_policy import final_for
    from grader.report import write_atomically

    row = book.db.execute("SELECT directory FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    attempt = book.latest(student)
    if row is None or attempt is None:
        return None
    name = Path(row[0]).name
    name = name[:-4] if name.lower().endswith(".zip") else name
    folder = Path(book_path).parent / f"{name}.feedback"
    names = ([student] if safe_name(student) == student else []) + [hashed_name(student)]
    found = [folder / f"{n}{suffix}" for n in names for suffix in (".md", ".html")
             if (folder / f"{n}{suffix}").is_file() and not (folder / f"{n}{suffix}").is_symlink()]
    if not found:
        return None
    path = max(found, key=lambda p: p.stat().st_mtime_ns)      # the kind the latest run wrote
    head = path.read_text(encoding="utf-8", errors="replace")[:2000]
    kind = "html" if path.suffix == ".html" else "markdown"
    first = head.split("<body", 1)[-1] if kind == "html" else head.splitlines()[0] if head else ""
    lang = "zh" if re.search(r"""lang=["']?zh""", head) or re.search(r"[\u4e00-\u9fff]", first[:400]) else "en"
    writer = FeedbackWriter(folder, kind, lang, messages)
    text = with_final(writer.render(attempt.result, student), kind, lang, final_for(book, attempt),
                      per_exercise(book, attempt), book.adjustments(student), messages)
    write_atomically(path, text)
    return path


def with_final(text: str | None, kind: str, lang: str, final, per_exercise: dict, rows: list,
               messages=None) -> str | None:
    """The feedback text followed by the final score: Markdown, or HTML before ``</body>`` (escaped);
    ``messages``: the course's catalogue (None: the package's)."""
    from html import escape

    if text is None:
        return None
    lines = final_lines(final, per_exercise, rows, lang, messages)
    if kind == "html":
        items = "".join(f"<li>{escape(line)}</li>" for line in lines[1:])
        block = f'<section class="final"><h2>{escape(lines[0])}</h2><ul>{items}</ul></section>\n'
        at = text.rfind("</body>")
        return text[:at] + block + text[at:] if at >= 0 else text + block
    return text.rstrip("\n") + "\n\n## " + lines[0] + "\n\n" + "\n".join(f"- {line}" for line in lines[1:]) + "\n"


def final_lines(final, per_exercise: dict, rows: list, lang: str, messages=None) -> list[str]:
    """The final score's lines, in ``lang`` (from ``messages``, the course's catalogue; None: the
    package's): heading, raw, each adjustment, the late penalty, total."""
    from functools import partial

    from grader.report.escaping import visible
    from grader.base.i18n import render
    msg = partial(render, messages=messages)
    from grader.report.view import points

    lines = [msg("staff.final_heading", lang),
             msg("staff.raw", lang, raw=points(final.raw), max=points(final.max_score))]
    for row in rows:
        change = f"= {points(row.points)}" if row.kind == "set" else f"{row.points:+g}"
        lines.append(msg("staff.adjustment", lang, exercise=visible(row.exercise, keep=""), change=change,
                         reason=visible(row.reason, keep=""), by=visible(row.by, keep=""), at=row.at[:16]))
    if final.status == "no_time":
        lines.append(msg("staff.no_time", lang))
    elif final.status == "on_time":
        lines.append(msg("staff.on_time", lang, submitted=final.submitted_at, deadline=final.deadline))
    elif final.status in ("late", "past_cap"):
        lines.append(msg("staff.late" if final.status == "late" else "staff.past_cap", lang,
                         submitted=final.submitted_at, deadline=final.deadline, units=final.units_late,
                         unit=msg(f"staff.unit_{final.unit}", lang), penalty=points(final.late_penalty)))
    if final.naive_time:
        lines.append(msg("staff.naive_time", lang))
    lines.append(msg("staff.total", lang, total=points(final.total), max=points(final.max_score)))
    return lines
