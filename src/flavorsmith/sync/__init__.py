"""One sync engine for every kind of object the catalog defines (flavors, deploy templates,
...): ``kinds`` is the registry, each kind one module (desired state, the pure plan, the
steps); ``targets`` holds where a kind writes (the service's own store, or a cloud through
openstacksdk); ``engine`` runs a round with its safety rules; ``watch`` keeps targets in sync."""
