"""What people click and type: lobby buttons, moves, slash commands, the host's controls."""
