"""A plan saved to a file (``sync plan --out FILE``) and the checks before it is applied
(``sync apply FILE``), pure: the plan records each observed object's fingerprint; applying it
observes the target again, plans again, and refuses, saying what changed, unless every object
is as it was and the new plan is the saved one action for action (the servers counted on a
flavor to delete are not compared: apply counts them again, and refuses a flavor in use unless
forced)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flavorsmith import jsonsafe
from flavorsmith.errors import Invalid
from flavorsmith.sync.report import FORMAT_VERSION, Round, action_dict


class BadPlan(ValueError):
    """A file that is not a plan this version can apply; the message says why."""


@dataclass(frozen=True)
class SavedPlan:
    kind: str
    prune: bool
    actions: list[dict[str, Any]]
    observed: dict[str, str]


def parse(text: str, source: str) -> SavedPlan:
    """The plan in ``text`` (read from ``source``), or BadPlan."""
    try:
        # The strict reader: nesting is bounded before the parser recurses into it.
        body = jsonsafe.loads(text, what=source)
    except jsonsafe.Malformed as exc:
        raise BadPlan(f"{source}: not a plan (not JSON: {exc.detail})") from None
    except Invalid as exc:
        raise BadPlan(f"{source}: not a plan ({exc.message})") from None
    if not isinstance(body, dict) or "format_version" not in body:
        raise BadPlan(f"{source}: not a plan (no format_version; write one with sync plan --out)")
    if body["format_version"] != FORMAT_VERSION:
        raise BadPlan(
            f"{source}: plan format_version {body['format_version']!r}; this version applies "
            f"format_version {FORMAT_VERSION}"
        )
    try:
        if body.get("error") or any(d["severity"] == "error" for d in body["diagnostics"]):
            raise BadPlan(f"{source}: the plan was refused when it was made; nothing to apply")
        return SavedPlan(
            kind=str(body["kind"]),
            prune=bool(body["prune"]),
            actions=list(body["actions"]),
            observed={str(k): str(v) for k, v in body["observed"].items()},
        )
    except (KeyError, AttributeError, TypeError) as exc:
        raise BadPlan(f"{source}: not a plan (missing or malformed {exc})") from None


def _shown(items: list[str], limit: int = 10) -> str:
    more = len(items) - limit
    return ", ".join(items[:limit]) + (f" and {more} more" if more > 0 else "")


def drift(saved: SavedPlan, fresh: Round, noun: str) -> str | None:
    """Why ``saved`` cannot be applied as it is now (``fresh``: the round planned against a new
    observation), or None when nothing changed."""
    before, now = saved.observed, fresh.observed
    changed = [k for k in sorted(before) if k in now and now[k] != before[k]]
    appeared = [k for k in sorted(now) if k not in before]
    gone = [k for k in sorted(before) if k not in now]
    parts = []
    if changed:
        parts.append(f"changed: {_shown(changed)}")
    if appeared:
        parts.append(f"appeared: {_shown(appeared)}")
    if gone:
        parts.append(f"gone: {_shown(gone)}")
    if parts:
        return (
            f"refused: the target's {noun} changed since the plan was made ({'; '.join(parts)}); "
            "make a new plan"
        )
    saved_actions = [_planned(a) for a in saved.actions]
    planned = {(a.get("action"), _subject(a)): a for a in saved_actions}
    again = json.loads(json.dumps([_planned(action_dict(a)) for a in fresh.actions], default=str))
    if again == saved_actions:
        return None
    now_by = {(a.get("action"), _subject(a)): a for a in again}
    differ = sorted(
        {str(key[1]) for key in planned.keys() ^ now_by.keys()}
        | {str(key[1]) for key in planned.keys() & now_by.keys() if planned[key] != now_by[key]}
    )
    return (
        f"refused: the catalog changed since the plan was made ({noun} planned differently: "
        f"{_shown(differ) if differ else 'the order of actions'}); make a new plan"
    )


def _planned(action: Mapping[str, Any]) -> dict[str, Any]:
    """What an action plans to write: without ``servers``, which counts what the target's
    servers use now (apply counts again and refuses a flavor in use unless forced)."""
    return {k: v for k, v in action.items() if k != "servers"}


def _subject(action: Mapping[str, Any]) -> Any:
    return action.get("subject")
