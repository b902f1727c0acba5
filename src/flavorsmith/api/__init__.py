"""The HTTP service: one process serving the Ironic, Nova, Octavia and native APIs."""
