"""Errors the user fixes in how vllm-doctor is called or set up."""


class SetupError(Exception):
    """A setting, an argument or the machine (a busy port) is wrong; str() says which and how to
    fix it, in one line. The command line prints it without a traceback and exits 2."""
