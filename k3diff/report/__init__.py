"""Renderers: turn result values into text, JSON and Markdown."""
