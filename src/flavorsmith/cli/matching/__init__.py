"""``flavorsmith match`` and ``flavorsmith capacity``: the catalog against the nodes."""
