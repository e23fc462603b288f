"""One cog per game (its slash commands and drawing), plus /help."""
