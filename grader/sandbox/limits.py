"""What one child of the worker may use, and what the grader accepts back from it.

Apart from grader/sandbox/client.py so that the worker can start (grader/sandbox/launch.py) before
the grading process has imported numpy: the sandbox's cgroup is sized from these.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MEMORY = 2 << 30          # address-space limit of a child, bytes
# What a submission may send back. The bundled course's largest reply is 1.3 KiB and a whole
# reference submission's 100 KiB: a call may return 2 MiB (1500 times that), a submission
# 32 MiB (300 times), and a reply under 64 KiB (an import, an error, a scalar) always passes.
REPLY_BYTES = 2 << 20
SUBMISSION_REPLY_BYTES = 32 << 20
ALWAYS_ACCEPTED = 64 << 10


@dataclass
class Limits:
    """What one child of the worker may use; the wall clock per call comes from the course."""

    memory: int = DEFAULT_MEMORY          # bytes of address space per process
    cpu_seconds: int = 60                 # CPU time per child
    file_size: int = 16 << 20             # largest file (and captured output) a child may write
    open_files: int = 256
    processes: int = 64                   # per sandbox (cgroup) and per child (RLIMIT_NPROC)
    reply_bytes: int = REPLY_BYTES        # largest reply the grader accepts from one call
    submission_reply_bytes: int = SUBMISSION_REPLY_BYTES   # replies it accepts from one submission

    def reply_limit(self, received: int) -> int:
        """The largest next reply, for a submission that has sent ``received`` bytes so far."""
        return min(self.reply_bytes, max(self.submission_reply_bytes - received, ALWAYS_ACCEPTED))

    def refusal(self, size: int) -> dict:
        """The error for a reply of ``size`` bytes over reply_limit(): which budget it broke."""
        if size > self.reply_bytes:
            return {"kind": "too_large", "scope": "call", "size": size, "limit": self.reply_bytes}
        return {"kind": "too_large", "scope": "submission", "size": size, "limit": self.submission_reply_bytes}

    def as_request(self) -> dict:
        return {"memory": self.memory, "cpu": self.cpu_seconds, "fsize": self.file_size,
                "nofile": self.open_files, "nproc": self.processes}

    def cgroup(self) -> tuple[int, int]:
        """The sandbox's cgroup limits (processes, bytes): room for a child and the worker itself."""
        return self.processes * 2, self.memory + (512 << 20)
