"""The nested-classical family (Intelligent Tic-Tac-Toe and its editions): its engine, drawings,
pages, rulebook part and compiled core, behind the Family interface (qttt.family);
`family.FAMILY` is what the registry (qttt.gametype) loads. Nothing outside this package imports it."""
