"""Where a sync writes: ``store`` (the service's own database, through the same stores as its
API handlers) and ``sdk`` (any OpenStack cloud through openstacksdk), each with a target for
every registered kind. Every target counts the calls it makes."""
