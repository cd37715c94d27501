"""systemd's own exit statuses: what the service manager's child exits with when it could not set up the process it
was to run (before its execve), and the journal prints after the unit's name ("vllm.service: Main process exited,
code=exited, status=203/EXEC"; reading/process_end.py reads that line).

- ROWS: number, the name systemd prints (exit_status_to_string in src/basic/exit-status.c, its table
  exit_status_mappings, class "systemd": 200 and up), the symbolic name and the description of man systemd.exec(5),
  "PROCESS EXIT CODES", table "systemd-specific exit codes". Read from systemd 252 (Debian 12, 252.38-1~deb12u1):
  the numbers, names and classes as `systemd-analyze exit-status` prints that table, the descriptions from the same
  package's /usr/share/man/man5/systemd.exec.5.gz, joined by name (the man page names 231 EXIT_APPARMOR_PROFILE, the
  code APPARMOR; it numbers BPF 245 where systemd 252 exits 244: the number is the code's). 255 (EXCEPTION) has no
  description there and is left out.
- The C library's (0 SUCCESS, 1 FAILURE), the LSB's (2-7) and BSD sysexits' (64-78) codes are the program's own
  exit status, which systemd only names: the error is what the program printed above it, so they are not here.

Written by hand from that output (the build machine need not run systemd).
"""

from __future__ import annotations

SOURCE = ("systemd 252 (Debian 12): src/basic/exit-status.c's exit_status_mappings as `systemd-analyze exit-status` "
          "prints them (class systemd); descriptions from man systemd.exec(5), PROCESS EXIT CODES")

# (number, name as systemd prints it, symbolic name, description)
ROWS = [
    (200, 'CHDIR', 'EXIT_CHDIR', 'Changing to the requested working directory failed. See WorkingDirectory= above.'),
    (201, 'NICE', 'EXIT_NICE', 'Failed to set up process scheduling priority (nice level). See Nice= above.'),
    (202, 'FDS', 'EXIT_FDS', 'Failed to close unwanted file descriptors, or to adjust passed file descriptors.'),
    (203, 'EXEC', 'EXIT_EXEC', 'The actual process execution failed (specifically, the execve(2) system call). Most likely this is caused by a missing or non-accessible executable file.'),
    (204, 'MEMORY', 'EXIT_MEMORY', 'Failed to perform an action due to memory shortage.'),
    (205, 'LIMITS', 'EXIT_LIMITS', 'Failed to adjust resource limits. See LimitCPU= and related settings above.'),
    (206, 'OOM_ADJUST', 'EXIT_OOM_ADJUST', 'Failed to adjust the OOM setting. See OOMScoreAdjust= above.'),
    (207, 'SIGNAL_MASK', 'EXIT_SIGNAL_MASK', 'Failed to set process signal mask.'),
    (208, 'STDIN', 'EXIT_STDIN', 'Failed to set up standard input. See StandardInput= above.'),
    (209, 'STDOUT', 'EXIT_STDOUT', 'Failed to set up standard output. See StandardOutput= above.'),
    (210, 'CHROOT', 'EXIT_CHROOT', 'Failed to change root directory (chroot(2)). See RootDirectory=/RootImage= above.'),
    (211, 'IOPRIO', 'EXIT_IOPRIO', 'Failed to set up IO scheduling priority. See IOSchedulingClass=/IOSchedulingPriority= above.'),
    (212, 'TIMERSLACK', 'EXIT_TIMERSLACK', 'Failed to set up timer slack. See TimerSlackNSec= above.'),
    (213, 'SECUREBITS', 'EXIT_SECUREBITS', 'Failed to set process secure bits. See SecureBits= above.'),
    (214, 'SETSCHEDULER', 'EXIT_SETSCHEDULER', 'Failed to set up CPU scheduling. See CPUSchedulingPolicy=/CPUSchedulingPriority= above.'),
    (215, 'CPUAFFINITY', 'EXIT_CPUAFFINITY', 'Failed to set up CPU affinity. See CPUAffinity= above.'),
    (216, 'GROUP', 'EXIT_GROUP', 'Failed to determine or change group credentials. See Group=/SupplementaryGroups= above.'),
    (217, 'USER', 'EXIT_USER', 'Failed to determine or change user credentials, or to set up user namespacing. See User=/PrivateUsers= above.'),
    (218, 'CAPABILITIES', 'EXIT_CAPABILITIES', 'Failed to drop capabilities, or apply ambient capabilities. See CapabilityBoundingSet=/AmbientCapabilities= above.'),
    (219, 'CGROUP', 'EXIT_CGROUP', 'Setting up the service control group failed.'),
    (220, 'SETSID', 'EXIT_SETSID', 'Failed to create new process session.'),
    (221, 'CONFIRM', 'EXIT_CONFIRM', 'Execution has been cancelled by the user. See the systemd.confirm_spawn= kernel command line setting on kernel-command-line(7) for details.'),
    (222, 'STDERR', 'EXIT_STDERR', 'Failed to set up standard error output. See StandardError= above.'),
    (224, 'PAM', 'EXIT_PAM', 'Failed to set up PAM session. See PAMName= above.'),
    (225, 'NETWORK', 'EXIT_NETWORK', 'Failed to set up network namespacing. See PrivateNetwork= above.'),
    (226, 'NAMESPACE', 'EXIT_NAMESPACE', 'Failed to set up mount, UTS, or IPC namespacing. See ReadOnlyPaths=, ProtectHostname=, PrivateIPC=, and related settings above.'),
    (227, 'NO_NEW_PRIVILEGES', 'EXIT_NO_NEW_PRIVILEGES', 'Failed to disable new privileges. See NoNewPrivileges=yes above.'),
    (228, 'SECCOMP', 'EXIT_SECCOMP', 'Failed to apply system call filters. See SystemCallFilter= and related settings above.'),
    (229, 'SELINUX_CONTEXT', 'EXIT_SELINUX_CONTEXT', 'Determining or changing SELinux context failed. See SELinuxContext= above.'),
    (230, 'PERSONALITY', 'EXIT_PERSONALITY', 'Failed to set up an execution domain (personality). See Personality= above.'),
    (231, 'APPARMOR', 'EXIT_APPARMOR_PROFILE', 'Failed to prepare changing AppArmor profile. See AppArmorProfile= above.'),
    (232, 'ADDRESS_FAMILIES', 'EXIT_ADDRESS_FAMILIES', 'Failed to restrict address families. See RestrictAddressFamilies= above.'),
    (233, 'RUNTIME_DIRECTORY', 'EXIT_RUNTIME_DIRECTORY', 'Setting up runtime directory failed. See RuntimeDirectory= and related settings above.'),
    (235, 'CHOWN', 'EXIT_CHOWN', 'Failed to adjust socket ownership. Used for socket units only.'),
    (236, 'SMACK_PROCESS_LABEL', 'EXIT_SMACK_PROCESS_LABEL', 'Failed to set SMACK label. See SmackProcessLabel= above.'),
    (237, 'KEYRING', 'EXIT_KEYRING', 'Failed to set up kernel keyring.'),
    (238, 'STATE_DIRECTORY', 'EXIT_STATE_DIRECTORY', "Failed to set up unit's state directory. See StateDirectory= above."),
    (239, 'CACHE_DIRECTORY', 'EXIT_CACHE_DIRECTORY', "Failed to set up unit's cache directory. See CacheDirectory= above."),
    (240, 'LOGS_DIRECTORY', 'EXIT_LOGS_DIRECTORY', "Failed to set up unit's logging directory. See LogsDirectory= above."),
    (241, 'CONFIGURATION_DIRECTORY', 'EXIT_CONFIGURATION_DIRECTORY', "Failed to set up unit's configuration directory. See ConfigurationDirectory= above."),
    (242, 'NUMA_POLICY', 'EXIT_NUMA_POLICY', "Failed to set up unit's NUMA memory policy. See NUMAPolicy= and NUMAMask= above."),
    (243, 'CREDENTIALS', 'EXIT_CREDENTIALS', "Failed to set up unit's credentials. See LoadCredential= and SetCredential= above."),
    (244, 'BPF', 'EXIT_BPF', 'Failed to apply BPF restrictions. See RestrictFileSystems= above.'),
]


def build() -> dict:
    return {"codes": [list(r) for r in ROWS], "source": [SOURCE]}
