"""The maintainers' dashboard: what the bot answered, what it missed, and what to fix next.

Server-rendered HTML with SVG charts on plain WSGI (waitress serves it), Jinja2 templates with
autoescaping, no JavaScript; Sign in with Slack outside localhost. `vllm-doctor dashboard` serves
it alone; `vllm-doctor serve --http` mounts it at /dashboard.
"""
