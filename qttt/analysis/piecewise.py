"""Exact polynomials in one variable for piecewise-polynomial values: evaluation, the order of two
polynomials just beside a point (their germs), and real roots isolated exactly (Sturm sequences).

An expectimax value over a probability p is a polynomial in p on each piece of [1/2, 1] where the
players' best choices stay the same. A search that compares values as they stand just right (or
left) of a point finds the polynomial of the piece next to it; the roots of that polynomial locate
where the value crosses zero. Everything here is exact (`fractions.Fraction`); standard library only.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb, gcd, lcm

F = Fraction


def _trim(cs: Iterable[Fraction | int]) -> tuple[Fraction, ...]:
    out = [F(c) for c in cs]
    while out and out[-1] == 0:
        out.pop()
    return tuple(out)


def germ_sign(coefficients: Sequence[Fraction | int], x: Fraction, side: int) -> int:
    """The sign of the polynomial Σ c_k t^k at the points just right (side +1) or just left (-1) of
    x: the sign of its first non-zero Taylor coefficient at x, times (-1)^j on the left; 0 for the
    zero polynomial."""
    top = len(coefficients) - 1
    while top >= 0 and coefficients[top] == 0:
        top -= 1
    for j in range(top + 1):
        t = sum((coefficients[k] * comb(k, j) * x ** (k - j) for k in range(j, top + 1)), F(0))
        if t:
            s = 1 if t > 0 else -1
            return -s if side < 0 and j & 1 else s
    return 0


@dataclass(frozen=True)
class Polynomial:
    """c[0] + c[1] t + c[2] t² + ..., exact; the zero polynomial has no coefficients."""

    coefficients: tuple[Fraction, ...]

    @classmethod
    def of(cls, coefficients: Iterable[Fraction | int], scale: int = 1) -> Polynomial:
        """The polynomial with these coefficients (ascending powers), each divided by `scale`."""
        return cls(_trim(F(c) / scale for c in coefficients))

    @property
    def degree(self) -> int:
        """The degree (-1 for the zero polynomial)."""
        return len(self.coefficients) - 1

    def __call__(self, x: Fraction) -> Fraction:
        v = F(0)
        for c in reversed(self.coefficients):
            v = v * x + c
        return v

    def __add__(self, other: Polynomial) -> Polynomial:
        a, b = self.coefficients, other.coefficients
        n = max(len(a), len(b))
        return Polynomial(_trim((a[i] if i < len(a) else 0) + (b[i] if i < len(b) else 0) for i in range(n)))

    def __neg__(self) -> Polynomial:
        return Polynomial(tuple(-c for c in self.coefficients))

    def __sub__(self, other: Polynomial) -> Polynomial:
        return self + -other

    def __mul__(self, other: Polynomial) -> Polynomial:
        a, b = self.coefficients, other.coefficients
        if not a or not b:
            return Polynomial(())
        out = [F(0)] * (len(a) + len(b) - 1)
        for i, x in enumerate(a):
            for j, y in enumerate(b):
                out[i + j] += x * y
        return Polynomial(_trim(out))

    def derivative(self) -> Polynomial:
        return Polynomial(_trim(k * c for k, c in enumerate(self.coefficients) if k))

    def sign_beside(self, x: Fraction, side: int) -> int:
        """The sign just right (side +1) or just left (-1) of x (`germ_sign`)."""
        return germ_sign(self.coefficients, x, side)

    def divmod(self, d: Polynomial) -> tuple[Polynomial, Polynomial]:
        """Quotient and remainder of polynomial division by d (not zero)."""
        rem = list(self.coefficients)
        dc = d.coefficients
        q = [F(0)] * max(len(rem) - len(dc) + 1, 0)
        while len(rem) >= len(dc) and any(rem):
            k = len(rem) - len(dc)
            f = rem[-1] / dc[-1]
            q[k] = f
            for i, c in enumerate(dc):
                rem[k + i] -= f * c
            rem = list(_trim(rem))
        return Polynomial(_trim(q)), Polynomial(_trim(rem))

    def monic(self) -> Polynomial:
        lead = self.coefficients[-1]
        return Polynomial(tuple(c / lead for c in self.coefficients))

    def gcd(self, other: Polynomial) -> Polynomial:
        """The monic greatest common divisor (zero only if both are zero)."""
        a, b = self, other
        while b.coefficients:
            a, b = b, a.divmod(b)[1]
        return a.monic() if a.coefficients else a

    def squarefree(self) -> Polynomial:
        """The product of the distinct irreducible factors (the same roots, each simple)."""
        g = self.gcd(self.derivative())
        return self.divmod(g)[0].monic() if g.degree > 0 else self.monic()

    def primitive(self) -> tuple[int, ...]:
        """Integer coefficients with no common factor and a positive leading one, of the same roots."""
        den = lcm(*(c.denominator for c in self.coefficients))
        ints = [int(c * den) for c in self.coefficients]
        g = gcd(*ints)
        sign = -1 if ints[-1] < 0 else 1
        return tuple(sign * i // g for i in ints)

    def sturm(self) -> list[Polynomial]:
        """The Sturm sequence of the square-free part."""
        seq = [self.squarefree()]
        seq.append(seq[0].derivative())
        while seq[-1].degree > 0:
            r = seq[-2].divmod(seq[-1])[1]
            if not r.coefficients:
                break
            seq.append(-r)
        return seq

    def roots(self, lo: Fraction, hi: Fraction, width: Fraction) -> list[Root]:
        """The distinct real roots in [lo, hi], in order, each isolated in an interval narrower than
        `width` (a point when the root is found exactly)."""
        if self.degree < 1:
            return []
        seq = self.sturm()
        base = seq[0]

        def changes(x: Fraction) -> int:
            signs = [s for s in (q(x) for q in seq) if s]
            return sum(1 for u, v in itertools.pairwise(signs) if (u > 0) != (v > 0))

        out: list[Root] = []
        if base(lo) == 0:
            out.append(Root(base, lo, lo))
        stack = [(lo, hi, changes(lo), changes(hi))]
        found: list[Root] = []
        while stack:  # (a, b] holds ca - cb distinct roots
            a, b, ca, cb = stack.pop()
            n = ca - cb
            if n == 0:
                continue
            if n == 1 and b - a < width:
                found.append(Root(base, b, b) if base(b) == 0 else Root(base, a, b))
                continue
            m = (a + b) / 2
            cm = changes(m)
            stack += [(a, m, ca, cm), (m, b, cm, cb)]
        return out + sorted(found, key=lambda r: r.lo)

    def text(self, var: str = "p") -> str:
        """The polynomial in words: 1 − 3/4 p + p^2."""
        terms = []
        for k, c in enumerate(self.coefficients):
            if not c:
                continue
            mag = abs(c)
            power = "" if k == 0 else var if k == 1 else f"{var}^{k}"
            body = str(mag) if k == 0 else power if mag == 1 else f"{mag} {power}"
            terms.append(("−" if c < 0 else "+", body))
        if not terms:
            return "0"
        head = ("−" if terms[0][0] == "−" else "") + terms[0][1]
        return " ".join([head, *(f"{s} {b}" for s, b in terms[1:])])

    def to_json(self) -> list[str]:
        """The coefficients, ascending, as exact strings."""
        return [str(c) for c in self.coefficients]


@dataclass(frozen=True)
class Root:
    """A simple root of `polynomial` (square-free) in [lo, hi] (lo == hi: exactly lo)."""

    polynomial: Polynomial
    lo: Fraction
    hi: Fraction

    @property
    def exact(self) -> Fraction | None:
        """The root, when it is a rational number found exactly."""
        return self.lo if self.lo == self.hi else None

    def narrowed(self, width: Fraction) -> Root:
        """The same root in an interval narrower than `width` (bisection on the sign)."""
        lo, hi = self.lo, self.hi
        q = self.polynomial
        slo = q(lo)
        while hi - lo >= width:
            m = (lo + hi) / 2
            v = q(m)
            if v == 0:
                return Root(q, m, m)
            if (v > 0) == (slo > 0):
                lo, slo = m, v
            else:
                hi = m
        return Root(q, lo, hi)

    def decimal(self, digits: int = 15) -> str:
        """The root rounded to `digits` decimals."""
        r = self if self.exact is not None else self.narrowed(F(1, 10 ** (digits + 2)))
        n = round(r.lo * 10 ** digits)
        sign, n = ("-" if n < 0 else ""), abs(n)
        return f"{sign}{n // 10 ** digits}.{n % 10 ** digits:0{digits}d}"
