"""The student wheel's requirements, read with packaging as pip reads them (issue 41).

The instructor's install has pytest only in the ``test`` extra; the student wheel makes it a
plain requirement (the kit's pytest.ini needs the grader's plugin). A pin inside a compound
marker was silently replaced by the built-in ``pytest>=7.4``: now the extra leaves the marker
and the rest stays."""

from __future__ import annotations

import email.message
import email.parser
import importlib.metadata
import itertools
import random
from types import SimpleNamespace

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement

from grader.kit import student_wheel
from grader.kit.release import install_arguments
from grader.kit.requirement_markers import resolved_marker
from grader.kit.student_wheel import PYTEST_FALLBACK, requirements

ISSUE = 'pytest>=8.0; extra == "test" and python_version >= "3.10"'


def dist(*requires: str) -> SimpleNamespace:
    return SimpleNamespace(requires=list(requires))


@pytest.mark.parametrize("requires, expected", [
    # the issue
    (["numpy>=1.23", ISSUE], ["numpy>=1.23", 'pytest>=8.0; python_version >= "3.10"']),
    # as hatchling writes an optional dependency that has a marker of its own
    (["numpy>=1.23", 'pytest>=8.0; (python_version >= "3.10") and extra == "test"'],
     ["numpy>=1.23", 'pytest>=8.0; python_version >= "3.10"']),
    (["numpy", '''pytest>=8; extra == 'test' and (os_name == "posix" or platform_system == 'Darwin')'''],
     ["numpy", 'pytest>=8; os_name == "posix" or platform_system == "Darwin"']),
    (["numpy", 'pytest>=8; (extra == "test" or extra == "dev") and python_version >= "3.9"'],
     ["numpy", 'pytest>=8; python_version >= "3.9"']),
    (["numpy", 'pytest>=8; extra == "test" or python_version >= "3.10"'], ["numpy", "pytest>=8"]),
    # one pin per Python version: both kept
    (["numpy", 'pytest>=8.0; python_version >= "3.10" and extra == "test"',
      'pytest>=7.4,<8; python_version < "3.10" and extra == "test"'],
     ["numpy", 'pytest>=8.0; python_version >= "3.10"', 'pytest<8,>=7.4; python_version < "3.10"']),
    # the test extra's pytest, when another extra names one too
    (["numpy", 'pytest>=9; extra == "dev"', 'pytest>=8.1; extra == "test"'], ["numpy", "pytest>=8.1"]),
    (["numpy", 'pytest>=8.1; extra == "Test"'], ["numpy", "pytest>=8.1"]),        # extras compare normalised
    (["numpy", 'PyTest>=8.1; extra == "test"'], ["numpy", "PyTest>=8.1"]),        # so do names
    (["numpy", 'pytest[testing]>=8; extra == "test" and os_name != "nt"'],
     ["numpy", 'pytest[testing]>=8; os_name != "nt"']),
    (["numpy", 'pytest @ https://example.org/pytest-8.whl ; extra == "test" and python_version > "3"'],
     ["numpy", 'pytest @ https://example.org/pytest-8.whl ; python_version > "3"']),
    # what worked before works the same
    (["numpy>=1.23", 'pytest>=7.4; extra == "test"'], ["numpy>=1.23", "pytest>=7.4"]),
    (["numpy>=1.23", "pytest>=7.4; extra == 'test'", 'ruff>=0.17; extra == "test"'],
     ["numpy>=1.23", 'ruff>=0.17; extra == "test"', "pytest>=7.4"]),
    (["numpy", 'pytest>=9; extra == "dev"'], ["numpy", "pytest>=9"]),
    (["numpy", "pytest>=8", 'pytest>=9; extra == "test"'], ["numpy", "pytest>=8", 'pytest>=9; extra == "test"']),
    (["numpy"], ["numpy", PYTEST_FALLBACK]),
    ([], [PYTEST_FALLBACK]),
    # a pytest no extra asks for is never made to apply
    (["numpy", 'pytest>=8; extra == "test" and extra == "dev"'], ["numpy", PYTEST_FALLBACK]),
    (["numpy", 'pytest>=8; extra != "test"'], ["numpy", PYTEST_FALLBACK]),
    # a pytest limited by a marker without an extra stays, and the plugin's own need joins it
    (["numpy", 'pytest>=8; python_version >= "3.10"'], ["numpy", 'pytest>=8; python_version >= "3.10"',
                                                        PYTEST_FALLBACK]),
    # pytest-cov is not pytest
    (["pytest-cov; extra == 'test'"], ["pytest-cov; extra == 'test'", PYTEST_FALLBACK]),
])
def test_requirements(requires, expected):
    got = requirements(dist(*requires))
    assert got == expected
    for line in got:
        Requirement(line)          # every line is PEP 508


def test_the_issue_pin_is_kept_not_replaced():
    got = requirements(dist("numpy>=1.23", ISSUE))
    assert PYTEST_FALLBACK not in got
    pins = [Requirement(line) for line in got if line.startswith("pytest")]
    assert len(pins) == 1 and str(pins[0].specifier) == ">=8.0"
    assert pins[0].marker.evaluate({"python_version": "3.12"}) and not pins[0].marker.evaluate(
        {"python_version": "3.9"})


ENVIRONMENTS = [dict(zip(("os_name", "python_version", "sys_platform"), values))
                for values in itertools.product(("posix", "nt"), ("3.9", "3.12"), ("linux", "win32"))]
ATOMS = ['os_name == "posix"', 'python_version >= "3.10"', 'sys_platform == "linux"', 'extra == "test"',
         'extra == "dev"', '"test" == extra', 'extra != "test"']


def random_marker(rng: random.Random, depth: int = 0) -> str:
    terms = []
    for _ in range(rng.randint(1, 3)):
        if depth < 2 and rng.random() < 0.3:
            terms.append(f"({random_marker(rng, depth + 1)})")
        else:
            terms.append(rng.choice(ATOMS))
    text = terms[0]
    for term in terms[1:]:
        text += f" {rng.choice(('and', 'or'))} {term}"
    return text


def test_the_marker_left_means_what_the_whole_meant_for_the_test_extra():
    """For 400 markers of and, or and parentheses: in every environment, what is left holds
    exactly where the instructor's marker holds with the test extra asked for."""
    rng = random.Random(41)
    for _ in range(400):
        text = random_marker(rng)
        marker = Marker(text)
        left = resolved_marker(marker._markers, "test")
        for env in ENVIRONMENTS:
            wanted = marker.evaluate({**env, "extra": "test"})
            got = left if isinstance(left, bool) else Marker(left).evaluate(env)
            assert got == wanted, (text, left, env)
        if not isinstance(left, bool):
            assert "extra" not in left, (text, left)


# ---------------------------------------------------------------- the kit's install line


@pytest.fixture
def installed(monkeypatch):
    """Make the installed distribution one with the given Requires-Dist."""
    def install(*requires):
        monkeypatch.setattr(student_wheel.importlib.metadata, "distribution", lambda name: dist(*requires))
    return install


def test_the_kit_install_line_keeps_the_pin_of_a_compound_marker(installed):
    installed("numpy", ISSUE)
    requirement = student_wheel.pytest_requirement()
    assert requirement == "pytest>=8.0; python_version >= '3.10'"
    assert Requirement(requirement).marker.evaluate({"python_version": "3.11"})
    # one argument, double-quoted: sh, cmd and PowerShell read it alike
    assert install_arguments("rnn-grader==0.1.0", requirement) == \
        "rnn-grader==0.1.0 \"pytest>=8.0; python_version >= '3.10'\""


@pytest.mark.parametrize("requires, expected", [
    (['pytest>=7.4; extra == "test"'], "pytest>=7.4"),
    (["pytest>=8"], "pytest>=8"),
    (["numpy"], PYTEST_FALLBACK),
    (['pytest>=8.2; extra == "test"', 'pytest>=9; extra == "dev"'], "pytest>=8.2"),
    # two pins under two markers cannot be one argument: the plugin's own need, which holds everywhere
    (['pytest>=8; python_version >= "3.10" and extra == "test"',
      'pytest>=7.4; python_version < "3.10" and extra == "test"'], PYTEST_FALLBACK),
])
def test_the_kit_install_line(installed, requires, expected):
    installed(*requires)
    assert student_wheel.pytest_requirement() == expected


def test_no_installed_grader_names_the_fallback(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(student_wheel.importlib.metadata, "distribution", missing)
    assert student_wheel.pytest_requirement() == PYTEST_FALLBACK


def test_the_wheel_metadata_carries_the_pin():
    meta = email.message.Message()
    meta["Metadata-Version"] = "2.3"
    meta["Name"] = "rnn-grader"
    meta["Version"] = "0.1.0"
    meta["Requires-Dist"] = "numpy>=1.23"
    meta["Requires-Dist"] = ISSUE
    meta["Provides-Extra"] = "test"
    text = student_wheel.metadata(SimpleNamespace(metadata=meta, requires=meta.get_all("Requires-Dist")))
    parsed = email.parser.Parser().parsestr(text)
    assert parsed.get_all("Requires-Dist") == ["numpy>=1.23", 'pytest>=8.0; python_version >= "3.10"']
    assert parsed["Name"] == "rnn-grader" and parsed["Provides-Extra"] == "test"


def test_a_marker_in_a_form_packaging_no_longer_keeps_stops_the_release_with_one_line():
    from grader.base.errors import CourseError
    from grader.kit.requirement_markers import UnreadableMarker, marker_tree

    with pytest.raises(UnreadableMarker, match="keeps markers in a form") as caught:
        marker_tree(SimpleNamespace())
    assert isinstance(caught.value, CourseError) and "\n" not in str(caught.value)   # exit code 2, one line
    with pytest.raises(UnreadableMarker, match="cannot read"):
        resolved_marker([("extra", "==")], "test")
