"""A class: ``grade class`` (``class_run``; on Dask: ``cluster``, ``cluster_worker``), an
LMS's download (``lms_download``, ``lms_layouts``), the gradebook (``gradebook``,
``stored_reports``), feedback files (``feedback``), the staff's features (``staff``,
``late_policy``, ``adjustments``, ``staff_cli``, ``times``), ``grade export``,
``grade report`` (``class_report``, ``class_page``), ``grade similarity`` and the
progress bar. May import the wings below grading and grading itself."""
