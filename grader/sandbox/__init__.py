"""Where student code runs, and the trusted side's client of it: the client (``client``:
sessions, calls, replies bounded), how the worker is isolated (``isolation``: bubblewrap or
the best this machine has; ``cgroup``, ``shared_folders``, ``seccomp_filter``), whether
code is plain (``plain_code``), display packages a course allows, notebook cells' budgets
(``notebook_run``), course code run on a student's arguments in a bounded helper
(``trusted_calls``), and ``worker/``: the code that runs inside, which imports nothing of
the grader and speaks plain data only (``worker/wire.py``; never pickle).
May import: ``grader.base``, ``grader.checks`` (what a call returns)."""
