"""The server the Slack endpoint and the dashboard run on (waitress, a production WSGI server in pure
Python), and how to stop it from another thread."""

from __future__ import annotations

from typing import Any

from waitress import wasyncore


def stop_server(server: Any) -> None:
    """Stop a server whose .run() is looping in another thread.

    Closing its sockets from outside would pull them from under the select() in that loop;
    instead the loop is woken through waitress's trigger and closes everything itself, which
    ends .run(). Requests already handed to worker threads are allowed to finish.
    """
    trigger = server.trigger
    try:
        trigger.pull_trigger(lambda: wasyncore.close_all(server._map))  # noqa: SLF001
    except OSError:
        # pull_trigger queues the thunk, then writes the wake-up byte. A loop already awake (a
        # worker thread had just pulled the trigger after a response) can run the thunk in
        # between, and the thunk closes the trigger's pipe: the write then fails with EBADF
        # although the server is stopping exactly as asked.
        if not trigger._closed:  # noqa: SLF001
            raise
    server.task_dispatcher.shutdown(cancel_pending=False, timeout=10)
