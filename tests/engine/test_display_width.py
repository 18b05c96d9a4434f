"""Terminal columns as rich measures them (issue 41): `grade class` pads student names and
`grade list` its columns with ``i18n.display_width``; a width off by one misaligns the row."""

from __future__ import annotations

import pytest

from grader.base.i18n import display_width, pad
from grader.report.class_formats import ClassView, text

FAMILY = "\U0001F468\u200D\U0001F469\u200D\U0001F467"       # man, ZWJ, woman, ZWJ, girl: one glyph
ZERO_WIDTH_SPACE = "\u200B"
THAI_SARA_I = "\u0E34"                                          # a vowel written above its consonant
ENCLOSING_CIRCLE = "\u20DD"                                     # a mark drawn around the letter before it


@pytest.mark.parametrize("value, columns", [
    # the four of the issue (the old count in the comment)
    (FAMILY, 2),                                  # 8: each person two, each joiner one
    (ZERO_WIDTH_SPACE, 0),                        # 1
    ("\u0E01" + THAI_SARA_I, 1),                  # 2: ko kai with sara i, one column
    (THAI_SARA_I, 0),                             # 1
    ("a" + ENCLOSING_CIRCLE, 1),                  # 2
    (ENCLOSING_CIRCLE, 0),                        # 1
    # what was right before stays right
    ("王小明", 6), ("练习", 4), ("，。", 4), ("ＡＢ", 4),          # CJK and full-width: two each
    ("alice", 5), ("", 0), (" ", 1), ("a-b_c.d", 7), ("bob 42", 6),
    ("e\u0301", 1),                               # a combining accent: none
    ("a" + ZERO_WIDTH_SPACE + "b", 2),
    ("王" + ZERO_WIDTH_SPACE + "a", 3),
])
def test_display_width(value, columns):
    assert display_width(value) == columns


def test_a_long_name_is_measured_whole():
    # rich caches short strings and measures long ones directly: both the same way
    assert display_width("王" * 600) == 1200
    assert display_width("a" * 600 + THAI_SARA_I * 10) == 600


def test_pad_fills_to_the_columns_seen():
    assert pad("กิ", 4) == "กิ   "                      # one column shown, three spaces
    assert pad("a" + ENCLOSING_CIRCLE, 3, right=True) == "  a" + ENCLOSING_CIRCLE
    assert pad("王", 4) == "王  "
    assert pad("toolong", 3) == "toolong"


def test_grade_class_text_lines_its_scores_up():
    names = ["alice", "王小明", "กิม", "a" + ENCLOSING_CIRCLE + "b"]
    view = ClassView(lang="en", rows=[(n, 1.0, 2.0) for n in names], view_of=lambda student: None,
                     counts={"count": 4, "graded": 4, "unchanged": 0, "skipped": 0})
    lines = text(view).splitlines()[1:5]
    # names 5, 6, 2 and 2 columns wide, padded to the widest (8 at least), then two spaces
    # and the points right-aligned in 7: every "/" in terminal column 2 + 8 + 2 + 7
    assert lines == ["  alice" + " " * 3 + "        1/2", "  王小明" + " " * 2 + "        1/2",
                     "  กิม" + " " * 6 + "        1/2", "  a" + ENCLOSING_CIRCLE + "b" + " " * 6 + "        1/2"]
    assert {display_width(line[:line.index("/")]) for line in lines} == {19}
