"""Analyses of the quantum family: exact game counts (`count`, merged by the keys of `keys`),
solved values (`solve`), fairness of scoring variants (`fairness`), the sources' claims (`claims`)
and the contrasts between built-in rulesets (`contrast`). `qttt analyze` reaches them through the
family's `analyze` tool."""
