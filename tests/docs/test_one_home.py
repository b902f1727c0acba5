"""Each fact has one home in the documentation: no page repeats a run of ten words of another
page's prose (code, console output and tables aside). A page that needs the fact links to the
page that holds it."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
RUN = 10  # words in a row that may not appear on two pages
# A link (its text names the page it points at) breaks a run: pointing at the home is the point.
LINK = re.compile(r"\[[^\]]*\]\([^)]*\)")
# Inline code counts as one word: a long field list is not prose, a copied sentence still is.
INLINE_CODE = re.compile(r"`[^`]*`")
MARKUP = re.compile(r"[`*_\[\]>#]")
WORD = re.compile(r"[a-z0-9'/.-]+")
SENTENCE_END = re.compile(r"(?<=[.!?:;])\s+")


def prose(text: str) -> str:
    """A page's prose: no fenced or indented code, no table rows, no links or markup."""
    kept: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith("    ") or line.lstrip().startswith("|"):
            continue
        kept.append(line)
    text = INLINE_CODE.sub(" code ", LINK.sub(". ", " ".join(kept)))
    return MARKUP.sub(" ", text).lower()


def runs(text: str, length: int = RUN) -> set[str]:
    """Every run of ``length`` words inside one sentence of ``text``'s prose."""
    found: set[str] = set()
    for sentence in SENTENCE_END.split(prose(text)):
        words = WORD.findall(sentence)
        found.update(" ".join(words[i : i + length]) for i in range(len(words) - length + 1))
    return found


def shared_runs(pages: dict[str, str]) -> dict[str, set[str]]:
    """The runs of words that appear on more than one page, with the pages."""
    where: dict[str, set[str]] = defaultdict(set)
    for name, text in pages.items():
        for run in runs(text):
            where[run].add(name)
    return {run: names for run, names in where.items() if len(names) > 1}


def test_no_page_repeats_another() -> None:
    pages = {
        str(path.relative_to(DOCS)): path.read_text()
        for path in sorted(DOCS.rglob("*.md"))
        if "hooks" not in path.relative_to(DOCS).parts
    }
    by_pages: dict[str, list[str]] = defaultdict(list)
    for run, names in shared_runs(pages).items():
        by_pages[" and ".join(sorted(names))].append(run)
    report = [f"{names}: “{min(found)} …” ({len(found)} runs)" for names, found in by_pages.items()]
    assert not report, "text repeated across pages (keep it on one, link from the other):\n" + (
        "\n".join(sorted(report))
    )


def test_a_repeated_sentence_is_found_and_code_is_not() -> None:
    sentence = "The matcher answers what Placement answers for every flavor and every node here."
    pages = {
        "a.md": f"# A\n\n{sentence}\n\n```console\n$ flavorsmith validate --repo . --format github\n```\n",
        "b.md": f"Intro. {sentence}\n\n    flavorsmith validate --repo . --format github\n",
        "c.md": "The matcher answers what Placement answers, and nothing else is said here.\n",
    }
    shared = shared_runs(pages)
    assert shared
    assert all(names == {"a.md", "b.md"} for names in shared.values())
    assert not any("validate" in run for run in shared)
