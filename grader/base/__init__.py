"""The foundation every wing may use: the errors a command ends with and their exit codes
(``errors``), messages in the student's language (``i18n``, ``locales/``), the cache folder
(``cache_folder``), digests of code (``code_digest``) and the staff's small CSV files
(``csv_rows``). May import: nothing of the grader."""
