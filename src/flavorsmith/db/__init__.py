"""Storage: SQLAlchemy models, engines for SQLite and PostgreSQL, Alembic migrations."""
