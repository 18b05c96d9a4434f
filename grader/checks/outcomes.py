"""What a call into the student's code, or a trusted call on a student's arguments, ends with:
a value (:class:`CallResult`), no value (:class:`StudentError`, with the worker's error as
plain data), or a trusted call stopped at a limit (:class:`Overrun`).

These are the types a check sees through ``ctx.call`` and ``ctx.expected``; the sandbox's client
(grader/sandbox/client.py) and the trusted helper (grader/sandbox/trusted_calls.py) build them,
so a check depends on what a call returns, not on how it travelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class StudentError(Exception):
    """A call into student code did not return a value."""

    def __init__(self, error: dict):
        super().__init__(error.get("kind", "error"))
        self.error = error

    @property
    def kind(self) -> str:
        return self.error.get("kind", "error")


@dataclass
class CallResult:
    value: object
    type_name: str = ""
    args_after: list = field(default_factory=list)
    kwargs_after: dict = field(default_factory=dict)
    output: str = ""
    elapsed: float = 0.0
    aliases: list = field(default_factory=list)   # [where in the result, which argument it is]


def with_arguments(result: "CallResult", args, kwargs) -> "CallResult":
    """The arguments as they are after the call: the ones sent, except those the call changed."""
    changed, kw_changed = result.args_after, result.kwargs_after
    result.args_after = [changed.get(str(i), arg) for i, arg in enumerate(args)]
    result.kwargs_after = {k: kw_changed.get(k, v) for k, v in kwargs.items()}
    return result


class Overrun(Exception):
    """A call stopped at a limit: ``kind`` "time" (``limit`` seconds), "memory" or "reply"
    (``limit`` bytes), or "died" (the helper died another way: ``limit`` says how)."""

    def __init__(self, kind: str, limit):
        super().__init__(f"{kind} limit ({limit})")
        self.kind, self.limit = kind, limit

    def params(self) -> dict:
        """The limit as the student's message shows it (seconds, MiB, or how it died)."""
        if self.kind == "time":
            return {"limit": f"{self.limit:g}"}
        if self.kind in ("memory", "reply"):
            return {"limit": f"{self.limit / (1 << 20):g}"}
        return {"how": str(self.limit)}
