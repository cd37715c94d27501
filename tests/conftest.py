# Shared fixtures live in tests/support/ as plugins, so each part of the suite owns its own file.
pytest_plugins = ["tests.support.db"]
