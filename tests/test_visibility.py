"""Nova's flavor visibility rule, the one function every API uses."""

from __future__ import annotations

import pytest

from flavorsmith.catalog.model import Catalog, Flavor
from flavorsmith.visibility import OPERATOR, Viewer, may_see, visible, visible_catalog

PRIVATE = Flavor("dedicated", "m1.medium", is_public=False, projects=("p1", "p2"))
PUBLIC = Flavor("m1.medium", "m1.medium")
ADMIN_ONLY = Flavor("lab", "m1.medium", is_public=False)


@pytest.mark.parametrize(
    ("viewer", "expected"),
    [
        (Viewer(admin=False, project_id="p1"), ["m1.medium", "dedicated"]),
        (Viewer(admin=False, project_id="p3"), ["m1.medium"]),
        (Viewer(admin=False, project_id=None), ["m1.medium"]),
        (Viewer(admin=True, project_id="p3"), ["m1.medium", "dedicated", "lab"]),
        (OPERATOR, ["m1.medium", "dedicated", "lab"]),
    ],
)
def test_public_for_all_private_for_its_projects_and_admins(
    viewer: Viewer, expected: list[str]
) -> None:
    flavors = [PUBLIC, PRIVATE, ADMIN_ONLY]
    assert [f.name for f in visible(viewer, flavors)] == expected
    catalog = visible_catalog(Catalog(flavors=tuple(flavors)), viewer)
    assert [f.name for f in catalog.flavors] == expected
    assert may_see(viewer, False, ("p1",)) is (viewer.admin or viewer.project_id == "p1")
