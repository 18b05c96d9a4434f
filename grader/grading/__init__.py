"""Grading one submission: the engine that sequences the stages (``engine``), the calls
planned before any student (``plan``), what of a submission is graded (``graded_work``,
``grade_path``), the smallest failing input (``counterexample``, ``tier_cache``), known
mistakes named by behaviour (``diagnose``), stand-ins (``stand_ins``), the submission's
error messages (``worker_errors``) and ``grade validate`` (``validate``).
May import every wing below it: base, report, submission, checks, quiz, sandbox, course."""
