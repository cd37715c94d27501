"""The Slack bot: a bolt App (app.py), its listeners, Block Kit answers and the serve command."""
