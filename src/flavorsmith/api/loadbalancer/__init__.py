"""The Octavia-compatible API under /load-balancer."""
