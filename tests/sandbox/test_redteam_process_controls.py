"""Red team, issue 31 item 1: process controls on a process that outlives the submission.

The sandbox's pid 1 (the zygote, grader/sandbox/worker/zygote.py) forks every child of a worker and runs
with the children's uid; without bubblewrap, in the "landlock" mode, the child even has the
grader's uid. The kernel lets a process change many settings of another process of its uid, and
a forked child inherits them: one student lowered pid 1's hard address-space limit with prlimit(2)
and every later student of that worker failed with MemoryError. Here each student's rnn_step.py
first tries, at import, every such control on the zygote (and, without bubblewrap, on the grading
process: this test's own process): prlimit of every limit, setpriority (PRIO_PROCESS, PRIO_PGRP,
PRIO_USER), sched_setaffinity, sched_setscheduler, sched_setparam, sched_setattr, ioprio_set (of a
process, a group, a user), migrate_pages, move_pages, the same calls as raw system calls with a
target hidden under a non-zero high half, and every /proc/<pid> file its uid might write.

Then a correct submission (the reference) is graded by the same worker, as in `grade class`: its
child must run with exactly the settings a child had before the attack, and it gets full marks at
the usual speed. Each refused control must be refused with EPERM (an ESRCH or a success means the
call reached the kernel). A student's controls on its own process (named 0, as os.nice,
resource.setrlimit and os.sched_setaffinity(0, ...) name it) keep working.

The attacks run under bubblewrap and in the fallback modes: "landlock+user" (this machine's
fallback as root), "user" (no Landlock) and "landlock" (Landlock without a uid of its own, which
a grader that is not root gets; here the child even stays root, so only the system-call filter
stands between it and the zygote and the grader). They failed before the filter allowed these
calls on the calling process only (grader/sandbox/seccomp_filter.py OWN_PROCESS_ONLY) and before the
zygote replaced itself when its own settings moved (Zygote.settings_changed).
"""

from __future__ import annotations

import json
import os
import platform
import resource
import time
import uuid
from pathlib import Path

import pytest

from conftest import copy_reference
from grader.sandbox import isolation as sandbox
from grader.course.loader import bundled_course_root, load_course
from grader.grading.engine import Grader
from grader.submission.load import load_submission

MODES = ("bubblewrap", "landlock+user", "user", "landlock")
ROOT_USER = os.geteuid() == 0

# Raw system-call numbers, for the calls Python has no function for (and the high-half trick).
SYSCALLS = {
    "x86_64": {"setpriority": 141, "prlimit64": 302, "sched_setaffinity": 203, "sched_setscheduler": 144,
               "sched_setparam": 142, "sched_setattr": 314, "ioprio_set": 251, "ioprio_get": 252,
               "migrate_pages": 256, "move_pages": 279},
    "aarch64": {"setpriority": 140, "prlimit64": 261, "sched_setaffinity": 122, "sched_setscheduler": 119,
                "sched_setparam": 118, "sched_setattr": 274, "ioprio_set": 30, "ioprio_get": 31,
                "migrate_pages": 238, "move_pages": 239},
}.get(platform.machine())


def _mode_unavailable(mode: str) -> str:
    if mode == "bubblewrap":
        return "" if not sandbox.sandbox_unavailable() else "bubblewrap cannot run here"
    if not ROOT_USER:
        return "the fallback modes are simulated as root"
    if mode in ("landlock+user", "landlock") and not sandbox.landlock_available():
        return "no Landlock in this kernel"
    return ""


@pytest.fixture(params=MODES)
def one_worker(request, monkeypatch):
    """One grader (one warm worker) for a whole 'class' in the given isolation mode."""
    mode = request.param
    reason = _mode_unavailable(mode)
    if reason:
        pytest.skip(reason)
    if mode != "bubblewrap":
        monkeypatch.setattr(sandbox, "sandbox_unavailable", lambda: "bubblewrap made unavailable")
    if mode == "user":
        # As tests/sandbox/test_redteam_fallback_review.py does: a Python other uids cannot read
        # (a pyenv under /root) still serves the children, which are forks of the zygote and
        # import nothing the zygote has not (the attacks here import only what it loaded).
        monkeypatch.setattr(sandbox, "landlock_available", lambda: 0)
        monkeypatch.setattr(sandbox, "another_uid_can_run_python", lambda: True)
    if mode == "landlock":
        # What a grader that is not root gets: Landlock, no uid of its own (here: root's, so the
        # child even keeps root's capabilities and only the filter refuses these calls).
        real = sandbox.fallback_isolation

        def landlock_only(*args, **kwargs):
            isolation = real(*args, **kwargs)
            isolation.name, isolation.own_uid, isolation.read_search = "landlock", False, False
            return isolation

        monkeypatch.setattr(sandbox, "fallback_isolation", landlock_only)
    course = load_course(bundled_course_root())
    for exercise in course.exercises.values():
        exercise.timeout = 5.0
    with Grader(course, isolation="sandbox", time_limit=120, counterexamples=False) as grader:
        assert grader.worker.isolation.name == mode, grader.worker.isolation
        grader.mode = mode
        yield grader


# ---------------------------------------------------------------- student side

HELPERS = '''
import ctypes as _ct, errno as _errno, json as _json, os as _os, resource as _res
_libc = _ct.CDLL(None, use_errno=True)
_libc.syscall.restype = _ct.c_long
_NR = __SYSCALLS__
def _raw(name, *args):
    if _libc.syscall(_NR[name], *args) < 0:
        _e = _ct.get_errno()
        raise OSError(_e, _os.strerror(_e))
    return "done"
def _try(name, f):
    try:
        f()
        print("CONTROL", name, "WORKED")
    except OSError as exc:
        print("CONTROL", name, "REFUSED" if exc.errno == _errno.EPERM else "ERRNO-" + str(exc.errno))
    except Exception as exc:
        print("CONTROL", name, "ERROR-" + type(exc).__name__)
def _limits(pid, r):
    try:
        return _res.prlimit(pid, r)                       # reading another's limits stays allowed
    except OSError:                                       # (the kernel's: not of another uid)
        return _res.getrlimit(r)
def _mask(cpus):
    return _ct.c_ulong(sum(1 << c for c in cpus))
def _ioprio(pid):
    return _libc.syscall(_NR["ioprio_get"], 1, pid) if _NR else None
def _settings():
    """Everything of this process a parent could have handed down to it."""
    out = {"nice": _os.getpriority(_os.PRIO_PROCESS, 0), "policy": _os.sched_getscheduler(0),
           "param": _os.sched_getparam(0).sched_priority, "affinity": sorted(_os.sched_getaffinity(0)),
           "ioprio": _ioprio(0), "timerslack": _libc.prctl(30, 0, 0, 0, 0),
           "limits": {n: _res.getrlimit(getattr(_res, n)) for n in sorted(dir(_res)) if n.startswith("RLIMIT_")}}
    for name in ("oom_score_adj", "coredump_filter"):
        with open("/proc/self/" + name) as fh:
            out[name] = fh.read().strip()
    return out
'''

REPORT = HELPERS + 'print("SETTINGS " + _json.dumps(_settings()) + " END")\n'

# Values that would hurt every later child of the zygote (each is lower than a child's own limits).
HARMFUL_LIMITS = {"RLIMIT_AS": 256 << 20, "RLIMIT_DATA": 256 << 20, "RLIMIT_STACK": 1 << 20, "RLIMIT_FSIZE": 1 << 16,
                  "RLIMIT_NOFILE": 16, "RLIMIT_CPU": 3, "RLIMIT_MEMLOCK": 0, "RLIMIT_MSGQUEUE": 0,
                  "RLIMIT_SIGPENDING": 8, "RLIMIT_LOCKS": 0, "RLIMIT_RSS": 1 << 20, "RLIMIT_RTPRIO": 0,
                  "RLIMIT_RTTIME": 0, "RLIMIT_NICE": 0, "RLIMIT_CORE": 0}

ATTACK = HELPERS + '''
_zygote = _os.getppid()
_targets = [("zygote", _zygote, True)] + [("grader", pid, False) for pid in __GRADER__]
_UNUSED_UID = 0x29FFFFF0     # no process has it: PRIO_USER on it changes nothing, yet must be refused
_HARM = __HARM__
for _who, _pid, _harm in _targets:
    # Lower every limit (the zygote) or set it to what it is (the grader: nothing changes if it works).
    for _name in sorted(n for n in dir(_res) if n.startswith("RLIMIT_")):
        _r = getattr(_res, _name)
        _soft, _hard = _limits(_pid, _r)
        if _harm and _name in _HARM:
            _v = _HARM[_name] if _hard == _res.RLIM_INFINITY else min(_hard, _HARM[_name])
            _new = (_v, _v)
        else:
            _new = (_soft, _hard)
        _try(f"prlimit-{_who}-{_name}", lambda: _res.prlimit(_pid, _r, _new))
    _nice = 19 if _harm else _os.getpriority(_os.PRIO_PROCESS, _pid)
    _try(f"setpriority-{_who}", lambda: _os.setpriority(_os.PRIO_PROCESS, _pid, _nice))
    _try(f"setpriority-pgrp-{_who}", lambda: _os.setpriority(_os.PRIO_PGRP, _os.getpgid(_pid), _nice))
    _aff = {min(_os.sched_getaffinity(_pid))} if _harm else _os.sched_getaffinity(_pid)
    _try(f"sched_setaffinity-{_who}", lambda: _os.sched_setaffinity(_pid, _aff))
    _pol = (_os.SCHED_IDLE, _os.sched_param(0)) if _harm else (_os.sched_getscheduler(_pid), _os.sched_getparam(_pid))
    _try(f"sched_setscheduler-{_who}", lambda: _os.sched_setscheduler(_pid, *_pol))
    _try(f"sched_setparam-{_who}", lambda: _os.sched_setparam(_pid, _os.sched_getparam(_pid)))
    if _NR:
        _attr = (_ct.c_uint32 * 14)(56, 5 if _harm else _os.sched_getscheduler(_pid))   # size, SCHED_IDLE
        _try(f"sched_setattr-{_who}", lambda: _raw("sched_setattr", _pid, _ct.byref(_attr), 0))
        _io = (3 << 13) if _harm else _ioprio(_pid)        # IOPRIO_CLASS_IDLE
        _try(f"ioprio_set-{_who}", lambda: _raw("ioprio_set", 1, _pid, _io))
        _try(f"ioprio_set-pgrp-{_who}", lambda: _raw("ioprio_set", 2, _os.getpgid(_pid), _io))
        _nodes = _ct.c_ulong(1)
        _try(f"migrate_pages-{_who}", lambda: _raw("migrate_pages", _pid, 64, _ct.byref(_nodes), _ct.byref(_nodes)))
        _try(f"move_pages-{_who}", lambda: _raw("move_pages", _pid, 0, None, None, None, 0))
        # The kernel reads these pids as 32 bits: a non-zero high half must not let them through.
        _high = (1 << 32) | _pid
        _try(f"raw-setpriority-high-{_who}", lambda: _raw("setpriority", 0, _ct.c_long(_high), _nice))
        _nofile = (_ct.c_uint64 * 2)(*((16, 16) if _harm else _limits(_pid, _res.RLIMIT_NOFILE)))
        _try(f"raw-prlimit-high-{_who}", lambda: _raw("prlimit64", _ct.c_long(_high), 7, _nofile, None))
        _try(f"raw-setaffinity-high-{_who}", lambda: _raw("sched_setaffinity", _ct.c_long(_high), 8,
                                                        _ct.byref(_mask(_aff))))
# Whole users: every process of the uid (under bubblewrap that includes pid 1; not tried where the
# child is root, where it would reach every process of the machine should the filter let it through).
if __USER_SELF__:
    _try("setpriority-user-self", lambda: _os.setpriority(_os.PRIO_USER, 0, 19))
_try("setpriority-user-other", lambda: _os.setpriority(_os.PRIO_USER, _UNUSED_UID, 19))
if _NR:
    if __USER_SELF__:
        _try("ioprio_set-user-self", lambda: _raw("ioprio_set", 3, 0, 3 << 13))
    _try("ioprio_set-user-other", lambda: _raw("ioprio_set", 3, _UNUSED_UID, 3 << 13))
# The student's own process, named 0: what ordinary code does, and must keep doing.
_try("own-nice", lambda: _os.nice(1))
_try("own-setpriority", lambda: _os.setpriority(_os.PRIO_PROCESS, 0, 2))
_try("own-setrlimit", lambda: _res.setrlimit(_res.RLIMIT_NOFILE, (128, _res.getrlimit(_res.RLIMIT_NOFILE)[1])))
_try("own-prlimit", lambda: _res.prlimit(0, _res.RLIMIT_CORE, (0, 0)))
_try("own-affinity", lambda: _os.sched_setaffinity(0, _os.sched_getaffinity(0)))
_try("own-scheduler", lambda: _os.sched_setscheduler(0, _os.SCHED_BATCH, _os.sched_param(0)))
_try("own-param", lambda: _os.sched_setparam(0, _os.sched_param(0)))
if _NR:
    _try("own-ioprio", lambda: _raw("ioprio_set", 1, 0, (2 << 13) | 7))   # best effort, lowest level
_try("own-read-limits-by-pid", lambda: _res.prlimit(_os.getpid(), _res.RLIMIT_AS))
'''

PROC_FILES = {"oom_score_adj": "1000", "oom_adj": "15", "coredump_filter": "0x7f", "autogroup": "19",
              "timerslack_ns": "100000000", "clear_refs": "5", "sched": "0", "comm": "pwned", "loginuid": "4242",
              "attr/current": "x", "attr/exec": "x", "attr/fscreate": "x", "attr/keycreate": "x",
              "attr/sockcreate": "x", "projid_map": "0 0 1", "gid_map": "0 0 1",
              "timens_offsets": "monotonic 100 0", "uid_map": "0 0 1", "setgroups": "deny",
              "task/{pid}/comm": "pwned", "task/{pid}/oom_score_adj": "1000", "mem": "x", "environ": "x"}

PROC_ATTACK = HELPERS + '''
_files = __FILES__
for _who, _pid in [("zygote", _os.getppid())] + [("grader", pid) for pid in __GRADER__]:
    for _name, _value in _files.items():
        _path = "/proc/%d/%s" % (_pid, _name.format(pid=_pid))
        try:
            _fd = _os.open(_path, _os.O_WRONLY)
            try:
                _os.write(_fd, _value.encode())
            finally:
                _os.close(_fd)
            print("PROC", _who, _name, "WROTE")
        except OSError as exc:
            print("PROC", _who, _name, "REFUSED-" + _errno.errorcode.get(exc.errno, str(exc.errno)))
    # Every file of that process it may open for writing (opened, nothing written) is one tried above
    _tried = {n.replace("task/{pid}/", "") for n in _files}
    for _dir, _subdirs, _names in _os.walk("/proc/%d" % _pid):
        _subdirs[:] = [d for d in _subdirs if d not in ("net", "fd", "fdinfo", "map_files", "ns", "cwd", "root")]
        for _n in _names:
            _p = _os.path.join(_dir, _n)
            _rel = _p.split("/", 3)[-1]
            _rel = _rel.split("/", 2)[-1] if _rel.startswith("task/") else _rel
            try:
                _os.close(_os.open(_p, _os.O_WRONLY | _os.O_NONBLOCK))
            except OSError:
                continue
            if _rel not in _tried:
                print("UNTRIED", _who, _rel)
'''


def _source(template: str, grader: Grader, **extra) -> str:
    bwrap = grader.mode == "bubblewrap"
    values = {"__SYSCALLS__": repr(SYSCALLS), "__GRADER__": repr([] if bwrap else [os.getpid()]),
              "__USER_SELF__": repr(grader.mode != "landlock"), "__HARM__": repr(HARMFUL_LIMITS),
              "__FILES__": repr(PROC_FILES), **extra}
    for key, value in values.items():
        template = template.replace(key, value)
    return template


def _student(tmp_path: Path, prelude: str) -> Path:
    """The reference whose rnn_step.py first runs ``prelude`` at import."""
    folder = copy_reference(tmp_path / f"student-{uuid.uuid4().hex[:6]}")
    path = folder / "rnn_step.py"
    path.write_text(prelude + "\n" + path.read_text())
    return folder


def _grade(grader: Grader, folder: Path, tmp_path: Path, only=()):
    start = time.perf_counter()
    result = grader.grade(load_submission(folder, tmp_path / f"work-{uuid.uuid4().hex[:6]}"), only)
    return result, time.perf_counter() - start


def _output(result) -> str:
    return "".join(next(e for e in result.exercises if e.id == "step").output)


def _child_settings(grader: Grader, tmp_path: Path) -> dict:
    result, _ = _grade(grader, _student(tmp_path, _source(REPORT, grader)), tmp_path, ["step"])
    out = _output(result)
    assert "SETTINGS " in out, out
    return json.loads(out.split("SETTINGS ", 1)[1].split(" END", 1)[0])


def _full_marks_time(grader: Grader, tmp_path: Path) -> float:
    result, elapsed = _grade(grader, copy_reference(tmp_path / f"ref-{uuid.uuid4().hex[:6]}"), tmp_path)
    assert result.score == result.max_score, [(e.id, e.score) for e in result.exercises if e.score != e.max_score]
    return elapsed


def _own_settings() -> dict:
    """This process's settings: without bubblewrap it is the grading process a child might reach."""
    return {"nice": os.getpriority(os.PRIO_PROCESS, 0), "policy": os.sched_getscheduler(0),
            "affinity": sorted(os.sched_getaffinity(0)),
            "limits": {n: resource.getrlimit(getattr(resource, n)) for n in dir(resource) if n.startswith("RLIMIT_")},
            "oom_score_adj": Path("/proc/self/oom_score_adj").read_text()}


def _baseline(grader: Grader, tmp_path: Path) -> tuple[dict, float]:
    _full_marks_time(grader, tmp_path)           # warm: the worker starts, modules compile
    before = _child_settings(grader, tmp_path)
    usual = min(_full_marks_time(grader, tmp_path) for _ in range(2))
    return before, usual


def _assert_unaffected(grader: Grader, tmp_path: Path, before: dict, usual: float, grader_before: dict):
    assert _own_settings() == grader_before, "the grading process was changed"
    after = _child_settings(grader, tmp_path)
    assert after == before, {k: (before[k], after[k]) for k in before if before[k] != after.get(k)}
    # The first submission after an attack may pay for a new worker (bubblewrap's start, numpy's
    # import); the ones after it run at the usual speed (a loose bound: the machine is shared; the
    # settings compared above are what would make them slow).
    _full_marks_time(grader, tmp_path)
    elapsed = min(_full_marks_time(grader, tmp_path) for _ in range(2))
    assert elapsed < 3 * usual + 1.0, (elapsed, usual)


# ---------------------------------------------------------------- the tests

def test_no_student_changes_another_process_limits_priority_affinity_or_scheduling(one_worker, tmp_path):
    grader = one_worker
    grader_before = _own_settings()
    before, usual = _baseline(grader, tmp_path)
    attacker, _ = _grade(grader, _student(tmp_path, _source(ATTACK, grader)), tmp_path, ["step"])
    out = _output(attacker)
    verdicts = dict(line.split()[1:3] for line in out.splitlines() if line.startswith("CONTROL "))
    own = {k: v for k, v in verdicts.items() if k.startswith("own-")}
    others = {k: v for k, v in verdicts.items() if not k.startswith("own-")}
    expected = 16 + (13 if SYSCALLS else 5)   # per target: every limit, and the calls above
    assert len(others) >= expected, out
    assert set(others.values()) == {"REFUSED"}, {k: v for k, v in others.items() if v != "REFUSED"}
    # the saboteur keeps its marks, and its controls on itself worked
    step = next(e for e in attacker.exercises if e.id == "step")
    assert step.score == step.max_score, [c.message for c in step.checks if not c.passed]
    assert own and set(own.values()) == {"WORKED"}, own
    _assert_unaffected(grader, tmp_path, before, usual, grader_before)


def test_no_proc_file_of_the_zygote_or_the_grader_reaches_a_later_student(one_worker, tmp_path):
    """/proc/<pid>/* of the zygote (and the grader): under bubblewrap, with the grader root, pid 1's
    files belong to the sandbox uid even though it is not dumpable (root is not mapped in the
    sandbox's user namespace, so the kernel's fallback owner is the very uid the children run as):
    its oom_score_adj can be raised and its coredump_filter and autogroup nice written, and a child
    inherits the first two. The zygote then replaces itself before its next fork. Without
    bubblewrap nothing is written (Landlock, or a uid that owns none of them)."""
    grader = one_worker
    grader_before = _own_settings()
    before, usual = _baseline(grader, tmp_path)
    restarts = grader.worker.restarts
    attacker, _ = _grade(grader, _student(tmp_path, _source(PROC_ATTACK, grader)), tmp_path, ["step"])
    out = _output(attacker)
    wrote = [line for line in out.splitlines() if line.startswith("PROC ") and line.endswith(" WROTE")]
    assert "UNTRIED" not in out, out
    assert out.count("PROC ") == len(PROC_FILES) * (1 if grader.mode == "bubblewrap" else 2), out
    if grader.mode != "bubblewrap":
        assert not wrote, out
    else:
        assert not [w for w in wrote if " zygote " not in w], out
        _assert_unaffected(grader, tmp_path, before, usual, grader_before)
        assert not wrote or grader.worker.restarts > restarts, "the zygote forked on with settings changed"
        return
    _assert_unaffected(grader, tmp_path, before, usual, grader_before)


def test_a_students_own_settings_do_not_reach_the_next_student(one_worker, tmp_path):
    """Controls a student may use on itself (nice, a lower limit, one CPU, SCHED_IDLE) stay with its
    own child: the next student's child is forked from the untouched zygote."""
    grader = one_worker
    before, usual = _baseline(grader, tmp_path)
    own = _source(HELPERS + '''
_os.nice(19)
_res.setrlimit(_res.RLIMIT_AS, (512 << 20, 512 << 20))
_os.sched_setaffinity(0, {min(_os.sched_getaffinity(0))})
_os.sched_setscheduler(0, _os.SCHED_IDLE, _os.sched_param(0))
print("SETTINGS " + _json.dumps(_settings()) + " END")
''', grader)
    result, _ = _grade(grader, _student(tmp_path, own), tmp_path, ["step"])
    out = _output(result)
    mine = json.loads(out.split("SETTINGS ", 1)[1].split(" END", 1)[0])
    assert (mine["nice"], mine["policy"], mine["limits"]["RLIMIT_AS"]) == (19, os.SCHED_IDLE, [512 << 20, 512 << 20])
    assert result.exercises[0].score == result.exercises[0].max_score
    _assert_unaffected(grader, tmp_path, before, usual, _own_settings())
