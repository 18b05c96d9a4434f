"""The quiz: grading one answer and a whole quiz exercise (``grade``), equations checked for
meaning (``equation*``) and per-student variants of questions (``variants``).
May import: ``grader.base``, ``grader.report``."""
