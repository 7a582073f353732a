"""The checker of the nested-classical family."""
