"""One sync engine for every kind of object the catalog defines (flavors, deploy templates,
...): ``kinds`` is the registry, each kind one module (desired state, the pure plan, the
steps, and its targets); ``targets`` holds what every target of a kind builds on (the
service's own store, or a cloud through openstacksdk); ``engine`` runs a round with its
safety rules; ``watch`` keeps targets in sync."""
