# Shared fixtures live in tests/support/ as plugins, so each part of the suite owns its own file.
from pathlib import Path

pytest_plugins = [f"tests.support.{p.stem}" for p in sorted((Path(__file__).parent / "support").glob("[!_]*.py"))]
