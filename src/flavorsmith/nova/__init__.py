"""Nova: flavors derived from the catalog, and (later) reconciling them into a Nova API."""
