"""The three digests that decide whether work is redone (issue 41): a class entry's content hash
(the gradebook regrades a student only when it changes), the course fingerprint (inside it) and
the code digest of a folder (the grader's, checked by Dask workers; the course's, naming the kept
drawn cases). Each takes in names and bytes; framed, no two different inputs give one stream."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import types
from pathlib import Path

import pytest

from grader.classroom import class_run as classroom

from grader.base import code_digest

from grader.grading import tier_cache


def tree(folder: Path, files: dict[str, bytes | str]) -> Path:
    """``folder`` holding exactly ``files`` (relative name -> content)."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    return folder


# ---------------------------------------------------------------- content_hash


def test_the_issue_collision_two_files_are_not_one_file_holding_both(tmp_path):
    two = tree(tmp_path / "two", {"a.py": "x", "b.py": "y"})
    one = tree(tmp_path / "one", {"a.py": "xb.py\0y"})
    assert classroom.content_hash(two, "course") != classroom.content_hash(one, "course")


def test_the_course_fingerprint_cannot_run_into_the_first_name(tmp_path):
    # fingerprint "course1" + ".py" and fingerprint "course" + "1.py" were the same stream.
    dot = tree(tmp_path / "dot", {".py": "x"})
    one = tree(tmp_path / "one", {"1.py": "x"})
    assert classroom.content_hash(dot, "course1") != classroom.content_hash(one, "course")


def test_a_single_file_entry_is_not_a_folder_holding_that_file(tmp_path):
    # `alice.py` is graded as one file holding every module; `alice/alice.py` as a folder whose
    # modules are missing: the same name and bytes, not the same submission.
    source = "def rnn_step(x, h, W, U, b):\n    return h\n"
    single = tmp_path / "single" / "alice.py"
    single.parent.mkdir()
    single.write_text(source)
    folder = tree(tmp_path / "folder" / "alice", {"alice.py": source})
    assert classroom.content_hash(single, "course") != classroom.content_hash(folder, "course")


def test_an_unreadable_file_is_not_a_file_holding_the_marker(tmp_path, monkeypatch):
    readable = tree(tmp_path / "readable", {"a.py": "<unreadable>"})
    locked = tree(tmp_path / "locked", {"a.py": "print(1)"})

    real_open = open

    def refusing_open(file, *args, **kwargs):
        if Path(file).parent == locked:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(classroom, "open", refusing_open, raising=False)
    assert classroom.content_hash(readable, "course") != classroom.content_hash(locked, "course")
    monkeypatch.undo()
    # and an unreadable file does not stop the hash: readable again, it hashes as its bytes
    assert classroom.content_hash(locked, "course") == classroom.content_hash(
        tree(tmp_path / "copy", {"a.py": "print(1)"}), "course")


def test_the_content_hash_is_stable_and_follows_names_bytes_and_course(tmp_path):
    entry = tree(tmp_path / "entry", {"rnn_step.py": "A = 1\n", "sub/answers.yaml": "q1: a\n"})
    base = classroom.content_hash(entry, "course")
    assert base == classroom.content_hash(entry, "course")
    assert len(base) == 64 and int(base, 16) >= 0
    assert classroom.content_hash(entry, "course2") != base
    same = tree(tmp_path / "same", {"rnn_step.py": "A = 1\n", "sub/answers.yaml": "q1: a\n"})
    assert classroom.content_hash(same, "course") == base          # the folder's own name is not part
    (entry / "rnn_step.py").write_text("A = 2\n")
    assert classroom.content_hash(entry, "course") != base
    (entry / "rnn_step.py").write_text("A = 1\n")
    (entry / "sub" / "answers.yaml").rename(entry / "sub" / "answer.yaml")
    assert classroom.content_hash(entry, "course") != base
    (entry / "sub" / "answer.yaml").rename(entry / "sub" / "answers.yaml")
    assert classroom.content_hash(entry, "course") == base
    (entry / "empty.py").write_bytes(b"")                            # an empty file still counts
    assert classroom.content_hash(entry, "course") != base


def test_an_empty_folder_and_an_empty_file_hash_apart(tmp_path):
    folder = tree(tmp_path / "empty", {})
    file = tmp_path / "empty.py"
    file.write_bytes(b"")
    assert classroom.content_hash(folder, "course") != classroom.content_hash(file, "course")


# ---------------------------------------------------------------- course_fingerprint


@pytest.fixture
def fake_course(tmp_path, monkeypatch):
    """A course folder of our own (the fingerprint reads its exercises/ and solutions/ and the
    grader's files); the secret's fingerprint fixed."""
    monkeypatch.setattr(classroom, "course_secret_fingerprint", lambda course: "secret")
    root = tmp_path / "course"
    (root / "solutions").mkdir(parents=True)
    (root / "exercises").mkdir()
    return types.SimpleNamespace(root=root)


def test_the_course_fingerprint_tells_two_files_from_one_holding_both(fake_course):
    exercises = fake_course.root / "exercises"
    tree(exercises, {"a.py": "x", "b.py": "y"})
    two = classroom.course_fingerprint(fake_course)
    # unframed, the path of b.py followed a.py's bytes straight away
    tree(exercises, {"a.py": b"x" + (exercises / "b.py").as_posix().encode() + b"y"})
    one = classroom.course_fingerprint(fake_course)
    assert two != one


def test_the_course_fingerprint_tells_the_secret_from_the_version(fake_course, monkeypatch):
    import grader

    tree(fake_course.root / "exercises", {"a.py": "x"})
    monkeypatch.setattr(grader, "__version__", "1.0")
    monkeypatch.setattr(classroom, "course_secret_fingerprint", lambda course: "0secret")
    first = classroom.course_fingerprint(fake_course)
    monkeypatch.setattr(grader, "__version__", "1.00")
    monkeypatch.setattr(classroom, "course_secret_fingerprint", lambda course: "secret")
    assert classroom.course_fingerprint(fake_course) != first


def test_the_course_fingerprint_is_stable_and_follows_the_course(fake_course):
    tree(fake_course.root / "exercises", {"step.yaml": "id: step\n", "checks/step.py": "X = 1\n"})
    base = classroom.course_fingerprint(fake_course)
    assert base == classroom.course_fingerprint(fake_course) and len(base) == 16
    (fake_course.root / "exercises" / "checks" / "step.py").write_text("X = 2\n")
    assert classroom.course_fingerprint(fake_course) != base
    (fake_course.root / "exercises" / "checks" / "step.py").write_text("X = 1\n")
    assert classroom.course_fingerprint(fake_course) == base
    (fake_course.root / "solutions" / "notes.txt").write_text("not code")   # only .py and .yaml count
    assert classroom.course_fingerprint(fake_course) == base


# ---------------------------------------------------------------- code_digest.add_files


def folder_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    code_digest.add_files(digest, folder)
    return digest.hexdigest()


def test_add_files_tells_two_files_from_one_holding_both(tmp_path):
    two = tree(tmp_path / "two", {"a.py": "x", "b.py": "y"})
    one = tree(tmp_path / "one", {"a.py": "xb.py\0y"})
    assert folder_digest(two) != folder_digest(one)


def test_add_files_tells_a_nested_file_from_bytes_naming_it(tmp_path):
    nested = tree(tmp_path / "nested", {"a.py": "x", "checks/b.py": "y"})
    one = tree(tmp_path / "one", {"a.py": "xchecks/b.py\0y"})
    assert folder_digest(nested) != folder_digest(one)


def test_the_course_digest_of_the_kept_drawn_cases_tells_them_apart(tmp_path):
    two = tree(tmp_path / "two" / "exercises", {"a.py": "x", "b.py": "y"}).parent
    one = tree(tmp_path / "one" / "exercises", {"a.py": "xb.py\0y"}).parent
    assert tier_cache.course_digest(two) != tier_cache.course_digest(one)


def test_add_files_is_stable_and_keeps_its_filters(tmp_path):
    folder = tree(tmp_path / "code", {"a.py": "x", "sub/b.yaml": "y"})
    base = folder_digest(folder)
    assert base == folder_digest(tree(tmp_path / "copy", {"a.py": "x", "sub/b.yaml": "y"}))
    (folder / "notes.txt").write_text("ignored")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "a.py").write_text("ignored")
    assert folder_digest(folder) == base
    skipped = hashlib.sha256()
    code_digest.add_files(skipped, folder, skip=("sub",))
    assert skipped.hexdigest() == folder_digest(tree(tmp_path / "only-a", {"a.py": "x"}))


def test_put_frames_each_part_by_its_length():
    joined, split = hashlib.sha256(), hashlib.sha256()
    code_digest.put(joined, b"ab")
    code_digest.put(split, b"a")
    code_digest.put(split, b"b")
    assert joined.hexdigest() != split.hexdigest()
    framed = hashlib.sha256()
    code_digest.put(framed, b"ab")
    assert framed.hexdigest() == hashlib.sha256(b"\0\0\0\0\0\0\0\x02ab").hexdigest()


# ---------------------------------------------------------------- an older gradebook


def test_an_older_gradebooks_hash_matches_no_entry_so_the_student_is_graded_again(tmp_path):
    """A gradebook written before the framing holds the old hashes: none is ever a new one,
    so `grade class` grades each student again once (classroom.grade_class asks
    Gradebook.has_content, which compares the student's latest hash)."""
    from grader.classroom.gradebook import Gradebook

    entry = tree(tmp_path / "alice", {"rnn_step.py": "A = 1\n"})
    old = hashlib.sha256(b"course")
    old.update(b"rnn_step.py\0" + b"A = 1\n")                      # the hash as it was computed before
    book = Gradebook(tmp_path / "book.sqlite")
    run_id = book.start_run(str(tmp_path), "course")
    with book.db:
        book.db.execute("INSERT INTO attempts (run_id, student, content, graded_at, score, max_score, isolation,"
                        " seconds) VALUES (?, 'alice', ?, 'then', 1, 1, 'sandbox', 0)", (run_id, old.hexdigest()))
    new = classroom.content_hash(entry, "course")
    assert new != old.hexdigest()
    assert not book.has_content("alice", new)
    assert book.has_content("alice", old.hexdigest())
    book.close()
    assert sqlite3.connect(tmp_path / "book.sqlite").execute("SELECT count(*) FROM attempts").fetchone() == (1,)
