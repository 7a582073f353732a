"""Verification of rulesets: Z3 proofs of the graph and collapse rules, enumeration cross-checks."""
