"""The student's HTML feedback page (`grade class --feedback html`) tells the browser that nothing
runs and nothing is fetched: a Content-Security-Policy as strict as the class report's (issue 41).

The page's texts are escaped (tests/engine/test_report_formats.py); this is the second wall, for
markup that would slip through anyway. In headless Chromium a script, an event handler, an image
and a style sheet planted into the real page neither run nor reach a server on loopback, while the
same plants in the same page without its policy do both (so the check can fail)."""

from __future__ import annotations

import http.server
import os
import shutil
import subprocess
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import ROOT, copy_reference

MISTAKES = ROOT / "solutions" / "mistakes"
CHROMIUM = Path("/usr/bin/chromium")
ALLOWED = {"default-src": {"'none'"}, "style-src": {"'unsafe-inline'"}, "base-uri": {"'none'"},
           "form-action": {"'none'"}}


def run(*args, cwd=ROOT):
    proc = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    """bob's feedback page from a real `grade class` run: a mistake, so the page has every part."""
    base = tmp_path_factory.mktemp("feedback-csp")
    bob = copy_reference(base / "class" / "bob")
    target = bob / "rnn_step.py"
    target.write_text(target.read_text(encoding="utf-8") + "\n\n"
                      + (MISTAKES / "step" / "missing_bias.py").read_text(encoding="utf-8"), encoding="utf-8")
    extra = [] if shutil.which("bwrap") else ["--no-sandbox"]
    code, out, err = run("class", base / "class", "--jobs", "1", "--only", "step", "--gradebook",
                         base / "book.sqlite", "--feedback", "html", *extra)
    assert code == 0, err
    path = base / "class.feedback" / "bob.html"          # beside the gradebook, named for the folder
    assert path.is_file(), sorted(p.name for p in base.rglob("*"))
    return path


class Head(HTMLParser):
    """Every start tag in order, with its attributes."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag


def policy_of(content: str) -> dict[str, set[str]]:
    directives = {}
    for part in content.split(";"):
        words = part.split()
        if words:
            assert words[0].lower() not in directives, f"{words[0]} given twice"
            directives[words[0].lower()] = set(words[1:])
    return directives


def test_the_page_declares_a_strict_policy_before_anything_else(page):
    text = page.read_text(encoding="utf-8")
    parsed = Head()
    parsed.feed(text)
    tags = parsed.tags
    metas = [a for t, a in tags if t == "meta" and a.get("http-equiv", "").lower() == "content-security-policy"]
    assert len(metas) == 1
    # In the head, before the title, the style sheet and every element of the body.
    assert [t for t, _ in tags[:3]] == ["html", "meta", "meta"] and tags[2][1] is metas[0]
    assert policy_of(metas[0]["content"]) == ALLOWED
    # No script and nothing that fetches: the inline style sheet is all.
    assert not [t for t, _ in tags if t in ("script", "link", "img", "iframe", "object", "embed", "base", "form")]
    assert not [a for _, a in tags if {"src", "href", "srcset", "action"} & set(a)]
    assert "url(" not in text and "@import" not in text


def test_the_class_report_policy_is_no_looser(tmp_path):
    """The student page allows nothing the class report does not (the report's images are data: URLs)."""
    from grader.classroom.class_page import render_html
    from grader.classroom.class_report import collect
    from grader.classroom.gradebook import Gradebook
    from grader.report.html import CSP

    with Gradebook(tmp_path / "empty.gradebook.sqlite") as book:
        report = Head()
        report.feed(render_html(collect(book, "en", None), "en"))
    meta = next(a for t, a in report.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    report_policy = policy_of(meta["content"])
    assert report_policy["default-src"] == {"'none'"}
    for directive, sources in policy_of(CSP).items():
        assert sources <= report_policy.get(directive, report_policy["default-src"]) | {"'none'"}


# ---------------------------------------------------------------- in Chromium


def chromium(*args, tmp: Path) -> subprocess.CompletedProcess:
    # As tests/cli/test_class_report.py: CI installs Chromium, so there a missing one fails.
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and Chromium is not installed ({CHROMIUM}): "
                        "scripts/install-system-packages --ci installs it", pytrace=False)
        pytest.skip(f"Chromium is not installed ({CHROMIUM})")
    return subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           "--no-first-run", f"--user-data-dir={tmp / 'profile'}", *args],
                          capture_output=True, text=True, timeout=180)


class Recorder(http.server.BaseHTTPRequestHandler):
    """A loopback server that notes every path asked of it."""
    seen: list[str] = []

    def do_GET(self):   # noqa: N802 -- the handler's name is http.server's
        Recorder.seen.append(self.path)
        body = b"body{background:red}" if self.path.endswith(".css") else b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"
        self.send_response(200)
        self.send_header("Content-Type", "text/css" if self.path.endswith(".css") else "image/gif")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    Recorder.seen = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def planted(origin: str) -> str:
    """What an attacker would want in the page: each, if it runs or loads, leaves a mark in the DOM
    or on the server."""
    return (f"<script>document.documentElement.setAttribute('data-inline-script', 'ran');"
            f"fetch('{origin}/fetched.gif').catch(function () {{}});</script>\n"
            f"<img src='{origin}/image.gif' onerror=\"document.documentElement.setAttribute('data-handler', 'ran')\""
            f" onload=\"document.documentElement.setAttribute('data-handler', 'ran')\">\n"
            f"<link rel='stylesheet' href='{origin}/sheet.css'>\n"
            f"<script src='{origin}/script.js'></script>\n")


def dom_of(path: Path, tmp: Path) -> tuple[str, dict]:
    """The DOM Chromium ends with, and the attributes of its <html> element (where the plants mark)."""
    proc = chromium("--virtual-time-budget=3000", "--dump-dom", path.as_uri(), tmp=tmp)
    assert "<h1>" in proc.stdout, proc.stderr[-2000:]
    parsed = Head()
    parsed.feed(proc.stdout)
    return proc.stdout, next(a for t, a in parsed.tags if t == "html")


def test_in_chromium_a_planted_script_does_not_run_and_nothing_is_fetched(page, server, tmp_path):
    text = page.read_text(encoding="utf-8")
    marks = ("data-inline-script", "data-handler")

    # Without its policy the page runs the plants and fetches: the check sees what it looks for.
    bare = tmp_path / "bare.html"
    bare.write_text("\n".join(line for line in text.splitlines() if "Content-Security-Policy" not in line)
                    + planted(server), encoding="utf-8")
    dom, root = dom_of(bare, tmp_path)
    assert all(root.get(m) == "ran" for m in marks), root
    assert {"/image.gif", "/sheet.css", "/script.js", "/fetched.gif"} <= set(Recorder.seen), Recorder.seen

    # The page as written, with the same plants after its content: nothing runs, nothing is asked.
    Recorder.seen = []
    guarded = tmp_path / "guarded.html"
    guarded.write_text(text + planted(server), encoding="utf-8")
    dom, root = dom_of(guarded, tmp_path)
    assert not [m for m in marks if m in root], root
    assert Recorder.seen == []
    assert "step.missing_bias" in dom          # the page itself is all there
