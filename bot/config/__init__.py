"""Settings as data: the process's ``.env`` settings and each server's ``/settings``."""
