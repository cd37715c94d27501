"""`vllm-doctor index ...` in a child process the tests control: the packaged index is $TEST_PACKAGED
(the stack index's $TEST_PACKAGED_STACK), and with $TEST_KILL_AT the process kills itself (SIGKILL:
no clean-up, as a power cut or the OOM killer would) at that point of the update:

    scan     while the new release is scanned
    write    after the new copy's core is written, before its other two files
    switch   with the new copy whole, right before it becomes the one in use
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from bot.diagnose.knowledge.stack import stack_index
from bot.diagnose.knowledge.vllm import installed, pack
from bot.diagnose.knowledge.vllm.build import wheels
from bot.watch import cli, publish


def die(*_args, **_kw):
    os.kill(os.getpid(), signal.SIGKILL)


installed.COPIES.packaged = Path(os.environ["TEST_PACKAGED"])
if os.environ.get("TEST_PACKAGED_STACK"):
    stack_index.COPIES.packaged = Path(os.environ["TEST_PACKAGED_STACK"])
at = os.environ.get("TEST_KILL_AT")
if at == "scan":
    wheels.extract = die
elif at == "write":
    pack.write = die                    # the packs are written after the core
elif at == "switch":
    real = publish._fsync
    publish._fsync = lambda p: die() if p.name == "current.json.tmp" else real(p)

sys.exit(cli.main(sys.argv[1:]))
