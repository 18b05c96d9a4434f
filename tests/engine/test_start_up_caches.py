"""What `grade check` keeps between runs to start faster: the course's parsed YAML, the messages
(grader/course/cache.py) and the compiled seccomp filter (grader/sandbox/seccomp_filter.py). Kept as
plain JSON, the owner's alone, and never trusted when what is read back is malformed."""

from __future__ import annotations

import datetime
import json
import stat
from pathlib import Path

import pytest
from conftest import ROOT

import grader.sandbox.seccomp_filter as seccomp
from grader.course.loader import bundled_course_root, load_course, load_yaml
from grader.course.cache import LineDict


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("GRADER_CACHE_DIR", str(folder))
    return folder


def same(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return getattr(a, "line", None) == getattr(b, "line", None) and list(a) == list(b) \
            and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def test_a_kept_parse_is_the_parse_with_its_lines_and_types(cache, tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text("a: 1\nb:\n  - 2.0\n  - true\n  - null\n  - {c: 'x', 3: [yes]}\n1.5: -0.0\n", encoding="utf-8")
    first = load_yaml(path)
    kept = list(cache.glob("yaml-*.json"))
    assert len(kept) == 1
    second = load_yaml(path)                      # read back from the cache
    assert same(first, second) and isinstance(second, LineDict) and second.line == 1
    assert second["b"][3].line == 6 and type(second["b"][0]) is float and second["b"][1] is True
    assert stat.S_IMODE(kept[0].stat().st_mode) == 0o600 and stat.S_IMODE(cache.stat().st_mode) == 0o700


def test_a_forged_or_broken_kept_parse_is_parsed_again(cache, tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text("answer: 42\n", encoding="utf-8")
    load_yaml(path)
    (kept,) = cache.glob("yaml-*.json")
    for forged in (json.dumps(["d", 1, ["answer"]]), json.dumps(["p", "os.system"]), "{not json",
                   json.dumps(["d", -1, ["answer"], [0]]), json.dumps(["d", 1, [["k"]], [0]])):
        kept.write_text(forged, encoding="utf-8")
        assert load_yaml(path) == {"answer": 42}, forged
    kept.write_text(json.dumps(["d", 1, ["answer"], [7]]), encoding="utf-8")
    assert load_yaml(path) == {"answer": 7}    # well formed: the cache is the grader user's own folder


def test_what_json_cannot_hold_is_never_kept(cache, tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text("when: 2026-12-05\n", encoding="utf-8")
    assert load_yaml(path) == {"when": datetime.date(2026, 12, 5)}
    assert list(cache.glob("yaml-*.json")) == []
    assert load_yaml(path) == {"when": datetime.date(2026, 12, 5)}


def test_the_bundled_course_loads_alike_from_the_cache(cache):
    first = load_course(bundled_course_root())
    second = load_course(bundled_course_root())
    assert len(list(cache.glob("yaml-*.json"))) > 10
    assert [e.id for e in first.exercises.values()] == [e.id for e in second.exercises.values()]
    assert [[m.id for m in e.mistakes] for e in first.exercises.values()] == \
        [[m.id for m in e.mistakes] for e in second.exercises.values()]
    assert same(load_yaml(ROOT / "solutions" / "reference" / "answers.yaml"),
                load_yaml(ROOT / "solutions" / "reference" / "answers.yaml"))


def test_the_seccomp_filter_is_compiled_once_and_kept(cache):
    try:
        compiled = seccomp._compile()
    except seccomp.SeccompUnavailable:
        pytest.skip("no libseccomp here")
    seccomp._compiled.cache_clear()
    try:
        assert seccomp.program() == compiled
        (kept,) = cache.glob("seccomp-*.json")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
        seccomp._compiled.cache_clear()
        assert seccomp.program() == compiled                         # read back
        for forged in ({"bpf": "00" * 7, "keyctl": 250}, {"bpf": "", "keyctl": 250},
                       {"bpf": "00" * 8 * 5000, "keyctl": 250}, {"bpf": "zz", "keyctl": 250},
                       {"bpf": "00" * 8, "keyctl": "250"}, ["x"]):
            kept.write_text(json.dumps(forged), encoding="utf-8")
            seccomp._compiled.cache_clear()
            assert seccomp.program() == compiled, forged              # compiled again, kept again
            assert json.loads(kept.read_text(encoding="utf-8"))["bpf"] == compiled.hex()
    finally:
        seccomp._compiled.cache_clear()


def test_the_kept_filters_key_follows_the_libseccomp_the_binding_loads():
    """The kept filter's key names the library by path, size and time: the one the binding loads
    must be among the files it looks at (it lists the loader's folders, not all of /usr/lib)."""
    try:
        seccomp._compile()
    except seccomp.SeccompUnavailable:
        pytest.skip("no libseccomp here")
    with open("/proc/self/maps", encoding="utf-8") as fh:
        loaded = {line.split()[-1] for line in fh if "libseccomp.so" in line}
    listed = {str(Path(p).resolve()) for p in seccomp._libseccomp_files()}
    assert loaded and {str(Path(p).resolve()) for p in loaded} <= listed, (loaded, listed)


def test_messages_are_kept_by_content_and_a_broken_kept_file_is_read_again(cache, tmp_path):
    from grader.base.i18n import _read

    folder = tmp_path / "locales"
    (folder / "en").mkdir(parents=True)
    (folder / "en" / "a.yaml").write_text('greet: "hello {name}"\n', encoding="utf-8")
    assert _read(folder, "en") == {"greet": "hello {name}"}
    (kept,) = cache.glob("messages-*.json")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    kept.write_text(json.dumps({"greet": "from the kept file"}), encoding="utf-8")
    assert _read(folder, "en") == {"greet": "from the kept file"}        # read back, not parsed
    for broken in ("{not json", json.dumps(["greet"])):
        kept.write_text(broken, encoding="utf-8")
        assert _read(folder, "en") == {"greet": "hello {name}"}, broken
    (folder / "en" / "a.yaml").write_text('greet: "bonjour {name}"\n', encoding="utf-8")
    assert _read(folder, "en") == {"greet": "bonjour {name}"}              # a changed file: its own key


def test_a_run_that_finds_everything_kept_never_imports_yaml(cache):
    import subprocess
    import sys

    script = ("import sys; from grader.course.loader import bundled_course_root, load_course; "
              "course = load_course(bundled_course_root()); "
              "[course.messages.table(lang) for lang in ('en', 'zh')]; print('yaml' in sys.modules)")
    env = {"GRADER_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=env)
            for _ in range(2)]
    assert [r.stdout.strip() for r in runs] == ["True", "False"], [r.stderr[-800:] for r in runs]


ANSWERS = [   # (the file, whether its parse is kept)
    ('q1: b\nq2: "h_t = tanh(W x + b)"\nq3: [1, 2.5, true, null]\n', True),
    ('1: one\n2.5: two\nnested: {a: [x, {b: 1e-3}]}\n', True),   # keys YAML reads as numbers stay numbers
    ('when: 2026-12-06\n', False),                                 # a date: not plain data, never kept
    ('q1: "\\h_{t-1}"\n', False),                                 # a broken file: its message, never kept
    ('- a list\n- not a mapping\n', True),                         # parsed (and kept); then refused
    ('', True),
]


@pytest.mark.parametrize("text, kept", ANSWERS)
def test_a_students_answers_read_back_from_the_cache_as_they_parse(cache, tmp_path, text, kept):
    from grader.course.cache import cached_parse
    from grader.submission.answers import read_answers_yaml

    path = tmp_path / "answers.yaml"
    path.write_text(text, encoding="utf-8")
    parsed = read_answers_yaml(path)
    first, again = read_answers_yaml(path, cached_parse), read_answers_yaml(path, cached_parse)
    assert first == parsed and again == parsed
    assert [type(k) for k in again[0]] == [type(k) for k in parsed[0]]
    assert len(list(cache.glob("answers-*.json"))) == kept


def test_a_check_that_finds_the_answers_kept_never_imports_yaml(cache, tmp_path):
    import subprocess
    import sys

    from conftest import copy_reference

    folder = copy_reference(tmp_path / "student")
    script = ("import sys; from pathlib import Path; from grader.course.cache import cached_parse; "
              "from grader.submission.answers import read_answers_yaml; "
              f"read_answers_yaml(Path({str(folder / 'answers.yaml')!r}), cached_parse); "
              "print('yaml' in sys.modules)")
    env = {"GRADER_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=env)
            for _ in range(2)]
    assert [r.stdout.strip() for r in runs] == ["True", "False"], [r.stderr[-800:] for r in runs]
