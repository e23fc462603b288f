"""Features beside the game: hints, nudges, rematches, series (their click handlers)."""
