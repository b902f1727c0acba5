"""Flavorsmith's own API under /v1."""
