"""Alembic migrations for Flavorsmith's database."""
