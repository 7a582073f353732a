"""The checker of the quantum family: the properties of its catalogue, settled by Z3, exhaustive walks
and sampled games."""
