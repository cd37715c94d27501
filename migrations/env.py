"""Alembic environment for vllm-doctor.

The database comes from, in order: an open connection in `config.attributes["connection"]`
(Store.upgrade and the tests), a URL in `config.attributes["url"]`, $DATABASE_URL, and the
SQLite default in the user's data directory. The URL is never put through `set_main_option`:
its ConfigParser interpolation breaks on the `%` of an encoded password.
"""

from logging.config import fileConfig

from alembic import context

from bot.store.engine import make_engine, resolve_url
from bot.store.models import Base

config = context.config
# Only the `alembic` command line configures logging; from code (the bot, the tests) we must not
# replace the application's logging setup.
if config.config_file_name is not None and not config.attributes.get("keep_logging"):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def _configure(**kw) -> None:
    context.configure(target_metadata=target_metadata, compare_type=True, **kw)


def run_migrations_offline() -> None:
    _configure(url=resolve_url(config.attributes.get("url")), literal_binds=True,
               dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def _run(connection) -> None:
    # SQLite cannot ALTER most things; batch mode rebuilds the table (a no-op elsewhere).
    _configure(connection=connection, render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = make_engine(resolve_url(config.attributes.get("url")))
    try:
        with engine.connect() as connection:
            _run(connection)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
