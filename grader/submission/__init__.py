"""What a student handed in, loaded without trusting it: a folder, a ``.py``, a notebook
(``notebook``) or a ``.zip`` (``safezip``), the forms of one table (``forms``), into a private
copy (``load``); the quiz's ``answers.yaml``; the packed form that travels to a cluster
(``packed``); notes for the student (``notes``). It knows nothing of a course. May import:
``grader.base``, ``grader.report``.
"""
