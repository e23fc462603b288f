"""Discord's presentation: every message, embed, picture, button, menu and custom_id.

It draws tables and hands from ``bot.table``'s state and answers interactions; it never
imports a feature, an action, the bot's own play or the app (they plug into it).
"""
