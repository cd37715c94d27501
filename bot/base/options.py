"""Options every command's parser shares: the answer language (--lang) and team rule packs (--rules)."""

from __future__ import annotations

import argparse
import os

from .errors import Parser, SetupError

LANGS = ("en", "zh")
LANG_ENV = "VLLM_DOCTOR_LANG"


def lang_option(parser: argparse.ArgumentParser) -> None:
    """`--lang en|zh`, default $VLLM_DOCTOR_LANG, else en (checked by default_lang: argparse
    does not check a default against its choices)."""
    parser.add_argument("--lang", choices=LANGS, default=None, help=f"answer language (default: ${LANG_ENV} or en)")


def default_lang(given: str | None) -> str:
    if given:
        return given
    lang = os.environ.get(LANG_ENV, "").strip() or "en"
    if lang not in LANGS:
        raise SetupError(f"{LANG_ENV}={lang} is not a language vllm-doctor answers in: use en or zh")
    return lang


def pack_dir(text: str) -> str:
    if not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text} is not a folder of rules")
    return text


def packs_option() -> argparse.ArgumentParser:
    """`--rules DIR`, repeatable: team rule packs on top of the shipped book (after $VLLM_DOCTOR_LOCAL_RULES's)."""
    parent = Parser(add_help=False)     # its help formatter does not import shutil
    parent.add_argument("--rules", action="append", default=[], type=pack_dir, metavar="DIR",
                        help="a team rule pack to load on top of the shipped rule book (repeatable; "
                             "after those in $VLLM_DOCTOR_LOCAL_RULES)")
    return parent
