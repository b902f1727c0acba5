"""The serving runtime of ``flavorsmith serve``: the HTTP server and its guards (``server``),
the application of one serving process with its background loops (``process``; the same in
each ``--workers`` process), the leader election that lets one process run the loops
(``leader``), the warming of the caches (``warm``) and the metrics wiring (``metrics``)."""
