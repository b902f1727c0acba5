"""Clients of the real OpenStack services (Ironic, Nova, Placement, Keystone) through an
openstacksdk connection: connecting (``cloud``), the one request path and its errors (``sdk``),
and each service's calls. The only package that imports openstacksdk and keystoneauth."""
