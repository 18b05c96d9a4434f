"""Every text a student or instructor sees exists in both languages, and speaks of the chapter.

(a) the message catalogues of the package and of the bundled course: the same keys in both
languages, file by file, no empty text, the same placeholders; (b) every course text (titles,
statements, hints, quiz questions, the known-mistake catalogue): an English and a Chinese text,
no Chinese quoted in the English one, a Chinese one that is not the English one again; (c) no
student-visible text calls the source chapters "the seed" (nor the exercise "the contract");
(d) ``grade list`` in a Chinese locale prints Chinese, and (e) the notes about what was handed in
are shown in the student's language.
"""

from __future__ import annotations

import os
import re
import string
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
import yaml
from nbformat.v4 import new_code_cell, new_notebook

from conftest import ROOT, STUBS
from grader.base.i18n import LANGUAGES, Message, catalogue
from grader.submission.load import load_submission

CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
CODE_SPAN = re.compile(r"`[^`\n]*`")            # `code` quotes what a student types: "对" is an answer
PROSE = re.compile(r"\b[A-Za-z]{2,}\s+[A-Za-z]{2,}\b")   # two words in a row: a sentence, not a formula
# "seed" for the chapters (the course's source texts); a random generator's seed is another word
SEED = re.compile(r"seed|种子", re.IGNORECASE)
TECHNICAL_SEED = re.compile(r"random seed|rng seed|np\.random\.seed|seed\s*=|随机种子", re.IGNORECASE)

LOCALE_FOLDERS = {"package": ROOT / "grader" / "base" / "locales", "course": ROOT / "exercises" / "locales"}


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def prose(text: str) -> str:
    return CODE_SPAN.sub("", text)


def is_formula(text: str) -> bool:
    """Pure formulas and code read the same in both languages: no two words in a row."""
    return PROSE.search(prose(text)) is None


def read_catalogue_files(folder: Path, lang: str) -> dict[str, dict]:
    return {path.name: yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            for path in sorted((folder / lang).glob("*.yaml"))}


# ---------------------------------------------------------------- (a) the message catalogues

@pytest.mark.parametrize("where", sorted(LOCALE_FOLDERS))
def test_every_message_key_is_in_both_languages_file_by_file(where):
    folder = LOCALE_FOLDERS[where]
    files = {lang: read_catalogue_files(folder, lang) for lang in LANGUAGES}
    assert set(files["en"]) == set(files["zh"]), f"{folder}: the languages have other files"
    assert files["en"], folder
    problems = []
    for name, en in files["en"].items():
        zh = files["zh"][name]
        for key in sorted(set(en) ^ set(zh)):
            problems.append(f"{name}: {key} is only in {'en' if key in en else 'zh'}")
        for key in sorted(set(en) & set(zh)):
            for lang, value in (("en", en[key]), ("zh", zh[key])):
                if not isinstance(value, str) or not value.strip():
                    problems.append(f"{name}: {key} has no {lang} text")
            if isinstance(en[key], str) and isinstance(zh[key], str):
                if placeholders(en[key]) != placeholders(zh[key]):
                    problems.append(f"{name}: {key}: placeholders {placeholders(en[key])} != {placeholders(zh[key])}")
                if CJK.search(prose(en[key])):
                    problems.append(f"{name}: {key}: the English text quotes Chinese: {en[key]!r}")
                if not is_formula(en[key]) and (zh[key] == en[key] or not CJK.search(zh[key])):
                    problems.append(f"{name}: {key}: the Chinese text is not Chinese: {zh[key]!r}")
    assert problems == []


def test_the_merged_catalogues_agree(course):
    en, zh = catalogue("en", course.messages), catalogue("zh", course.messages)
    assert set(en) == set(zh), set(en) ^ set(zh)
    assert [k for k in en if placeholders(en[k]) != placeholders(zh[k])] == []


# ---------------------------------------------------------------- (b) the course's texts

def course_texts(course):
    """(where, {en, zh}) of every text of the course a student or instructor reads."""
    yield "course.yaml title", course.info.title
    for exercise in course.exercises.values():
        yield f"{exercise.id} title", exercise.title
        yield f"{exercise.id} statement", exercise.statement
        for check in exercise.checks:
            yield f"{exercise.id}.{check.id} title", check.title
            if any(check.hint.values()):
                yield f"{exercise.id}.{check.id} hint", check.hint
            for key, value in (check.question or {}).items():   # any other text of a quiz question
                if isinstance(value, dict) and set(value) & set(LANGUAGES) and key not in ("question", "hint"):
                    yield f"{exercise.id}.{check.id} {key}", value
        for mistake in exercise.mistakes:
            yield f"{mistake.id} title", mistake.title
            yield f"{mistake.id} explanation", mistake.explanation
            if any(mistake.hint.values()):
                yield f"{mistake.id} hint", mistake.hint


def test_the_walk_sees_the_whole_course(course):
    texts = dict(course_texts(course))
    assert "quiz.step_equation title" in texts and "masking.mean_over_padding explanation" in texts
    assert len(texts) > 400


def test_every_course_text_is_in_both_languages(course):
    problems = []
    for where, value in course_texts(course):
        en, zh = value.get("en"), value.get("zh")
        if not (isinstance(en, str) and en.strip() and isinstance(zh, str) and zh.strip()):
            problems.append(f"{where}: needs an en and a zh text")
            continue
        if CJK.search(prose(en)):
            problems.append(f"{where}: the English text quotes Chinese: {CJK.findall(prose(en))[:8]}")
        if not is_formula(en):
            if zh.strip() == en.strip():
                problems.append(f"{where}: the Chinese text is the English one")
            elif not CJK.search(zh):
                problems.append(f"{where}: the Chinese text has no Chinese: {zh[:80]!r}")
    assert problems == []


def test_english_feedback_translates_the_chapter_it_quotes(course):
    explanation = course.exercises["masking"].mistakes
    pooled = next(m for m in explanation if m.id == "masking.mean_over_padding").explanation["en"]
    assert "exclude the padded positions" in pooled and "排除" not in pooled


# ---------------------------------------------------------------- (c) the chapter, never "the seed"

def student_visible_texts(course):
    from grader.course.notebook import build_notebook, quiz_template
    from grader.kit.release import instructions

    for where, value in course_texts(course):
        for lang in LANGUAGES:
            yield f"{where} ({lang})", value.get(lang, "")
    for lang in LANGUAGES:
        for key, value in catalogue(lang, course.messages).items():
            yield f"message {key} ({lang})", value
    for exercise in course.exercises.values():
        yield f"{exercise.id}: a check's name", " ".join(c.id for c in exercise.checks)
        yield f"{exercise.id}: a mistake's id", " ".join(m.id for m in exercise.mistakes)
    for path in sorted(STUBS.iterdir()):
        yield f"stub {path.name}", path.read_text(encoding="utf-8")
    yield "the kit's README", instructions(course, "pip install grader")
    lines, _ = quiz_template(course)
    yield "the kit's answers.yaml", "\n".join(lines)
    for number, cell in enumerate(build_notebook(course).cells, start=1):
        yield f"the kit's notebook, cell {number}", cell.source


def test_no_student_text_calls_the_chapter_a_seed(course):
    found = []
    for where, value in student_visible_texts(course):
        for match in SEED.finditer(TECHNICAL_SEED.sub("", value)):
            found.append(f"{where}: …{value[max(0, match.start() - 30):match.end() + 30]}…")
    assert found == []


def test_no_student_text_speaks_of_the_contract(course):
    """The course's specification is the instructors' word; students read the exercise's statement."""
    found = [f"{where}: {value[:120]!r}" for where, value in student_visible_texts(course)
             if re.search(r"\bcontract\b", value, re.IGNORECASE)]
    assert found == []


def test_the_chapter_wording_is_used_instead(course):
    stub = (STUBS / "rnn_step.py").read_text(encoding="utf-8")
    assert "chapter 14, section 3" in stub and "第十四篇第 3 节" in stub
    scalar = {m.id: m for m in course.exercises["scalar"].mistakes}
    assert "The chapter's run()" in scalar["scalar.ignores_parameters"].explanation["en"]
    assert "本章" in scalar["scalar.ignores_parameters"].explanation["zh"]


# ---------------------------------------------------------------- (d) `grade list` in a Chinese locale

def grade_list(lang_env: str, *args):
    env = {"PATH": "/usr/bin:/bin", "LANG": lang_env, "PYTHONPATH": str(ROOT),
           "GRADER_SECRET": os.environ["GRADER_SECRET"]}
    proc = subprocess.run([sys.executable, "-m", "grader", "list", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_grade_list_in_a_chinese_locale_is_chinese(course):
    out = grade_list("zh_CN.UTF-8")
    header = out.splitlines()[0]
    for word in ("练习", "文件", "分数", "检查", "标题"):
        assert word in header, header
    assert "合计" in out and "项隐藏" in out
    # No English word but the identifiers: exercise ids, file names, and what the Chinese titles keep
    # (RNN, BPTT, softmax...).
    allowed = set()
    for exercise in course.exercises.values():
        allowed |= set(re.findall(r"[A-Za-z]+", f"{exercise.id} {exercise.file} {exercise.title['zh']}"))
    english = sorted(set(re.findall(r"[A-Za-z]+", out)) - allowed)
    assert english == [], out
    for word in ("checks", "hidden", "total", "Exercise", "Points"):
        assert word not in out


def test_grade_list_in_an_english_locale_is_english(course):
    out = grade_list("en_US.UTF-8")
    header = out.splitlines()[0]
    assert header.split()[:3] == ["Exercise", "File", "Points"]
    assert "total" in out and "hidden" in out
    assert not CJK.search(out), out
    assert "练习" in grade_list("en_US.UTF-8", "--lang", "zh").splitlines()[0]


def test_grade_list_columns_line_up_in_chinese():
    out = grade_list("zh_CN.UTF-8")
    from grader.base.i18n import display_width

    rows = [line for line in out.splitlines() if line.strip()]
    # the points column ends at the same place on every row: CJK characters are two columns wide
    ends = {display_width(line[:m.end()]) for line in rows[1:] for m in [re.search(r"\d+(\.\d+)?(?=\s{2})", line)]
            if m}
    assert len(ends) == 1, out


# ---------------------------------------------------------------- (e) the notes on what was handed in

def non_utf8(text: str) -> bytes:
    return text.encode("latin-1")


@pytest.fixture
def noisy_folder(tmp_path):
    """A submission that is worth many notes: nested folders, odd file names, encodings, duplicates."""
    top = tmp_path / "alice" / "hw3"
    top.mkdir(parents=True)
    (top / "param_count.py").write_bytes(non_utf8("# caf\xe9\ndef count_rnn_params(*a, **k):\n    return 0\n"))
    (top / "bad name.py").write_text("x = 1\n", encoding="utf-8")
    (top / "huge.py").write_text("#" * (1024 * 1024 + 10), encoding="utf-8")
    (top / "answers.yaml").write_text("params_rnn: 32\n", encoding="utf-8")
    (top / "answers.yml").write_text("params_rnn: 31\n", encoding="utf-8")
    (top / "utf16.py").write_bytes("x = 1\n".encode("utf-16"))
    nbformat.write(new_notebook(cells=[new_code_cell("x = 1")]), str(top / "scratch.ipynb"))
    return tmp_path / "alice"


@pytest.fixture
def noisy_notebook(tmp_path):
    nb = new_notebook(cells=[
        new_code_cell("!pip install numpy\nimport numpy as np"),
        new_code_cell("%%bash\necho hi"),
        new_code_cell("A = 1\nfrom __future__ import annotations\nB = 2"),
        new_code_cell("def broken(:\n    pass"),
        new_code_cell("files = !ls\n%timeit 1 + 1"),
    ])
    nb.metadata["kernelspec"] = {"name": "ir", "language": "R", "display_name": "R"}
    path = tmp_path / "homework.ipynb"
    nbformat.write(nb, str(path))
    return path


@pytest.fixture
def noisy_zip(tmp_path):
    path = tmp_path / "hand-in.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("../evil.py", "x = 1\n")
        zf.writestr("/abs.py", "x = 1\n")
        zf.writestr("param_count.py", "def count_rnn_params(*a, **k):\n    return 0\n")
        zf.writestr("param_count.py", "def count_rnn_params(*a, **k):\n    return 1\n")
    return path


def assert_localised(messages: list[Message], least: int):
    assert len(messages) >= least, [m.render("en") for m in messages]
    for message in messages:
        en, zh = message.render("en"), message.render("zh")
        assert not CJK.search(en.replace("作业", "")), en
        assert CJK.search(zh) and zh != en, zh
        assert not re.search(r"\b(skipped|ignored|graded|converted|cannot|not run)\b", zh), zh


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("which", ["noisy_folder", "noisy_notebook", "noisy_zip"])
def test_notes_on_the_submission_are_in_the_students_language(which, request, tmp_path):
    submission = load_submission(request.getfixturevalue(which), tmp_path / "work")
    assert submission.notes == []          # plain-text notes would be shown in English whatever the language
    assert_localised(submission.messages, {"noisy_folder": 6, "noisy_notebook": 6, "noisy_zip": 3}[which])


def test_the_english_notes_say_what_they_said(noisy_folder, tmp_path):
    submission = load_submission(noisy_folder, tmp_path / "work")
    notes = submission.note_texts("en")
    assert "Note: used the folder hw3 inside the submission" in notes
    assert "Note: answers.yml ignored: answers.yaml is used" in notes
    assert "Note: scratch.ipynb ignored: the .py files are graded" in notes
    assert any(n.startswith("Note: param_count.py: not UTF-8; read as latin-1") for n in notes)
    zh = submission.note_texts("zh")
    assert "提示：使用了提交内的文件夹 hw3" in zh


def test_many_notes_are_capped_with_a_count_in_both_languages(tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    (folder / "param_count.py").write_text("x = 1\n", encoding="utf-8")
    for k in range(30):
        (folder / f"bad name {k}.py").write_text("x = 1\n", encoding="utf-8")
    submission = load_submission(folder, tmp_path / "work")
    assert len(submission.messages) == 21
    assert "10 more notes" in submission.messages[-1].render("en")
    assert "10" in submission.messages[-1].render("zh") and CJK.search(submission.messages[-1].render("zh"))


def test_the_report_shows_the_notes_in_chinese(grade, noisy_folder):
    result = grade(noisy_folder, only=("params",))
    notes = [n for n in result.notes if n.key == "note.submission"]
    assert len(notes) >= 6
    assert_localised(notes, 6)
