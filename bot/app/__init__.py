"""The program: the Discord client, the wiring of every part, start-up, health."""
