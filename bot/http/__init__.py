"""The HTTP edge shared by the Slack endpoint and the dashboard: the server they run on."""
