"""The quantum family: the engine, scoring, notation, drawings, pages, analysis and compiled core
of quantum tic-tac-toe (registered in qttt.games)."""
