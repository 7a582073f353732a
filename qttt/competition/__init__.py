"""Competitions built on the rules core: the referee of refereed games (`referee`), matches and
round robins (`match`), the CodeCup 2012 dialogue (`codecup`) and the Russian school tour
(`tour`)."""
