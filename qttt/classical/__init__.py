"""The classical family: n×n tic-tac-toe, k in a row winning (a worked example of adding a family:
this package and one entry in qttt.gametype)."""
