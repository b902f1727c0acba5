"""The HTTP service: one process serving the Ironic, Nova, Octavia and native APIs.

``app`` composes the application; ``services`` holds what it shares; ``families`` says which
family a path belongs to and how that family words and shapes its errors. Every handler reads
the request through ``context`` (policy, the caller, blocking work on a worker thread),
``requests`` (the JSON body, allowed parameters), ``query`` (booleans, limit, marker, fields,
sort, each in its family's dialect) and pages its lists with ``paging``."""
