"""The docs' example runner fails a page whose commands print something else or exit
otherwise than the page shows (tests/docs/pages.py)."""

from __future__ import annotations

from pathlib import Path

from tests.docs.pages import Session, environment, matches, run_page, services


def test_ellipsis_stands_for_any_lines() -> None:
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "d"], ["a", "d"])
    assert not matches(["a", "...", "d"], ["a", "b", "c"])
    assert not matches(["a"], ["a", "b"])


def test_a_page_that_shows_other_output_fails(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        '```text title="greeting.txt"\nhello\n```\n\n'
        "```console\n$ cat greeting.txt\nhello\n$ cat greeting.txt\ngoodbye\n"
        "$ false  # exits 1\n$ true  # exits 1\n```\n"
    )
    session = Session(tmp_path, environment(tmp_path))
    try:
        problems = run_page(page, session)
    finally:
        session.close()
    assert len(problems) == 2
    assert "the page shows:\ngoodbye\n  it printed:\nhello" in problems[0]
    assert "$ true  # exits 1\n  exited 0, not 1" in problems[1]


def test_output_shows_the_pages_port_not_the_free_one(tmp_path: Path) -> None:
    # The command runs against a free port in place of 8123; what it prints names the page's.
    page = tmp_path / "page.md"
    page.write_text("```console\n$ echo http://127.0.0.1:8123/v1\nhttp://127.0.0.1:8123/v1\n```\n")
    session = Session(tmp_path, environment(tmp_path))
    try:
        assert run_page(page, session) == []
        assert session.ports["8123"] != "8123"
    finally:
        session.close()


def test_a_page_declares_the_real_services_on_its_first_line() -> None:
    assert services("<!-- docs-test: ironic nova placement -->\n# Title\n") == [
        "ironic",
        "nova",
        "placement",
    ]
    assert services("# Title\n\nText.\n") == []
    # Only the first line declares: the same comment further down is text of the page.
    assert services("# Title\n<!-- docs-test: ironic -->\n") == []
