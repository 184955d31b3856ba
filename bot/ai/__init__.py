"""Orchard's own players: pure strategies beside the engines, never importing discord."""
