"""The gradebook's writes: an attempt is kept whole or not at all, however its recording ends."""

from __future__ import annotations

import sqlite3

import pytest

from grader.classroom.gradebook import Gradebook, PreparedAttempt


def attempt(checks) -> PreparedAttempt:
    return PreparedAttempt(score=1.0, max_score=2.0, isolation="none", seconds=0.5, result='{"x": 1}',
                           checks=checks, diagnoses=[("rnn_step", "wrong_order")])


def test_an_attempt_that_fails_among_its_check_rows_leaves_nothing(tmp_path):
    with Gradebook(tmp_path / "g.sqlite") as book:
        run = book.start_run("class", "course")
        good = ("rnn_step", "shape", 1, 1.0, 1.0, 0)
        with pytest.raises(sqlite3.Error):
            # the third row has a column too few: the INSERT fails after the attempt and two checks
            book.record_prepared(run, "alice", "h", attempt([good, good, good[:-1]]))
        assert book.db.execute("SELECT COUNT(*) FROM attempts").fetchone() == (0,)
        assert book.db.execute("SELECT COUNT(*) FROM checks").fetchone() == (0,)
        assert not book.db.in_transaction
        book.record_prepared(run, "alice", "h", attempt([good, good]))   # the next one is kept
    with Gradebook(tmp_path / "g.sqlite") as book:     # as another process sees it
        assert book.db.execute("SELECT COUNT(*) FROM attempts").fetchone() == (1,)
        assert book.db.execute("SELECT COUNT(*) FROM checks").fetchone() == (2,)
        assert book.db.execute("SELECT COUNT(*) FROM diagnoses").fetchone() == (1,)
        assert book.has_content("alice", "h")


def test_extensions_are_replaced_whole_or_not_at_all(tmp_path):
    with Gradebook(tmp_path / "g.sqlite") as book:
        book.set_extensions({"alice": "2026-01-01T00:00:00+00:00"})
        with pytest.raises(sqlite3.Error):
            book.set_extensions({"bob": None})      # NOT NULL: the DELETE before it is undone too
        assert book.extensions() == {"alice": "2026-01-01T00:00:00+00:00"}
