"""The checker of the classical family."""
