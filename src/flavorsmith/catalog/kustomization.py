"""hardware/base/kustomization.yaml: reading its configMapGenerator entries and editing them.

Edits are made on the text, one line at a time, so the rest of the file (comments, order,
quoting, indentation) stays byte-identical; only a layout the line editor does not know
falls back to a comment-preserving YAML round trip.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from flavorsmith.catalog.document import Document, parse
from flavorsmith.catalog.kinds import Kind
from flavorsmith.diagnostics import Diagnostic


@dataclass(frozen=True)
class Entry:
    """One ``files:`` item: ``[key=]path``, the path relative to hardware/base/."""

    text: str
    line: int  # 1-based
    column: int

    @property
    def target(self) -> str:
        return self.text.split("=", 1)[1] if "=" in self.text else self.text

    def names(self, folder: str, filename: str) -> bool:
        """Whether this entry points at ``hardware/<folder>/<filename>``."""
        return self.definition() == (folder, filename)

    def definition(self) -> tuple[str, str] | None:
        """The ``(folder, filename)`` of ``hardware/<folder>/<filename>`` this entry points
        at, or None when it points elsewhere."""
        parts = PurePosixPath(self.target).parts
        if len(parts) >= 2 and parts[:-2] in ((), ("..",)):
            return parts[-2], parts[-1]
        return None


def entry_text(kind: Kind, filename: str) -> str:
    return f"{filename}=../{kind.folder}/{filename}"


def parse_text(text: str, display: str) -> tuple[Document | None, list[Diagnostic]]:
    doc, diagnostics = parse(text.encode("utf-8"), display)
    if doc is not None and not isinstance(doc.data, dict):
        line, col = doc.position([])
        message = "expected a mapping with configMapGenerator"
        return None, [Diagnostic(display, line, col, "(root)", message, code="kustomization")]
    return doc, diagnostics


def _generator(tree: Any, configmap: str) -> CommentedMap | None:
    generators = tree.get("configMapGenerator") if isinstance(tree, CommentedMap) else None
    if not isinstance(generators, CommentedSeq):
        return None
    for item in generators:
        if isinstance(item, CommentedMap) and item.get("name") == configmap:
            return item
    return None


def _generator_index(data: Any, configmap: str) -> int | None:
    """Where the generator named ``configmap`` is in ``configMapGenerator``, if it is."""
    generators = data.get("configMapGenerator") if isinstance(data, dict) else None
    if not isinstance(generators, list):
        return None
    for index, item in enumerate(generators):
        if isinstance(item, dict) and item.get("name") == configmap:
            return index
    return None


def entries(doc: Document, configmap: str) -> list[Entry] | None:
    """The generator's file entries, or None when the generator does not exist."""
    at = _generator_index(doc.data, configmap)
    if at is None:
        return None
    files = doc.data["configMapGenerator"][at].get("files")
    if not isinstance(files, list):
        return []
    out = []
    for index, item in enumerate(files):
        if isinstance(item, str):
            line, col = doc.position(["configMapGenerator", at, "files", index])
            out.append(Entry(item, line, col))
    return out


def local_paths(doc: Document) -> list[tuple[str, Entry]]:
    """Every path the kustomization names on this disk, with the field it is in: the files of
    each ``configMapGenerator`` (whichever kind it holds) and the local ``resources`` (a remote
    base, ``https://…`` or ``github.com/…``, is not a path here)."""
    data = doc.data if isinstance(doc.data, dict) else {}
    out: list[tuple[str, Entry]] = []
    generators = data.get("configMapGenerator")
    for at, generator in enumerate(generators if isinstance(generators, list) else []):
        files = generator.get("files") if isinstance(generator, dict) else None
        name = generator.get("name") if isinstance(generator, dict) else None
        for index, item in enumerate(files if isinstance(files, list) else []):
            if isinstance(item, str):
                line, col = doc.position(["configMapGenerator", at, "files", index])
                out.append((f"configMapGenerator[{name}].files", Entry(item, line, col)))
    resources = data.get("resources")
    for index, item in enumerate(resources if isinstance(resources, list) else []):
        if isinstance(item, str) and not _remote(item):
            line, col = doc.position(["resources", index])
            out.append(("resources", Entry(f"={item}", line, col)))
    return out


def _remote(target: str) -> bool:
    """Whether a ``resources`` entry is a remote base kustomize fetches, not a local path."""
    return "://" in target or target.startswith(("git@", "github.com/", "gitlab.com/"))


def _tree(text: str) -> CommentedMap | None:
    """ruamel's round-trip tree of a kustomization that parsed, for the line editor."""
    try:
        tree = _yaml().load(text)
    except (YAMLError, ValueError, TypeError, AttributeError, KeyError, RecursionError):
        return None  # read once already; should the round-trip parser disagree, no line edit
    return tree if isinstance(tree, CommentedMap) else None


def new_file(sections: Iterable[tuple[Kind, list[str]]]) -> str:
    """A fresh kustomization with one generator per kind, in the seed's layout."""
    text = (
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n\nconfigMapGenerator:\n"
    )
    for kind, filenames in sections:
        text += _generator_block(kind, sorted(filenames), indent="", files_offset="")
    return text


def _generator_block(kind: Kind, filenames: list[str], indent: str, files_offset: str) -> str:
    block = f"{indent}- name: {kind.configmap}\n"
    block += f"{indent}  options:\n{indent}    disableNameSuffixHash: true\n"
    if not filenames:
        return block + f"{indent}  files: []\n"
    block += f"{indent}  files:\n"
    for filename in filenames:
        block += f"{indent}  {files_offset}- {entry_text(kind, filename)}\n"
    return block


def add_entry(text: str, kind: Kind, filename: str) -> str:
    """``text`` with the entry for ``filename`` added to the kind's generator."""
    if not text.strip():
        return new_file([(kind, [filename])])
    doc, _ = parse_text(text, "kustomization.yaml") if text.strip() else (None, [])
    tree = _tree(text) if doc is not None else None
    current = entries(doc, kind.configmap) if doc is not None else None
    if current is not None and any(e.names(kind.folder, filename) for e in current):
        return text
    edited = _add_by_lines(text, tree, kind, filename)
    if edited is not None and _has_entry(edited, kind, filename):
        return edited
    return _round_trip(text, lambda root: _add_to_tree(root, kind, filename))


def remove_entry(text: str, kind: Kind, filename: str) -> str:
    """``text`` without the kind's entries for ``filename``."""
    doc, _ = parse_text(text, "kustomization.yaml")
    current = entries(doc, kind.configmap) if doc is not None else None
    if not current:
        return text
    doomed = [e for e in current if e.names(kind.folder, filename)]
    if not doomed:
        return text
    lines = text.splitlines(keepends=True)
    if all(lines[e.line - 1].lstrip().startswith("- ") for e in doomed):
        for entry in sorted(doomed, key=lambda e: e.line, reverse=True):
            del lines[entry.line - 1]
        if len(doomed) == len(current):
            assert doc is not None
            at = _generator_index(doc.data, kind.configmap)
            assert at is not None
            key_line = doc.position(["configMapGenerator", at, "files"], at_key=True)[0] - 1
            lines[key_line] = lines[key_line].replace("files:", "files: []", 1)
        edited = "".join(lines)
        if not _has_entry(edited, kind, filename):
            return edited
    return _round_trip(text, lambda root: _remove_from_tree(root, kind, filename))


def _has_entry(text: str, kind: Kind, filename: str) -> bool:
    doc, diagnostics = parse_text(text, "kustomization.yaml")
    if doc is None or diagnostics:
        return False
    current = entries(doc, kind.configmap) or []
    return any(e.names(kind.folder, filename) for e in current)


def _dash_column(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _add_by_lines(text: str, tree: Any, kind: Kind, filename: str) -> str | None:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    new_entry = entry_text(kind, filename)
    if tree is None:
        return None
    generators = tree.get("configMapGenerator")
    if generators is None and "configMapGenerator" not in tree:
        block = "configMapGenerator:\n" + _generator_block(kind, [filename], "", "")
        return "".join(lines) + block
    if not isinstance(generators, CommentedSeq) or not generators:
        return None
    generator = _generator(tree, kind.configmap)
    if generator is None:
        first_line = lines[generators.lc.item(0)[0]]
        if not first_line.lstrip().startswith("- "):
            return None
        indent = " " * _dash_column(first_line)
        at = _end_of_key(tree, "configMapGenerator", lines)
        block = _generator_block(kind, [filename], indent, _files_offset(generators, lines))
        return "".join([*lines[:at], block, *lines[at:]])
    files = generator.get("files")
    if not isinstance(files, CommentedSeq) or not files:
        return None
    item_lines = [files.lc.item(i)[0] for i in range(len(files))]
    if not all(lines[n].lstrip().startswith("- ") for n in item_lines):
        return None
    new_line = " " * _dash_column(lines[item_lines[0]]) + f"- {new_entry}\n"
    texts = [str(item) for item in files]
    at = item_lines[-1] + 1
    if texts == sorted(texts):
        at = next((n for n, t in zip(item_lines, texts, strict=True) if t > new_entry), at)
    return "".join([*lines[:at], new_line, *lines[at:]])


def _files_offset(generators: CommentedSeq, lines: list[str]) -> str:
    """The indentation of ``- file`` under ``files:`` that the existing generators use."""
    for item in generators:
        files = item.get("files") if isinstance(item, CommentedMap) else None
        if isinstance(files, CommentedSeq) and files:
            key_col: int = item.lc.key("files")[1]
            dash_col = _dash_column(lines[files.lc.item(0)[0]])
            return " " * max(0, dash_col - key_col)
    return ""


def _end_of_key(tree: CommentedMap, key: str, lines: list[str]) -> int:
    """The line index just after the block of a top-level key (before the next key's comments)."""
    keys = list(tree)
    position = keys.index(key)
    end = tree.lc.key(keys[position + 1])[0] if position + 1 < len(keys) else len(lines)
    while end > 0 and (not lines[end - 1].strip() or lines[end - 1].startswith("#")):
        end -= 1
    return end


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.indent(mapping=2, sequence=2, offset=0)
    yaml.width = 4096
    return yaml


def _round_trip(text: str, change: Any) -> str:
    yaml = _yaml()
    root = yaml.load(text) if text.strip() else None
    if not isinstance(root, CommentedMap):
        root = CommentedMap()
    change(root)
    out = io.StringIO()
    yaml.dump(root, out)
    return out.getvalue()


def _add_to_tree(root: CommentedMap, kind: Kind, filename: str) -> None:
    generators = root.get("configMapGenerator")
    if not isinstance(generators, list):
        generators = CommentedSeq()
        root["configMapGenerator"] = generators
    generator = next(
        (g for g in generators if isinstance(g, dict) and g.get("name") == kind.configmap), None
    )
    if generator is None:
        generator = CommentedMap(
            [("name", kind.configmap), ("options", {"disableNameSuffixHash": True})]
        )
        generators.append(generator)
    files = generator.get("files")
    if not isinstance(files, list):
        files = CommentedSeq()
        generator["files"] = files
    files.append(entry_text(kind, filename))


def _remove_from_tree(root: CommentedMap, kind: Kind, filename: str) -> None:
    for generator in root.get("configMapGenerator") or []:
        if isinstance(generator, dict) and generator.get("name") == kind.configmap:
            files = generator.get("files") or []
            keep = [f for f in files if not Entry(str(f), 0, 0).names(kind.folder, filename)]
            generator["files"] = CommentedSeq(keep)
