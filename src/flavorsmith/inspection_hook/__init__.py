"""Classification inside Ironic's own inspection: an inspection hook (``hook.py``, the only
module that imports Ironic, loaded by Ironic through the ``ironic.inspection.hooks`` entry
point) on the catalog kept loaded (``live_catalog.py``) and what it changes on a node
(``update.py``, pure). Nothing else in Flavorsmith imports this package."""
