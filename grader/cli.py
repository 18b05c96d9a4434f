"""The ``grade`` command (CONTRACT section 5).

Exit codes: 0 every check passed / the command did its job; 1 graded, some
check failed; 2 bad input or usage (one line on stderr); 3 internal error.

Why one file of this size: it is the whole command line in one place, one click command per
subcommand with its options and help, each handing its work to the module that does it, so
the options a user reads together are written together.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from grader.base.errors import EXIT_FAILED, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, BadInput, CourseError, SubmissionError
from grader.base.i18n import LANGUAGES, default_language
from grader.report import FORMATS, render, write_atomically
from grader.report.escaping import visible
from grader.submission.forms import is_zip


def common_options(fn):
    options = [
        click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
                     help="Report format."),
        click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="Write the report to FILE instead of standard output."),
        click.option("--lang", type=click.Choice(LANGUAGES), default=None,
                     help="Language of the report (default: zh for a Chinese locale, else en)."),
        click.option("--only", multiple=True, metavar="ID", help="Grade only this exercise (repeatable)."),
        click.option("--course", "course_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                     help="A course folder with exercises/ and solutions/ (default: the bundled course)."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def course_root(course_dir: Path | None) -> Path:
    from grader.course.bundled import bundled_course_root

    if course_dir is not None and not course_dir.is_dir():
        raise BadInput(f"no such course folder: {course_dir}")
    return course_dir if course_dir is not None else bundled_course_root()


def open_course(course_dir: Path | None):
    from grader.course.loader import load_course

    return load_course(course_root(course_dir))


def bundled_messages():
    """The bundled course's catalogue, or None (the package's) where it cannot be loaded."""
    try:
        return open_course(None).messages
    except CourseError:
        return None


def check_output(output: Path | None) -> None:
    """Refuse an --output that cannot be written before any grading, not after it."""
    if output is None:
        return
    if output.is_dir():
        raise BadInput(f"cannot write {output}: it is a folder; name a file")
    parent = output.parent if str(output.parent) else Path(".")
    if not parent.is_dir():
        raise BadInput(f"cannot write {output}: no such folder {parent}")
    if not os.access(parent, os.W_OK | os.X_OK) or (output.exists() and not os.access(output, os.W_OK)):
        raise BadInput(f"cannot write {output}: permission denied")


def emit(content: str, output: Path | None) -> None:
    if output is None:
        click.echo(content, nl=False)
        return
    try:
        write_atomically(output, content)
    except OSError as exc:
        raise BadInput(f"cannot write {output}: {exc.strerror or exc}") from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rnn-grader", prog_name="grade")
def cli():
    """Grade NumPy exercises on recurrent neural networks."""


@cli.command()
@click.argument("path", required=False, default=".", type=click.Path(path_type=Path))
@common_options
@click.option("--no-sandbox", is_flag=True, help="Run student code as a plain process, without bubblewrap.")
@click.option("--counterexamples/--no-counterexamples", default=True, show_default=True,
              help="Search the smallest failing input for failing visible checks.")
@click.option("--verbose", is_flag=True,
              help="Show every check of every exercise (default: an exercise not started is one line, "
                   "unanswered quiz questions one line); other formats always show every check.")
@click.option("--watch", is_flag=True,
              help="Keep watching the folder: regrade the exercises whose files change on every save (Ctrl-C stops).")
@click.option("--watch-interval", type=click.FloatRange(0.01, 60), default=0.5, hidden=True,
              help="Seconds between two looks at the folder's files (tests use a short one).")
def check(path, fmt, output, lang, only, course_dir, no_sandbox, counterexamples, verbose=False, watch=False,
          watch_interval=0.5):
    """Grade one submission: a folder, .py, .ipynb or .zip (default: the current folder)."""
    lang = lang or default_language()
    check_output(output)
    if not no_sandbox:
        from grader.sandbox.launch import start_spare

        # the sandboxed worker starts now, while this process imports the grader and loads the
        # course; its hello is bubblewrap's probe (grader/sandbox/launch.py)
        start_spare(hidden=[course_root(course_dir)])
    from grader.grading.engine import Grader
    from grader.grading.grade_path import grade_path
    from grader.classroom.progress import make_progress
    from grader.sandbox.isolation import closed_files, students_read_by_permissions

    course = open_course(course_dir)
    course.select(only)  # unknown ids are bad input before any work

    def make_grader():
        # what the hidden checks' calls show is for a gradebook: no report of this command shows it;
        # the student's answers.yaml, graded again on every run of theirs, is parsed once
        return Grader(course, isolation="none" if no_sandbox else "auto", counterexamples=counterexamples,
                      instructor_diagnosis=False, keep_answers=True)

    def warn(isolation):
        if not isolation.confined and not no_sandbox:
            click.echo(f"grade: warning: not sandboxed ({isolation.reason}); "
                       "student code runs as a plain process", err=True)
        elif not isolation.sandboxed and not no_sandbox:
            click.echo(f"grade: warning: no bubblewrap ({isolation.reason}); "
                       f"student code is confined by {isolation.name} instead", err=True)

    if watch:
        if fmt != "text" or output is not None:
            raise BadInput("--watch shows the text report on the terminal: no --format or --output with it")
        if not path.is_dir():
            raise BadInput(f"--watch needs a submission folder: {path} is not one")
        import signal

        from grader.kit.watch import watch as watch_folder

        def stop(*_):
            raise KeyboardInterrupt

        signal.signal(signal.SIGTERM, stop)   # a terminated watch closes its sandbox as Ctrl-C does

        with closed_files(students_read_by_permissions("none" if no_sandbox else "auto")), make_grader() as grader:
            warn(grader.worker.isolation)
            try:
                watch_folder(path, course, grader, only, lang, interval=watch_interval, verbose=verbose)
            except KeyboardInterrupt:
                click.echo("grade: stopped watching", err=True)
        sys.exit(EXIT_OK)

    # on a terminal, the progress shows which exercise runs now; in the "user" mode every file
    # of the run (the report, caches, temporary files) is closed to others as it is made
    with closed_files(students_read_by_permissions("none" if no_sandbox else "auto")):
        result = grade_path(path, make_grader, only, on_start=warn, progress=make_progress)
        color = fmt == "text" and output is None and sys.stdout.isatty()
        emit(render(result, fmt, lang, color=color, verbose=verbose, messages=course.messages), output)
    _QUICK_EXIT.append(True)   # the grader and its worker are closed: nothing is left to wait for
    sys.exit(EXIT_OK if result.all_passed else EXIT_FAILED)


def default_gradebook(directory: Path) -> Path:
    directory = directory.resolve()
    return directory.parent / f"{download_name(directory)}.gradebook.sqlite"


def download_name(path: Path) -> str:
    """DIR's name, or a downloaded zip's name without .zip (its gradebook and feedback go beside it)."""
    return path.stem if path.is_file() and is_zip(path) else path.name


@cli.command(name="class")
@click.argument("directory", type=click.Path(path_type=Path))
@common_options
@click.option("--jobs", type=int, default=None, help="Grading processes (default: the number of CPUs).")
@click.option("--gradebook", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="SQLite gradebook (default: DIR.gradebook.sqlite beside DIR).")
@click.option("--force", is_flag=True, help="Regrade every submission, changed or not.")
@click.option("--no-sandbox", is_flag=True, help="Grade without bubblewrap (refused otherwise when it is missing).")
@click.option("--feedback", type=click.Choice(["markdown", "html", "none"]), default="markdown", show_default=True,
              help="Write one feedback file per student beside the gradebook.")
@click.option("--counterexamples/--no-counterexamples", default=True, show_default=True,
              help="Search the smallest failing input for failing visible checks "
                   "(shared by students who behave alike).")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="Grade on the Dask cluster of this scheduler (tcp://host:8786) instead of local processes.")
@click.option("--layout", default="auto", show_default=True, metavar="LAYOUT",
              help="How the download is laid out: auto, canvas, moodle, gradescope, classroom, nbgrader, "
                   "folders, or regex:PATTERN with the named groups student, file and optional time.")
@click.option("--dry-run", is_flag=True, help="Show how the files were grouped by student; grade nothing.")
@click.option("--deadline", metavar="ISO8601", default=None,
              help="The deadline, with its UTC offset (2026-12-10T23:59+08:00); kept in the gradebook.")
@click.option("--late", "late_policy", metavar="POLICY", default=None,
              help="The late policy: none, '10%/day, max 3 days' or '2%/hour, max 48 hours' (a begun day or "
                   "hour counts whole; past the cap the score is 0); kept in the gradebook.")
@click.option("--submitted-at", "submitted_at", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="CSV with the columns student,time: hand-in times (instead of each timestamp.txt).")
@click.option("--extensions", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="CSV with the columns student,deadline: a student's own deadline.")
@click.option("--only-student", "only_students", multiple=True, metavar="ID",
              help="Grade only this student again (repeatable), keeping the others' grades and history.")
@click.option("--roster", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="CSV with a column student: the ids entries are named by; an entry not on it is not graded.")
def class_(directory, fmt, output, lang, only, course_dir, jobs, gradebook, force, no_sandbox, feedback,
           counterexamples,
           scheduler, layout, dry_run, deadline=None, late_policy=None, submitted_at=None, extensions=None,
           only_students=(), roster=None):
    """Grade every student of DIRECTORY or a downloaded .zip (a plain folder per student, or the
    download of Canvas, Moodle, Gradescope, GitHub Classroom or nbgrader) into a gradebook."""
    from grader.base.temp_folders import temporary_folder

    from grader.classroom.lms_download import Download, describe
    from grader.classroom.lms_layouts import check_layout
    from grader.kit.install import require_instructor

    lang = lang or default_language()
    if not dry_run:     # grouping a download needs no course; grading it needs the instructor's
        require_instructor("class", course_dir)
    if not directory.is_dir() and not (directory.is_file() and is_zip(directory)):
        raise BadInput(f"no such folder or .zip: {directory}")
    layout = check_layout(layout)
    from grader.classroom.staff import StaffOptions
    staff = StaffOptions.read(deadline, late_policy, submitted_at, extensions, only_students, roster)
    course = None if dry_run else refuse_early(output, course_dir, only, no_sandbox, scheduler)
    with temporary_folder("download") as work:
        download = Download(directory, Path(work))
        grouping = download.group(layout)
        if dry_run:
            click.echo("\n".join(describe(grouping)))
            sys.exit(EXIT_OK)
        found = staff.apply_to(found_entries(download, grouping))
        class_run(directory, fmt, output, lang, only, course, jobs, gradebook, force, no_sandbox, feedback,
                  counterexamples, scheduler, found, staff=staff)


def refuse_early(output, course_dir, only, no_sandbox, scheduler):
    """What makes ``grade class`` bad input, said before the grouping is printed: the course."""
    from grader.sandbox.isolation import confinement_unavailable

    check_output(output)
    course = open_course(course_dir)
    course.select(only)
    if not no_sandbox and scheduler is None:     # on a cluster, each worker checks its own
        reason = confinement_unavailable()   # bubblewrap, else a uid of its own or Landlock
        if reason:
            raise BadInput(f"no sandbox ({reason}); refusing to grade a class without it "
                           "(pass --no-sandbox to grade anyway)")
    return course


def found_entries(download, grouping):
    """The grouped students as grade_class's entries: staged paths, notes, members, what the gradebook keeps."""
    from grader.classroom.class_run import Entry, FoundEntries, readable
    from grader.classroom.gradebook import SubmissionInfo
    from grader.classroom.lms_download import describe

    # names from a folder on disk may hold bytes that are not UTF-8: kept as visible escapes
    entries, skipped, seen = [], [(name, readable(why)) for name, why in grouping.unmatched], {}
    for index, student in enumerate(grouping.students):
        student.id, student.name = readable(student.id), readable(student.name)
        everyone = [(student.id, student.name), *((readable(i), readable(n)) for i, n in student.members)]
        taken = [sid for sid, _ in everyone if sid in seen]
        if taken:
            skipped.append((student.id, f"student {taken[0]!r} already has a submission ({seen[taken[0]]})"))
            continue
        for sid, _ in everyone:
            seen[sid] = student.submission or student.name or student.id
        path = download.stage(student, index, grouping.layout)
        time = student.time
        infos = [SubmissionInfo(sid, name, grouping.layout, time.at if time else None, time.source if time else None,
                                time.precision if time else None, time.late if time else None,
                                student.emails.get(sid, student.email if sid == student.id else ""),
                                student.submission, tuple(readable(f) for f in sorted(student.files)))
                 for sid, name in everyone]
        entries.append(Entry(student.id, path, notes=list(student.notes), members=[sid for sid, _ in everyone[1:]],
                             info=infos))
    # Printed before grading, once nothing can refuse the run any more (bad input stays one line). A plain
    # folder per student prints as it always did: its skipped entries after the run (--dry-run shows it).
    shown = describe(grouping) if grouping.layout != "folders" else []
    return FoundEntries(entries, skipped, private=[download.work], shown=shown)


def class_run(directory, fmt, output, lang, only, course, jobs, gradebook, force, no_sandbox, feedback,
              counterexamples, scheduler, found, staff=None):
    """``grade class`` once the download is grouped: grade ``found`` into the gradebook and report."""
    from grader.classroom.class_run import grade_class
    from grader.classroom.feedback import FeedbackWriter
    from grader.classroom.gradebook import Gradebook
    from grader.classroom.progress import make_progress
    from grader.sandbox.isolation import closed_files, students_read_by_permissions

    book_path = gradebook or default_gradebook(directory)
    writer = FeedbackWriter(book_path.parent / f"{download_name(directory.resolve())}.feedback", feedback, lang,
                            course.messages)
    isolation = "none" if no_sandbox else "sandbox"
    cluster = None
    if scheduler is not None:
        from grader.classroom.cluster import DaskPool
        cluster = DaskPool(scheduler, course, only=only, isolation=isolation, counterexamples=counterexamples,
                           feedback=writer)
    if found.shown:
        click.echo("\n".join(found.shown), err=True)
    # Where only file permissions keep student code out (the "user" mode), every file of the run is
    # closed to others as it is made: the gradebook and its WAL, the feedback, the report, caches.
    private = scheduler is None and students_read_by_permissions(isolation)
    with closed_files(private), Gradebook(book_path, private=private) as book, make_progress() as progress:
        if staff is not None:
            staff.store(book)      # the deadline, policy and extensions; checked before any grading
            found = staff.variants(course, found)
            force = force or bool(staff.only_students)
        try:
            run = grade_class(course, directory, book, jobs=jobs or os.cpu_count() or 1, only=only, force=force,
                              isolation=isolation, feedback=writer, cluster=cluster,
                              progress=progress, counterexamples=counterexamples, found=found)
        except KeyboardInterrupt:
            click.echo("grade: interrupted; finished attempts are in the gradebook, rerun to go on", err=True)
            sys.exit(130)
        if staff is not None:
            staff.refresh_feedback(book, writer, run)
            for line in staff.summary(book, run):
                click.echo(f"grade: {shown(line)}", err=True)
        emit(render_class(run, book, fmt, lang, book_path, course.messages), output)
    for name, why in run.skipped:
        click.echo(f"grade: skipped {shown(name)}: {shown(why)}", err=True)
    for name, why in run.failed:
        click.echo(f"grade: not graded {shown(name)}: {shown(why)}", err=True)
    # A student who could not be graded is a failure of the run, not a job done.
    sys.exit(EXIT_FAILED if run.failed else EXIT_OK)


def render_class(run, book, fmt: str, lang: str, book_path: Path, messages=None) -> str:
    """The class in ``fmt``: every student the run found, their latest attempt, rendered from the
    stored result (grader/report/class_formats.py) with ``messages`` (the course's catalogue)."""
    from grader.report import WRITERS
    from grader.report.class_formats import ClassView
    from grader.report.view import build

    wanted = {s for e in run.entries for s in (e.student, *e.members)}
    rows = [row for row in book.latest_scores() if row[0] in wanted]
    counts = {"count": len(rows), "graded": len(run.graded), "unchanged": len(run.unchanged),
              "skipped": len(run.skipped) + len(run.failed)}
    view = ClassView(lang=lang, rows=rows,
                     view_of=lambda student: build(book.latest(student).result, lang, messages),
                     counts=counts, gradebook=str(book_path), finals=final_scores(book, wanted), messages=messages)
    return WRITERS[fmt].many(view)


def final_scores(book, wanted: set) -> dict:
    """student -> final score (grader/classroom/late_policy.py) of those a late policy or an adjustment
    by hand applies to."""
    setting = book.late_setting()
    active = bool(setting and setting[1] and setting[1] != "none")
    adjusted = {row.student for row in book.adjustments()}
    if not active and not adjusted:
        return {}
    from grader.classroom.late_policy import finals

    result = finals(book, [a for a in book.latest_all() if a.student in wanted and (active or a.student in adjusted)])
    return {student: final.total for student, final in result.items()}


@cli.command()
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Write one row per student: student, total, max, then one column per exercise.")
@click.option("--gradebook", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The gradebook (default: the only *.gradebook.sqlite in the current folder).")
@click.option("--lms", type=click.Choice(["canvas", "moodle", "gradescope"]), default=None,
              help="Write the columns of this LMS's grade import, keyed by its ids, instead.")
@click.option("--assignment", metavar="TITLE", default="",
              help="--lms canvas: the assignment column, as Canvas's own export names it "
                   "(\"Homework 3 (12345)\"); default \"Autograded\", a new assignment.")
def export(csv_path, gradebook, lms, assignment):
    """Export the latest grade of every student as CSV (with --lms: that LMS's grade import)."""
    from grader.classroom.export import write_csv, write_lms_csv
    from grader.classroom.gradebook import Gradebook

    path = gradebook or find_gradebook()
    if not path.is_file():
        raise BadInput(f"no such gradebook: {path}")
    check_output(csv_path)
    with Gradebook(path) as book:
        if lms is None:
            rows = write_csv(book, csv_path)
        else:
            rows, foreign = write_lms_csv(book, csv_path, lms, assignment)
            if foreign:
                click.echo(f"grade: warning: {len(foreign)} students were not read from a {lms} download, so "
                           f"{lms} may not match their ids: {shown(', '.join(foreign[:10]))}"
                           + (", ..." if len(foreign) > 10 else ""), err=True)
    click.echo(f"wrote {rows} students to {csv_path}")


def find_gradebook() -> Path:
    found = sorted(Path.cwd().glob("*.gradebook.sqlite"))
    if len(found) != 1:
        raise BadInput("name the gradebook with --gradebook (found "
                       f"{len(found)} *.gradebook.sqlite files here)")
    return found[0]


@cli.command(name="list")
@click.option("--lang", type=click.Choice(LANGUAGES), default=None)
@click.option("--course", "course_dir", type=click.Path(file_okay=False, path_type=Path), default=None)
def list_exercises(lang, course_dir):
    """List the exercises and their points."""
    from grader.base.i18n import display_width, pad, text
    from grader.report.view import points
    from grader.base.i18n import render as msg

    lang = lang or default_language()
    course = open_course(course_dir)
    messages = course.messages
    exercises = list(course.exercises.values())

    def checks(of) -> str:
        return msg("list.checks_count", lang, messages, count=len(of), hidden=sum(1 for c in of if c.hidden))

    # every word in the language chosen; columns measured in terminal cells (a Chinese character is two)
    header = tuple(msg(f"list.{column}", lang, messages)
                   for column in ("exercise", "file", "points", "checks", "title"))
    rows = [(e.id, e.file, points(e.max_score), checks(e.checks), text(e.title, lang)) for e in exercises]
    rows.append((msg("list.total", lang, messages), "", points(course.max_score),
                 checks([c for e in exercises for c in e.checks]), ""))
    widths = [max(display_width(row[i]) for row in (header, *rows)) for i in range(4)]
    for row in (header, *rows):
        cells = [pad(row[0], widths[0]), pad(row[1], widths[1]), pad(row[2], widths[2], right=True),
                 pad(row[3], widths[3]), row[4]]
        click.echo("  ".join(cells).rstrip())


@cli.command()
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--course", "course_dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--grader-requirement", metavar="SPEC", default=None,
              help="Install the grader from this pip requirement (a URL, or a name and version on the "
                   "course's own index) instead of shipping the student wheel in OUT/wheels/.")
@click.option("--roster", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="CSV with a column student: one kit per student in OUT/<student>/, with their own variant "
                   "of each question that declares params.")
def release(out, course_dir, grader_requirement, roster=None):
    """Write the student kit to OUT: stubs, answers template, notebook, instructions, and the
    grader's student wheel (no solutions, mistakes or answer key) the kit installs."""
    from grader.kit.install import require_instructor
    from grader.kit.release import write_kit

    require_instructor("release", course_dir)
    course = open_course(course_dir)
    if roster is not None:
        from grader.course.secret import course_secret
        from grader.kit.release import write_kits
        from grader.quiz.variants import read_roster

        students = read_roster(roster)
        written = write_kits(course, out, students, course_secret(course), grader_requirement=grader_requirement)
        click.echo(f"wrote {len(written)} files to {out} ({len(students)} kits)")
        return
    written = write_kit(course, out, grader_requirement=grader_requirement)
    click.echo(f"wrote {len(written)} files to {out}")


@cli.command()
@click.option("--course", "course_dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--lang", type=click.Choice(LANGUAGES), default=None)
@click.option("--only", multiple=True, metavar="ID", help="Validate only this exercise (repeatable).")
def validate(course_dir, lang, only):
    """Self-check the course: references full marks, stubs zero, every mistake caught and named."""
    from grader.grading.validate import validate_course
    from grader.kit.install import require_instructor

    require_instructor("validate", course_dir)
    course = open_course(course_dir)
    course.select(only)
    report = validate_course(course, only=only, echo=click.echo)
    sys.exit(EXIT_OK if report.ok else EXIT_FAILED)


@cli.command(name="report")
@click.option("--gradebook", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The gradebook (default: the only *.gradebook.sqlite in the current folder).")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The HTML file to write (default: report.html beside the gradebook).")
@click.option("--lang", type=click.Choice(LANGUAGES), default=None,
              help="Language of the page (default: zh for a Chinese locale, else en).")
@click.option("--course", "course_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The course whose catalogues name the mistakes (default: the bundled course).")
def class_report(gradebook, output, lang, course_dir):
    """Write one static HTML page about the class: scores, exercises, checks, mistakes, runs."""
    from grader.classroom.class_page import render_html
    from grader.classroom.class_report import DEFAULT_NAME, collect
    from grader.classroom.gradebook import Gradebook
    from grader.base.i18n import render as msg

    lang = lang or default_language()
    path = gradebook or find_gradebook()
    if not path.is_file():
        raise BadInput(f"no such gradebook: {path}")
    if course_dir is not None:
        course = open_course(course_dir)
    else:
        try:
            course = open_course(None)
        except CourseError:
            course = None     # the page still works; mistakes show their ids without titles
    output = output or path.parent / DEFAULT_NAME
    import sqlite3
    try:
        with Gradebook(path) as book:
            stats = collect(book, lang, course)
    except sqlite3.DatabaseError as exc:
        raise BadInput(f"{path} is not a gradebook ({exc})") from None
    messages = course.messages if course is not None else None
    emit(render_html(stats, lang, messages), output)
    click.echo(msg("class_report.wrote", lang, messages, students=len(stats.students), path=str(output)))


@cli.command(name="gradescope-bundle")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--course", "course_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Grade with this course instead of the bundled one (it is packed into the zip).")
@click.option("--lang", type=click.Choice(LANGUAGES), default="en", show_default=True,
              help="Language of the feedback students see on Gradescope.")
def gradescope_bundle(out, course_dir, lang):
    """Write Gradescope's autograder zip: setup.sh, run_autograder and the grader's wheel."""
    from grader.kit.gradescope_bundle import build_bundle
    from grader.kit.install import require_instructor
    from grader.base.i18n import render as msg

    require_instructor("gradescope-bundle", course_dir)   # a student wheel has no hidden checks to ship
    if course_dir is not None:
        open_course(course_dir)          # a broken course is bad input now, not on Gradescope
    names = build_bundle(out, course_dir=course_dir, lang=lang)
    click.echo(msg("class_report.bundle_wrote", default_language(), path=str(out), files=len(names)))


@cli.command()
@click.argument("student", required=False)
@click.argument("exercise", required=False)
@click.option("--points", "points_", metavar="N", default=None, help="Points to add (+2) or take (-1.5).")
@click.option("--set", "set_to", type=float, default=None, help="Set the exercise's score to N.")
@click.option("--reason", default=None, help="Why (kept, and shown to the student).")
@click.option("--by", default=None, help="Who (default: the login name).")
@click.option("--list", "list_", is_flag=True, help="List every adjustment.")
@click.option("--gradebook", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The gradebook (default: the only *.gradebook.sqlite in the current folder).")
@click.option("--course", "course_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The course the class was graded with, whose messages the feedback file is written "
                   "again with (default: the bundled course).")
def adjust(student, exercise, points_, set_to, reason, by, list_, gradebook, course_dir):
    """Adjust a student's exercise score by hand (kept across regrades, shown wherever the score is)."""
    from grader.classroom.staff_cli import adjust_command

    path = gradebook or find_gradebook()
    if not path.is_file():
        raise BadInput(f"no such gradebook: {path}")
    messages = open_course(course_dir).messages if course_dir is not None else bundled_messages()
    for line in adjust_command(path, student, exercise, points_, set_to, reason, by, list_, messages):
        click.echo(shown(line) if "\t" not in line else "\t".join(shown(cell) for cell in line.split("\t")))


@cli.command()
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the pairs: student_a,student_b,file,similarity (most similar first).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write a page with the top pairs, their matching regions side by side.")
@click.option("--course", "course_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The course whose stubs are not counted (default: the bundled course).")
@click.option("--ignore", "ignore", type=click.Path(dir_okay=False, path_type=Path), multiple=True,
              help="A file of code the course published: not counted either (repeatable).")
@click.option("--threshold", type=float, default=0.5, show_default=True,
              help="Pairs at least this similar are printed and shown on the page.")
@click.option("--top", type=int, default=50, show_default=True, help="The most pairs the page shows.")
def similarity(directory, csv_path, html_path, course_dir, ignore, threshold, top):
    """Rank pairs of submissions by how alike their code is, file by file (it flags, never changes a mark).

    Needs the similarity extra (copydetect): pip install 'rnn-grader[similarity]'."""
    from grader.classroom.similarity import require_copydetect, run_similarity

    require_copydetect()      # without the extra: one line naming it, exit 2
    if not directory.is_dir():
        raise BadInput(f"no such folder: {directory}")
    for file in ignore:
        if not file.is_file():
            raise BadInput(f"--ignore: no such file: {file}")
    for out in (csv_path, html_path):
        check_output(out)
    if not 0 <= threshold <= 1:
        raise BadInput("--threshold must be between 0 and 1")
    course = open_course(course_dir)
    for line in run_similarity(directory, course, csv_path, html_path, ignore, threshold, max(1, top)):
        click.echo(shown(line))


def main(argv=None) -> int:
    try:
        cli.main(args=argv, prog_name="grade", standalone_mode=False)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0
    except click.exceptions.Abort:
        click.echo("grade: interrupted", err=True)
        return EXIT_USAGE
    except click.ClickException as exc:
        click.echo(f"grade: {single_line(exc.format_message())}", err=True)
        return EXIT_USAGE
    except (BadInput, SubmissionError, CourseError) as exc:
        click.echo(f"grade: {one_line(exc)}", err=True)
        return EXIT_USAGE
    except Exception as exc:  # noqa: BLE001 -- the last line of defence: exit 3, no traceback
        click.echo(f"grade: internal error: {type(exc).__name__}: {one_line(exc)}", err=True)
        return EXIT_INTERNAL
    return EXIT_OK


def one_line(exc: BaseException) -> str:
    return single_line(str(exc)) or type(exc).__name__


def single_line(text: str) -> str:
    return shown(" ".join(text.split()))


def shown(raw: str) -> str:
    """Names (students', files', zip entries') as terminal text: one line, every control
    character (ANSI and OSC sequences, newlines, bidi overrides) a visible escape."""
    return visible(raw, keep="")


_QUICK_EXIT: list[bool] = []   # set by a command with nothing left running once it has written its report


def entry_point():
    code = main()
    if _QUICK_EXIT:
        quick_exit(code)
    sys.exit(code)


def quick_exit(code: int) -> None:
    """End the process without the interpreter's teardown, which frees every module's objects one
    by one (numpy's included): 30 to 80 ms, as long as grading an exercise takes. What the run
    registered to do at exit (atexit) still runs, and the output is flushed; only a command that
    leaves no thread or child behind asks for it (`grade check`)."""
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):   # a closed pipe: exit as Python does when its flush at exit fails
            code = 120 if stream is sys.stdout and code == 0 else code
    os._exit(code)


if __name__ == "__main__":
    entry_point()
