"""Helpers shared by test modules (a test module imports from here, not from another test module)."""
