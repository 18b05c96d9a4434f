"""The errors a command ends with, and its exit codes (CONTRACT section 5).

``grade`` (grader/cli.py ``main``) reports :class:`BadInput`, :class:`SubmissionError` and
:class:`CourseError` (and their subclasses) as one line on stderr with exit code 2; any other
exception, :class:`InternalError` among them, as one line with exit code 3. This module
imports nothing of the grader: every module may raise these without importing the CLI.
"""

from __future__ import annotations

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class BadInput(Exception):
    """Reported as one line on stderr with exit code 2."""


class SubmissionError(Exception):
    """Bad input: the CLI prints str(exc) as ONE line and exits 2. Name the file and the problem."""


class CourseError(Exception):
    """Malformed course content; the message names the file and line."""


class InternalError(Exception):
    """A check itself broke: a grader bug, reported with exit code 3."""
