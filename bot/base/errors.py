"""Errors the user fixes in how vllm-doctor is called or set up, and the one way the command line
says them: one line on stderr, no traceback, exit code 2.

The exit codes of every `vllm-doctor` command: 0 done; 1 done, and what it checked has problems
(`rules lint` found some, a repro's failure was reproduced); 2 it could not do what was asked
(a usage mistake, a setting, a database it cannot read or that was never migrated, a busy port).
"""

from __future__ import annotations

import argparse
import errno
import os
import sys

USAGE_EXIT = 2


class SetupError(Exception):
    """A setting, an argument or the machine (a busy port) is wrong; str() says which and how to
    fix it, in one line. The command line prints it without a traceback and exits 2."""


def _columns() -> int:
    """What shutil.get_terminal_size() gives argparse ($COLUMNS, the terminal, else 80), without
    importing shutil, which brings zlib, bz2 and lzma: 3 ms of every cold start."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        super().__init__(prog, indent_increment, max_help_position, width if width is not None else _columns() - 2)


class Parser(argparse.ArgumentParser):
    """argparse, with a usage mistake said in one line (argparse prints the whole usage first,
    which for `serve` buries the one line that says what was wrong)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):          # never returns (exits); typing.NoReturn would cost the cold start 2 ms
        self.exit(USAGE_EXIT, f"{self.prog}: {message} (see {self.prog} --help)\n")


MAX_PORT = 65535


def port_number(text: str | int) -> int:
    """A TCP port to listen on: 1-65535, or 0 for any free one (the tests' choice: the log says
    which). For argparse `type=`; the error names the value, argparse names the option."""
    try:
        value = int(str(text).strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1-{MAX_PORT})") from None
    if not 0 <= value <= MAX_PORT:
        # The kernel would take 70000 modulo 65536 and listen on 4464.
        raise argparse.ArgumentTypeError(f"{value} is not a port number (1-{MAX_PORT})")
    return value


def env_port(name: str, value: str | None, default: int) -> int:
    """The port variable `name` (PORT) holds as `value`: unset or empty is `default`; SetupError
    when it is not a port."""
    text = (value or "").strip()
    if not text:
        return default
    try:
        return port_number(text)
    except argparse.ArgumentTypeError as e:
        raise SetupError(f"{name}={text[:40]}: {e}") from None


def listen_error(error: OSError, host: str, port: int, option: str = "--port or PORT") -> SetupError:
    """A port that cannot be had, as the operator's one line."""
    if error.errno == errno.EADDRINUSE:
        return SetupError(f"port {port} on {host} is already in use (another vllm-doctor?); "
                          f"choose another with {option}")
    if error.errno == errno.EACCES:
        return SetupError(f"port {port} on {host} needs privileges this user lacks; choose one above 1023 with {option}")
    return SetupError(f"cannot listen on {host}:{port}: {error.strerror or error}")
