"""The student kit: ``grade release`` (``release``), the student wheel (``student_wheel``,
``requirement_markers``), the precomputed grading data (``data``), the pytest plugin
(``pytest_plugin``), ``grade check --watch`` (``watch``) and Gradescope's autograder zip
(``gradescope_bundle``); ``templates/`` holds the files they write.
May import the wings below grading and grading itself."""
