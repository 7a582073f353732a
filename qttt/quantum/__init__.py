"""The quantum family (Goff's quantum tic-tac-toe and its variants): its engine, game, scoring,
notation, drawings, pages, analyses and compiled core, behind the Family interface (qttt.family);
`family.FAMILY` is what the registry (qttt.gametype) loads. Nothing outside this package imports it."""
