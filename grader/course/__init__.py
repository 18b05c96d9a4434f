"""A course folder, loaded: its YAML (``loader``, ``yaml_lines``, kept between runs by
``cache``), the checks it declares (``declared_checks``, ``declared_gradient``), its own
Python (``code``, ``modules``), the secret hidden inputs come from (``secret``), the course's
runtime (``runtime``: the reference and the known mistakes) or, in a student kit, the
kit's records answering in their place (``kit_records``), and the notebook the kit holds
(``notebook``). May import: ``grader.base``, ``grader.checks``, ``grader.quiz``, ``grader.sandbox``.
"""
