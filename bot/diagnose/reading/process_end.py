"""What runs a process says of its end, below the process's own output: the one place these wordings are written.

The reader (tracebacks.py) reads each as a line of its own, never the tail of the message above it; the stack's
signal family (knowledge/stack/stack_families.py) reads the signal or the exit status out of the same shapes, through
their named groups. Sources:

- a JetBrains IDE's run console (PyCharm): "Process finished with exit code 139 (interrupted by signal 11:SIGSEGV)"
  (intellij-community, platform/ide-core/.../ProcessTerminatedListener.java, stringifyExitCode: " (interrupted by
  signal " + number + ":" + name + ")"; releases before 2022 wrote ": " with a space; the sentence before the code is
  IdeCoreBundle's finished.with.exit.code.text.message, in the locale's words under a language pack);
- systemd's journal for a unit: "vllm.service: Main process exited, code=killed, status=9/KILL" (src/core/unit.c,
  unit_log_process_exit: "%s exited, code=%s, status=%i/%s%s", sigchld_code_to_string, then signal_to_string for a
  signal, exit_status_to_string for an exit code, "n/a" where that has no name; service.c before v246 wrote the same
  sentence itself; code=dumped where a core was written) and its result, "Failed with result 'signal'."
  (unit_log_failure; service_result_to_string: signal, core-dump, exit-code; the systemd 252 strings of Debian 12's
  libsystemd-core-252.so hold them all);
- Docker: `docker ps -a`'s status column ("Exited (139) 2 minutes ago", docker/cli's formatter from the engine's
  State.String(): "Exited (%d) %s ago"), and `docker inspect`'s State ("ExitCode": 139); only the statuses of a signal
  that ends a process on a fault or from outside, 128 + 4 to 15;
- kubectl describe's state of a container that ended ("Last State:     Terminated", then "Reason:", "Exit Code:",
  "Signal:" where the runtime gave it; kubectl pkg/describe, describeContainerState: "%s:\\tTerminated\\n"): a block of
  its own, under whatever the paste shows above.

The same reporters' words where they say the OOM killer ended it (OOM_END) are like the kernel's own lines, not what
the process printed as it died: systemd 252's "vllm.service: A process of this unit has been killed by the OOM
killer." (libsystemd-core-252.so), 254+'s "The kernel OOM killer killed some processes in this unit.", systemd-oomd's
"systemd-oomd killed 3 process(es) in this unit.", the result "Failed with result 'oom-kill'.", and docker inspect's
"OOMKilled": true.
"""

from __future__ import annotations

from bot.base.lazyre import LazyRe

# --- the shapes, each written once -----------------------------------------------------------------------------------

# the IDE's words after its sentence ("Process finished with exit code 139" in the locale's words)
IDE_SIGNAL = r"\b\d{1,3} \(interrupted by signal \d{1,2}: ?(?P<ide_signal>SIG[A-Z0-9]{2,8})\)"
# a systemd unit's name, as the journal's message begins ("vllm.service: ")
_UNIT_SUFFIX = r"\.(?:service|scope)"
_UNIT = _UNIT_SUFFIX + r": "
SYSTEMD_SIGNAL = (_UNIT + r"(?:Main|Control) process exited, code=(?:killed|dumped), "
                  r"status=\d{1,2}/(?P<unit_signal>[A-Z0-9]{2,8})")
SYSTEMD_SIGNAL_RESULT = _UNIT + r"Failed with result '(?:signal|core-dump)'\.?"
DOCKER_EXITED = r"Exited \((?P<docker_status>\d{1,3})\) (?:\d+|an?|About an?|Less than a) \w+ ago"
# the row of `docker ps -a` the status stands in: the container's id, its image, command, created, and after the
# status its ports and name
_DOCKER_ROW = r"(?:[0-9a-f]{12} +\S[^\n]{0,400}? +)?"
DOCKER_EXIT_CODE = r'"ExitCode": (?P<docker_exit_code>1(?:3[2-9]|4[0-3])),?'
# systemd's report of a unit's process that ended with an exit status, not a signal: the journal's "vllm.service: Main
# process exited, code=exited, status=203/EXEC" (releases before v236 began "main process exited"), its result "Failed
# with result 'exit-code'.", and `systemctl status`'s "Main PID: 2176 (code=exited, status=203/EXEC)", "Process: 2176
# ExecStart=/opt/venv/bin/vllm serve ... (code=exited, status=203/EXEC)" (src/systemctl/systemctl-show.c: " (code=%s, ",
# "status=%i", "/%s": the words in systemd 252's systemctl). The name after the status is exit_status_to_string's
# (src/basic/exit-status.c: the C library's, the LSB's, the BSD sysexits', systemd's own 200 and up), "n/a" where it has
# none. Before it runs the command, systemd's child logs the step it failed at (src/core/execute.c: "Failed at step %s
# spawning %s: %m", the step named as its exit status; systemd 252 first "Failed to locate executable %s: %m" where the
# command is not found, before it exits with EXEC): messages of systemd's own, the unit's name first
UNIT_STATUS = r"code=exited, status=(?P<unit_status>\d{1,3})/(?P<unit_status_name>[A-Z][A-Z_]{1,30}|n/a)"
_SYSTEMD_EXITED = _UNIT + r"(?:[Mm]ain|Control) process exited, "
_EXEC_LINE = r"Process: \d+ Exec\w{2,20}="
_SYSTEMCTL_PROCESS = r"(?:Main PID: \d+|" + _EXEC_LINE + r"[^\n]{0,400}?) \("
SYSTEMD_EXIT_RESULT = _UNIT + r"(?:Failed with result 'exit-code'|Unit entered failed state)\.?"
_STEP = r"Failed at step (?P<unit_step>[A-Z][A-Z_]{1,30}) spawning "
_LOCATE = r"(?P<unit_locate>Failed to locate executable) "
SYSTEMD_STEP = _UNIT + r"(?:" + _STEP + r"|" + _LOCATE + r")"
OOM_UNIT_WORDS = (r"A process of this unit has been killed by the OOM killer|The kernel OOM killer killed some processes "
                  r"in this unit|systemd-oomd killed (?:\d+|some) process\(es\) in this unit|Failed with result 'oom-kill'")

# A line of its own that says how the process ended (the reader's _NATIVE ends its alternatives with it)
PROCESS_END = (r"[^\n]{0,60}?" + IDE_SIGNAL
               + r"|\S{1,200}" + SYSTEMD_SIGNAL
               + r"|\S{1,200}" + SYSTEMD_SIGNAL_RESULT
               + r"|" + _DOCKER_ROW + DOCKER_EXITED + r"(?: {2,}\S[^\n]{0,200})?"
               + r"|" + DOCKER_EXIT_CODE)
OOM_END = LazyRe(r"^(?:\S{1,200}" + _UNIT + r"(?:" + OOM_UNIT_WORDS + r")\.?|\"OOMKilled\": true,?)$")
TERMINATED_STATE = LazyRe(r"^(?:Last )?State: +Terminated$")
# systemd's lines for a unit whose process exited with a status (or never ran its command): each a message of its own,
# never the tail of the record above it, and no native one (a status says the program failed, not how)
UNIT_EXIT = LazyRe(r"^(?:\S{1,200}" + _SYSTEMD_EXITED + r"|" + _SYSTEMCTL_PROCESS + r")" + UNIT_STATUS + r"\)?$"
                   r"|^\S{1,200}(?:" + SYSTEMD_EXIT_RESULT + r"|" + SYSTEMD_STEP + r"[^\n]{1,400})$")

_UNIT_WORDS = ("code=exited", "Failed with result", "failed state", "Failed at step", "Failed to locate")


def unit_exit(body: str):
    """UNIT_EXIT's match for a line, tried only where one of its words is in it (most lines have none)."""
    return UNIT_EXIT.match(body) if any(w in body for w in _UNIT_WORDS) else None


# systemd's status (or the step its child failed at) anywhere in a message, for the stack's unit-exit family; the unit
# the message names, and the command the child could not run (the step's, or systemctl status's "Process:" line's)
UNIT_STATUS_IN = LazyRe(r"(?:" + _SYSTEMD_EXITED + r"|" + _SYSTEMCTL_PROCESS + r")" + UNIT_STATUS + r"|" + SYSTEMD_STEP)
UNIT_NAME = LazyRe(r"(?:^|\s)(?P<unit>[\w@.:-]{1,200}" + _UNIT_SUFFIX + r"): ")
UNIT_COMMAND = LazyRe(r"(?:" + _STEP + r"|" + _LOCATE + r"|" + _EXEC_LINE + r")(?P<command>[^\s:]{1,400})")

# Lower-cased words every such line has, for the reader's keyword scan of a long paste (its first pass)
KEYWORDS = ("interrupted by signal", "code=dumped", "exited (", "\"exitcode\": 1",
            # kubectl describe's "Last State:     Terminated" (TERMINATED_STATE), its block's first line
            "terminated",
            # systemd's for a unit's process that exited with a status (UNIT_EXIT)
            "code=exited", "failed at step", "failed to locate executable")
# The same words as the lines hold them, for the reader's test of a line before the regex (_NATIVE_WORDS)
NATIVE_WORDS = ("interrupted by signal", " process exited, code=", "Failed with result '", "Exited (", '"ExitCode": 1')

# --- what the signal family reads out of them --------------------------------------------------------------------------

IDE_REPORT = LazyRe(IDE_SIGNAL + r"$")
SYSTEMD_REPORT = LazyRe(SYSTEMD_SIGNAL + r"$")
DOCKER_STATE = LazyRe(r"\b" + DOCKER_EXITED + r"|^" + DOCKER_EXIT_CODE + r"$")
# kubectl describe's block under TERMINATED_STATE, as the message it makes: the exit status, and the signal where given
K8S_TERMINATED = LazyRe(r"(?:^|\s)Reason: +\w+\s+(?:Message: [^\n]{0,400}?\s)?Exit Code: +(?P<code>\d{1,3})"
                        r"(?:\s+Signal: +(?P<number>\d{1,2})\b)?")
