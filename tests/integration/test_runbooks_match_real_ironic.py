"""The same runbook requests to a real Ironic 39 and to this service get the same answers:
status, Ironic's headers (versions, Location, Content-Type) and the whole body, with
identities, times and the service's root URL normalised. Where only the wording of an error
differs, the step says so (``WORDING``) and the test compares all but the message, and lists
both messages in its output, apart.

Steps where Ironic 39 has a bug are left out and documented (docs/reference/ironic-api.md):
a patch adding a step without ``args`` (Ironic: 500), a patch reordering the steps, and the
``updated_at`` of a change to the steps alone."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.ironic_api import running_ironic

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIME_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00")
HEADERS = (
    "Content-Type",
    "Location",
    "X-OpenStack-Ironic-API-Version",
    "X-OpenStack-Ironic-API-Minimum-Version",
    "X-OpenStack-Ironic-API-Maximum-Version",
)
LATEST = "1.115"  # Ironic 39's maximum, and ours
# Steps whose error message is worded differently here; compared on all but the message.
WORDING = "wording"

Answer = dict[str, Any]


@pytest.fixture(scope="module")
def ironic() -> Iterator[str]:
    with running_ironic() as url:
        yield url


@pytest.fixture(scope="module")
def ours(sqlite_server: str) -> str:
    return f"{sqlite_server}/baremetal"


def normal(value: Any, root: str) -> Any:
    if isinstance(value, dict):
        if set(value) == {"error_message"} and isinstance(value["error_message"], str):
            return {"error_message": normal(json.loads(value["error_message"]), root)}
        return {k: normal(v, root) for k, v in value.items()}
    if isinstance(value, list):
        return [normal(v, root) for v in value]
    if isinstance(value, str):
        return TIME_RE.sub("<time>", UUID_RE.sub("<uuid>", value.replace(root, "<root>")))
    return value


def call(root: str, method: str, path: str, body: Any = None, version: str = LATEST) -> Answer:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{root}/v1{path}", data=data, method=method)
    request.add_header("X-OpenStack-Ironic-API-Version", version)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, headers, text = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, headers, text = error.code, error.headers, error.read()
    shown = {name: normal(headers[name], root) for name in HEADERS if headers.get(name) is not None}
    if not text:
        shown.pop("Content-Type", None)  # a 204 has none to read
    return {
        "status": status,
        "headers": shown,
        "body": normal(json.loads(text), root) if text else None,
    }


def message(answer: Answer) -> str:
    body = answer["body"]["error_message"]
    return str(body.get("faultstring", body.get("description")))


def without_message(answer: Answer) -> Answer:
    inner = dict(answer["body"]["error_message"])
    for key in ("faultstring", "description"):
        inner.pop(key, None)
    return {**answer, "body": {"error_message": inner}}


class Replay:
    """Each step sent to both services, the answers compared; wording differences kept."""

    def __init__(self, ironic: str, ours: str) -> None:
        self.ironic, self.ours = ironic, ours
        self.wording: list[tuple[str, str, str]] = []

    def __call__(
        self, method: str, path: str, body: Any = None, version: str = LATEST, note: str = ""
    ) -> Answer:
        real = call(self.ironic, method, path, body, version)
        mine = call(self.ours, method, path, body, version)
        where = f"{method} {path} @{version}"
        if note == WORDING:
            assert without_message(mine) == without_message(real), where
            if message(mine) != message(real):
                self.wording.append((where, message(real), message(mine)))
        else:
            assert mine == real, where
        return real

    def report(self) -> None:
        for where, real, mine in self.wording:
            print(f"wording differs: {where}\n  Ironic 39: {real}\n  ours:      {mine}")


@pytest.fixture
def replay(ironic: str, ours: str) -> Iterator[Replay]:
    replaying = Replay(ironic, ours)
    yield replaying
    replaying.report()


STEPS = [
    {"interface": "bios", "step": "factory_reset", "order": 2},
    {"interface": "bios", "step": "apply_configuration", "args": {"settings": []}, "order": "1"},
]


def test_a_runbooks_life_answers_alike(replay: Replay) -> None:
    name = f"rb-{uuid.uuid4().hex[:8]}"
    path = f"/runbooks/{name}"
    created = replay(
        "POST",
        "/runbooks",
        {"name": name, "description": "window", "steps": STEPS, "extra": {"k": "v"}},
    )
    assert (
        created["status"] == 201 and created["headers"]["Location"] == "<root>/v1/runbooks/<uuid>"
    )
    replay("GET", path)
    replay("GET", path, version="1.92")
    replay("GET", f"{path}?fields=name,steps,links")
    replay("GET", f"{path}?fields=traits", version="1.111")
    replay("GET", f"{path}/traits", version="1.111")
    replay("GET", f"{path}/traits")
    assert (
        replay("PUT", f"{path}/traits", {"traits": ["CUSTOM_Z", "CUSTOM_A", "CUSTOM_A"]})["status"]
        == 204
    )
    replay("GET", f"{path}/traits")
    replay("PUT", f"{path}/traits/CUSTOM_B")
    replay("DELETE", f"{path}/traits/CUSTOM_Z")
    replay("DELETE", f"{path}/traits/CUSTOM_NEVER")
    replay("GET", path)  # traits changed, updated_at did not
    replay("PUT", f"{path}/traits")
    replay("PUT", f"{path}/traits/CUSTOM_C", {"traits": ["CUSTOM_D"]})
    replay("PUT", f"{path}/traits/lower")
    replay("PATCH", path, [{"op": "add", "path": "/owner", "value": "p1"}])
    replay("PATCH", path, [{"op": "add", "path": "/public", "value": True}])
    replay("PATCH", path, [{"op": "add", "path": "/owner", "value": "p1"}])
    replay(
        "PATCH",
        path,
        [
            {"op": "add", "path": "/owner", "value": "p1"},
            {"op": "add", "path": "/public", "value": False},
        ],
    )
    replay("PATCH", path, [{"op": "remove", "path": "/description"}])
    replay("PATCH", path, [{"op": "replace", "path": "/extra", "value": {"a": [1]}}])
    replay("PATCH", path, [])
    replay("PATCH", path, [{"op": "add", "path": "/traits", "value": ["CUSTOM_X"]}])
    replay("PATCH", path, [{"op": "add", "path": "/uuid", "value": "x"}])
    replay("PATCH", path, [{"op": "add", "path": "/description", "value": "x"}], version="1.111")
    replay("PATCH", path, [{"op": "remove", "path": "/steps"}])
    replay("PATCH", path, [{"op": "replace", "path": "/steps/5/order", "value": 7}], note=WORDING)
    replay("DELETE", f"{path}/traits")
    replay("GET", f"{path}/traits")
    replay("DELETE", path)
    replay("GET", path)
    replay("DELETE", path)
    replay("GET", "/runbooks/r%20b")


@pytest.mark.parametrize(
    ("body", "version", "note"),
    [
        ({"name": "DUPLICATES", "steps": [STEPS[0], {**STEPS[0], "order": 3}]}, LATEST, ""),
        ({"name": "x", "steps": []}, LATEST, ""),
        ({"name": "a b", "steps": STEPS}, LATEST, ""),
        ({"name": "rb3", "steps": STEPS}, "1.92", ""),
        ({"name": "x", "steps": STEPS, "traits": ["CUSTOM_A"]}, LATEST, ""),
        ({"name": "x", "steps": STEPS, "description": "d"}, "1.111", ""),
        ({"steps": STEPS}, LATEST, ""),
        ({"name": "x", "steps": [{**STEPS[0], "interface": "deployx"}]}, LATEST, ""),
        ({"name": "x", "steps": [{**STEPS[0], "order": -1}]}, LATEST, ""),
        ({"name": "x", "steps": [{**STEPS[0], "order": "x"}]}, LATEST, ""),
        ({"name": "x", "steps": [{"interface": "bios", "step": "a"}]}, LATEST, ""),
        ({"name": "x", "steps": [{**STEPS[0], "priority": 1}]}, LATEST, ""),
        ({"name": "x", "uuid": "nope", "steps": STEPS}, LATEST, ""),
        ({"name": "x", "steps": STEPS, "owner": "p2"}, LATEST, ""),
        ([], LATEST, ""),
        ({"name": "x", "steps": STEPS}, "1.91", ""),
    ],
)
def test_a_refused_create_answers_alike(replay: Replay, body: Any, version: str, note: str) -> None:
    assert replay("POST", "/runbooks", body, version=version, note=note)["status"] >= 400


def test_a_taken_name_or_uuid_answers_alike(replay: Replay) -> None:
    name = f"rb-{uuid.uuid4().hex[:8]}"
    wanted = str(uuid.uuid4())
    replay("POST", "/runbooks", {"name": name, "uuid": wanted, "steps": STEPS})
    replay("POST", "/runbooks", {"name": name, "steps": STEPS})
    replay("POST", "/runbooks", {"name": name + "-2", "uuid": wanted, "steps": STEPS})


def test_lists_answer_alike(replay: Replay) -> None:
    tag = uuid.uuid4().hex[:8]
    for index in range(3):
        body = {"name": f"{tag}-{index}", "steps": STEPS, "public": index == 1}
        assert replay("POST", "/runbooks", body)["status"] == 201
    for query in (
        "",
        "?detail=true",
        "?fields=name,traits,description",
        "?sort_key=name&sort_dir=desc",
        "?sort_key=created_at&limit=2",
        "?project=true",
        "?project=false",
        "?detail=true&fields=name",
        "?fields=name,foo",
        "?sort_key=steps",
        "?sort_key=foo",
        "?limit=0",
        "?sort_dir=up",
        "?marker=some-name",
        f"?marker={uuid.uuid4()}",
        "?marker=a&marker=b",
        "?limit=1&limit=2",
        "?foo=1",
    ):
        replay("GET", f"/runbooks{query}", note=WORDING if "foo=1" in query else "")
    replay("GET", "/runbooks?detail=true", version="1.92")
    replay("GET", "/runbooks", version="1.91")
    replay("GET", "/runbooks?project=p1", note=WORDING)


def test_secret_arguments_are_masked_alike(replay: Replay) -> None:
    name = f"rb-{uuid.uuid4().hex[:8]}"
    args = {"bmc": {"Password": "p", "user": "u"}, "auth_token": 1, "settings": [{"a": "b"}]}
    step = {"interface": "bios", "step": "apply_configuration", "args": args, "order": 1}
    replay("POST", "/runbooks", {"name": name, "steps": [step]})
    replay("GET", f"/runbooks/{name}")
    replay("GET", "/runbooks?detail=true")
