"""The build of the stack index: tables.py makes every table from the packages it is handed
(packages.py), one module per table beside it. Only `vllm-doctor index build-stack` and `index
update` (bot/watch/stack_build.py, which reads PyPI) import it, never the diagnosis."""
