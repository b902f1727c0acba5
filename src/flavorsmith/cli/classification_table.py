"""A classification's answer as the rows of ``classify``'s table (file and Ironic modes)."""

from __future__ import annotations

from typing import Any


def cells(body: dict[str, Any]) -> dict[str, Any]:
    """A classification's body as the rows of its table."""
    candidates = []
    for candidate in body["candidates"]:
        head = f"{candidate['resource_class']} ({candidate['device_type']}): "
        if candidate["match"]:
            candidates.append(head + "match")
        else:
            failed = [f"{c['field']}: {c['detail']}" for c in candidate["checks"] if not c["ok"]]
            candidates.append(head + "; ".join(failed))
    matched = next((c for c in body["candidates"] if c["match"]), None)
    cells: dict[str, Any] = {
        "result": body["summary"],
        "device_type": body["device_type"],
        "resource_class": body["resource_class"],
        "why": [f"{c['field']}: {c['detail']}" for c in matched["checks"]] if matched else [],
        "candidates": candidates if not matched or body["outcome"] != "matched" else [],
        "traits": body["traits"],
        "trait reasons": [
            f"{r['trait']}: {r['because']} ({r['rules']}: {r['rule']})"
            for r in body["trait_reasons"]
        ],
        "traits kept (not owned by rules)": body["traits_kept"],
    }
    if "applied" in body:
        cells["applied"] = body["applied"]
    return cells
