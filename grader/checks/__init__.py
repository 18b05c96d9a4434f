"""What a course's check code is written against: ``@check``, ``Context``, ``Case``, ``Fail``,
comparison with tolerances (``grader.checks.compare``) and inputs as choices
(``grader.checks.choices``), plus how a call that returned no value is worded.

Nothing of the transport: a check asks ``ctx.student`` for a call and gets a value or a
:class:`~grader.checks.outcomes.StudentError`, whatever runs the student's code.
May import: ``grader.base``.

A course imports ``from grader.checks import check, Context, Case, Fail`` (docs/authoring.md).
"""

from grader.checks.api import (Case, Context, Fail, RecordedCall, Registry, check, course_frame,  # noqa: F401
                               describe_case, mark_shared, quiet_numpy, raise_mismatch, registering,
                               result_name)
