"""Where a sync writes: ``store`` (the service's own database, through the same stores as its
API handlers) and ``sdk`` (any OpenStack cloud through openstacksdk; ``cloud`` makes the
connection). Each of ``store`` and ``sdk`` holds the base its kinds' targets build on and a
``target(kind, ...)`` that asks the kind for its own; every target counts the calls it
makes."""
