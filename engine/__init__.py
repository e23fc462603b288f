"""The rules of cardtable's games: pure, synchronous, deterministic (no discord, no I/O)."""
