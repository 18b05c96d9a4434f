"""The worker: the only process that ever runs student code.

It starts once, imports numpy, and then forks one child per *session* (one
exercise's view of a submission). The child imports the student's modules
and answers calls; the zygote relays frames between the trusted grader and
the child and enforces the per-call wall clock: a child that hangs is killed
with its whole process group, a child that dies is reported as a crash.
Either way the zygote survives for the next session.

Run as a script (``python -I zygote.py``). It imports only the standard
library, numpy and the ``wire`` module beside it, so the sandbox needs to
expose nothing else of the grader. Expected values never come here: requests
carry inputs only.

Requests from the grader (stdin) and the replies (the original stdout):
  {"op": "open", "root", "modules", "timeout", "limits"} -> {"ok", "imports", "output"}
  {"op": "call", "module", "func", "args", "kwargs", "timeout", "return_args"}
        -> {"ok": True, "value", "args_after", "output", "elapsed"} or {"ok": False, "error"}
  {"op": "getattr", "module", "name", "timeout"} -> like call
  {"op": "close"} -> {"ok": True};  {"op": "exit"} ends the worker.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

import numpy  # noqa: F401  -- imported once here so every child starts warm

# Run with -I, Python does not put this folder on the path; the child takes it off again.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wire  # noqa: E402

OUTPUT_KEEP = 4096          # bytes of a child's stdout/stderr kept per reply
SLACK = 0.5                 # seconds added to a call's timeout for the reply to arrive


class Session:
    """The zygote's handle on one forked child."""

    def __init__(self, pid, to_child, from_child, capture_fd):
        self.pid, self.to_child, self.from_child, self.capture_fd = pid, to_child, from_child, capture_fd
        self.status = None

    def kill(self):
        if self.status is None:
            for target in (lambda: os.killpg(self.pid, signal.SIGKILL),
                           lambda: os.kill(self.pid, signal.SIGKILL)):
                try:
                    target()
                except OSError:
                    pass
            self.reap()
        for fd in (self.to_child, self.from_child, self.capture_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        self.to_child = self.from_child = self.capture_fd = -1

    def reap(self):
        if self.status is None:
            try:
                _, status = os.waitpid(self.pid, 0)
            except ChildProcessError:
                status = 0
            self.status = status
        return self.status

    def death(self):
        """Describe how the child ended, for the student."""
        status = self.reap()
        error = {"kind": "crash", "output": read_capture(self.capture_fd)}
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            error["signal"] = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        elif os.WIFEXITED(status):
            error["exit_code"] = os.WEXITSTATUS(status)
        return error


def read_capture(fd):
    if fd < 0:
        return ""
    try:
        size = os.fstat(fd).st_size
        data = os.pread(fd, OUTPUT_KEEP, 0)
        os.ftruncate(fd, 0)
    except OSError:
        return ""
    text = data.decode("utf-8", "replace")
    return text + ("\n[... %d more bytes]" % (size - len(data)) if size > len(data) else "")


def sweep():
    """Kill every other process in the sandbox: daemons that escaped with setsid or a
    double fork are still in our PID namespace, and kill(-1) reaches all of them."""
    if os.getpid() > 16:   # only ever inside a fresh PID namespace, where we are pid 2
        return
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                break
        except ChildProcessError:
            break
    empty_tmp()


def empty_tmp():
    """Whatever an exercise wrote to the sandbox's /tmp is gone before the next one."""
    import shutil

    def unlock(function, path, _):
        try:
            os.chmod(os.path.dirname(path), 0o700)
            os.chmod(path, 0o700)
            function(path)
        except OSError:
            pass

    for name in os.listdir("/tmp"):
        path = os.path.join("/tmp", name)
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
                shutil.rmtree(path, onerror=unlock)
            else:
                os.unlink(path)
        except OSError:
            pass


class Zygote:
    def __init__(self, request_fd, reply_fd, sandboxed=False):
        self.request_fd, self.reply_fd = request_fd, reply_fd
        self.sandboxed = sandboxed
        self.session = None

    def serve(self):
        while True:
            try:
                request = wire.recv(self.request_fd)
            except (wire.Closed, wire.WireError):
                break
            op = request.get("op")
            if op == "exit":
                break
            if op == "open":
                self.open(request)
            elif op in ("call", "getattr", "batch"):
                self.relay(request)
            elif op == "close":
                self.close()
                wire.send(self.reply_fd, {"ok": True})
            else:
                wire.send(self.reply_fd, {"ok": False, "error": {"kind": "protocol", "message": f"unknown op {op!r}"}})
        self.close()

    def close(self):
        if self.session is not None:
            self.session.kill()
            self.session = None
        if self.sandboxed:
            sweep()


    def open(self, request):
        self.close()
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        # O_APPEND: after the capture is read and truncated, the next print lands at offset 0.
        capture_fd = os.open("/tmp", os.O_TMPFILE | os.O_RDWR | os.O_APPEND, 0o600)
        pid = os.fork()
        if pid == 0:  # the child: never returns
            keep = {to_child_r, from_child_w, capture_fd}
            for fd in (to_child_w, from_child_r, self.request_fd, self.reply_fd):
                if fd not in keep:
                    os.close(fd)
            try:
                child_main(to_child_r, from_child_w, capture_fd, request)
            finally:
                os._exit(70)
        os.close(to_child_r)
        os.close(from_child_w)
        self.session = Session(pid, to_child_w, from_child_r, capture_fd)
        self.forward(float(request.get("timeout", 10.0)))

    def relay(self, request):
        if self.session is None:
            wire.send(self.reply_fd, {"ok": False, "error": {"kind": "protocol", "message": "no open session"}})
            return
        try:
            wire.send(self.session.to_child, request)
        except OSError:
            pass  # the child is gone; forward() reports how
        # A batch is answered with one reply per call, each within the per-call wall clock;
        # after a timeout or a crash the session is gone and the grader stops reading.
        for _ in range(len(request.get("calls", ())) if request.get("op") == "batch" else 1):
            if self.session is None or not self.forward(float(request.get("timeout", 10.0))):
                break

    def forward(self, timeout):
        """Pass the child's next reply on, or report its timeout or death."""
        session = self.session
        deadline = time.monotonic() + timeout + SLACK
        try:
            frame = wire_recv_raw(session.from_child, deadline)
        except wire.Timeout:
            output = read_capture(session.capture_fd)
            session.kill()
            self.session = None
            wire.send(self.reply_fd, {"ok": False, "error": {"kind": "timeout", "seconds": timeout, "output": output}})
            return False
        except (wire.Closed, OSError):
            error = session.death()
        except wire.WireError as exc:  # a garbled reply: the child is not trusted to go on
            error = {"kind": "protocol", "message": str(exc), "output": read_capture(session.capture_fd)}
        else:
            _write_all(self.reply_fd, frame)
            return True
        session.kill()
        self.session = None
        wire.send(self.reply_fd, {"ok": False, "error": error})
        return False


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def wire_recv_raw(fd, deadline):
    """One whole frame as bytes, checked only for its size (the grader decodes)."""
    head = wire._read_exact(fd, 4, deadline)
    length = int.from_bytes(head, "big")
    if length > wire.MAX_HEADER:
        raise wire.WireError("reply header too large")
    header = wire._read_exact(fd, length, deadline)
    try:
        sizes = json.loads(header.decode("utf-8")).get("__blobs__", [])
        total = sum(int(n) for n in sizes)
    except Exception:
        raise wire.WireError("malformed reply header") from None
    if total > wire.MAX_FRAME:
        raise wire.WireError("reply too large")
    return head + header + wire._read_exact(fd, total, deadline)


# ---------------------------------------------------------------- the child

def child_main(request_fd, reply_fd, capture_fd, open_request):
    os.setsid()  # its own process group, so the zygote can kill all it starts
    apply_limits(open_request.get("limits") or {})
    redirect_output(capture_fd)
    harness = Harness(reply_fd, capture_fd)
    harness.open(open_request)
    while True:
        try:
            request = wire.recv(request_fd)
        except (wire.Closed, wire.WireError):
            os._exit(0)
        harness.handle(request)


def apply_limits(limits):
    """Resource limits of one child (and all it starts)."""
    import resource
    names = {"memory": resource.RLIMIT_AS, "cpu": resource.RLIMIT_CPU, "fsize": resource.RLIMIT_FSIZE,
             "nofile": resource.RLIMIT_NOFILE, "nproc": resource.RLIMIT_NPROC}
    for key, which in names.items():
        value = limits.get(key)
        if value:
            try:
                resource.setrlimit(which, (int(value), int(value)))
            except (ValueError, OSError):
                pass
    # Past the file-size limit a write fails with EFBIG instead of killing the process.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def flush_output():
    for stream in (sys.__stdout__, sys.__stderr__, sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 -- a student may have closed or replaced it
            pass


def redirect_output(capture_fd):
    flush_output()
    os.dup2(capture_fd, 1)
    os.dup2(capture_fd, 2)
    null = os.open(os.devnull, os.O_RDONLY)
    if null != 0:  # a student reading stdin gets EOF, not the grader's pipe
        os.dup2(null, 0)
        os.close(null)


class Harness:
    """Imports the student's modules and runs calls for the grader."""

    def __init__(self, reply_fd, capture_fd):
        self.reply_fd, self.capture_fd = reply_fd, capture_fd
        self.modules = {}
        self.last_call = None

    def reply(self, message):
        flush_output()
        message["output"] = read_capture(self.capture_fd)
        try:
            frame = wire.pack(message)
        except (wire.WireError, ValueError, TypeError, RecursionError, OverflowError) as exc:
            frame = wire.pack({"ok": False, "error": {"kind": "bad_return", "message": short(exc),
                                                      "output": message["output"]}})
        if len(frame) > wire.MAX_FRAME:
            frame = wire.pack({"ok": False, "error": {"kind": "bad_return", "message": "result too large"}})
        _write_all(self.reply_fd, frame)

    def open(self, request):
        import builtins
        import importlib

        root = request["root"]
        worker_dir = os.path.dirname(os.path.abspath(__file__))
        sys.path[:] = [root] + [p for p in sys.path if p and os.path.abspath(p) != worker_dir]
        # Our helper keeps running under a private name; a student file called wire.py is theirs.
        sys.modules["_grader_wire"] = sys.modules.pop("wire")
        os.chdir(root)
        # Notebook code may call these IPython helpers; they do nothing here.
        builtins.display = lambda *a, **k: None
        builtins.get_ipython = lambda: None
        sys.argv = ["submission"]
        imports = {}
        for name in request.get("modules", []):
            try:
                self.modules[name] = importlib.import_module(name)
                imports[name] = None
            except BaseException as exc:  # noqa: BLE001 -- student code may raise anything
                imports[name] = describe_exception(exc, root)
        self.reply({"ok": True, "imports": imports})

    def handle(self, request):
        if request.get("op") == "batch":
            for call in request.get("calls", ()):
                self.handle({**call, "op": "call", "module": request.get("module")})
            return
        op = request.get("op")
        module = self.modules.get(request.get("module"))
        if module is None:
            self.reply({"ok": False, "error": {"kind": "missing", "message": "module not imported"}})
            return
        name = request.get("func") or request.get("name")
        if op == "getattr":
            if not hasattr(module, name):
                self.reply({"ok": False, "error": {"kind": "missing", "name": name}})
            else:
                self.reply({"ok": True, "value": getattr(module, name)})
            return
        func = getattr(module, name, None)
        if func is None or not callable(func):
            self.reply({"ok": False, "error": {"kind": "missing", "name": name}})
            return
        args, kwargs = list(request.get("args", [])), dict(request.get("kwargs", {}))
        if request.get("reuse_args") and self.last_call is not None:
            args, kwargs = reuse(self.last_call, args, kwargs)
        self.last_call = (args, kwargs)
        watch = request.get("return_args")
        if watch:
            before = ([snapshot(a) for a in args], {k: snapshot(v) for k, v in kwargs.items()})
        start = time.perf_counter()
        try:
            value = func(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001
            self.reply({"ok": False, "error": describe_exception(exc, os.getcwd())})
            return
        elapsed = time.perf_counter() - start
        message = {"ok": True, "value": value, "elapsed": elapsed, "type": type_name(value),
                   "aliases": aliases(value, args, kwargs)}
        if watch:   # only the arguments the call changed travel back
            message["args_changed"] = {str(i): a for i, (a, b) in enumerate(zip(args, before[0])) if snapshot(a) != b}
            message["kwargs_changed"] = {k: v for k, v in kwargs.items() if snapshot(v) != before[1].get(k)}
        self.reply(message)


def snapshot(value, depth=0):
    """What an argument holds, to tell afterwards whether a call changed it."""
    if type(value) is numpy.ndarray:
        return ("nd", value.shape, value.dtype.str, value.tobytes())
    if depth < 4 and type(value) is dict:
        return ("dict", tuple((k, snapshot(v, depth + 1)) for k, v in value.items()))
    if depth < 4 and type(value) in (list, tuple):
        return (type(value).__name__, tuple(snapshot(v, depth + 1) for v in value))
    return ("other", repr(type(value)), value if type(value) in (int, float, str, bool, type(None)) else id(value))


def reuse(previous, args, kwargs):
    """The previous call's argument objects, refilled in place with the new values.

    A function that caches on id() or on shapes then sees the very same objects
    again with other numbers, and must still give the new answer."""
    old_args, old_kwargs = previous

    def refill(old, new):
        if (type(old) is numpy.ndarray and type(new) is numpy.ndarray and old.shape == new.shape
                and old.dtype == new.dtype and old.flags.writeable):
            numpy.copyto(old, new)
            return old
        if type(old) is dict and type(new) is dict and old.keys() == new.keys():
            for key in new:
                old[key] = refill(old[key], new[key])
            return old
        return new

    if len(old_args) == len(args):
        args = [refill(o, n) for o, n in zip(old_args, args)]
    kwargs = {k: refill(old_kwargs[k], v) if k in old_kwargs else v for k, v in kwargs.items()}
    return args, kwargs


def aliases(value, args, kwargs):
    """Which parts of the result are argument objects themselves (not copies)."""
    inputs = {}
    for i, arg in enumerate(args):
        inputs[id(arg)] = f"argument {i + 1}"
        if type(arg) is dict:
            for key, item in arg.items():
                inputs.setdefault(id(item), f"argument {i + 1}[{key!r}]")
    for key, arg in kwargs.items():
        inputs[id(arg)] = f"argument {key}"
    found = []
    parts = [("result", value)]
    if type(value) in (tuple, list):
        parts += [(f"result[{i}]", item) for i, item in enumerate(value[:8])]
    for where, part in parts:
        if id(part) in inputs and not isinstance(part, (int, float, str, bool, type(None))):
            found.append([where, inputs[id(part)]])
    return found


def type_name(value):
    cls = type(value)
    module = getattr(cls, "__module__", "") or ""
    return cls.__name__ if module == "builtins" else f"{module}.{cls.__name__}"


def short(obj, limit=300):
    try:
        text = str(obj)
    except BaseException:  # noqa: BLE001 -- a hostile __str__
        text = "<unprintable>"
    return text if len(text) <= limit else text[:limit] + "..."


def describe_exception(exc, root):
    """Plain data about an exception, pointing at the student's own lines."""
    kind = "exit" if isinstance(exc, SystemExit) else "exception"
    info = {"kind": kind, "type": type(exc).__name__, "message": short(exc)}
    if isinstance(exc, SyntaxError):
        info.update(kind="syntax", file=os.path.basename(exc.filename or ""), line=exc.lineno or 0,
                    column=exc.offset or 0, text=short((exc.text or "").rstrip(), 200), message=short(exc.msg))
        return info
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename.startswith(root + os.sep):
            frames.append([os.path.relpath(filename, root), tb.tb_lineno, tb.tb_frame.f_code.co_name])
        tb = tb.tb_next
    info["frames"] = frames[-5:]
    return info


def not_dumpable():
    """Other processes of the same user may not ptrace us or open /proc/<pid>/fd or mem."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)   # PR_SET_DUMPABLE = 4
    except (OSError, AttributeError):
        pass


def main():
    sandboxed = "--sandboxed" in sys.argv[1:]
    fds = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--fds=")]
    if fds:   # the grader's two pipes, passed as extra descriptors
        request_fd, reply_fd = (int(fd) for fd in fds[0].split(","))
    else:
        request_fd, reply_fd = 0, os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)   # stray prints (ours or a student's) go nowhere
    for fd in (0, 1):
        if fd not in (request_fd, reply_fd):
            os.dup2(null, fd)
    os.close(null)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grader's to handle
    not_dumpable()
    Zygote(request_fd, reply_fd, sandboxed).serve()


if __name__ == "__main__":
    main()
