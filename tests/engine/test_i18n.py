"""Every message exists in both languages, with the same placeholders."""

from __future__ import annotations

import re
import string
from pathlib import Path

from grader.base.i18n import catalogue, render

GRADER = Path(__file__).resolve().parents[2] / "grader"
KEY = re.compile(r"""["']((?:err|cmp|prop|report|note|cx|quiz|equation|holds|list)\.[a-z_]+)["']""")


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_both_languages_have_the_same_keys_and_placeholders():
    en, zh = catalogue("en"), catalogue("zh")
    assert set(en) == set(zh), (set(en) ^ set(zh))
    for key in en:
        assert placeholders(en[key]) == placeholders(zh[key]), key


def test_every_key_the_code_uses_exists():
    used = set()
    for path in GRADER.rglob("*.py"):
        used |= set(KEY.findall(path.read_text(encoding="utf-8")))
    # keys built at run time: err.exception / err.exit, err.import_exception / err.import_exit
    used |= {"err.exception", "err.exit", "err.import_exception", "err.import_exit"}
    used |= {key + "_unplaced" for key in ("err.exception", "err.exit", "err.import_exception", "err.import_exit")}
    file_names = {k for k in used if k.rsplit(".", 1)[1] in ("html", "md", "json", "yaml", "csv", "xml", "zip")}
    missing = sorted(k for k in used - file_names if k not in catalogue("en"))
    assert missing == []


def test_chinese_messages_are_chinese():
    zh = catalogue("zh")
    latin_only = [k for k, v in zh.items() if not re.search(r"[\u4e00-\u9fff]", v) and len(v) > 12]
    assert latin_only == []


def test_render_falls_back_and_never_raises():
    assert render("no.such.key", "zh") == "no.such.key"
    assert "{name}" in render("err.missing_function", "en", file="x.py")
