"""Run a command as another uid/gid with no supplementary groups (setpriv's job, where setpriv is missing).
usage: asuser.py UID GID [-u VAR ...] [VAR=VALUE ...] -- CMD ..."""
import os, sys

if __name__ == "__main__":
    uid, gid, rest = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    env = dict(os.environ)
    while rest and rest[0] != "--":
        a = rest.pop(0)
        if a == "-u":
            env.pop(rest.pop(0), None)
        else:
            k, _, v = a.partition("=")
            env[k] = v
    rest.pop(0)
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    os.execvpe(rest[0], rest, env)
