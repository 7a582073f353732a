/* Compiled rules core for quantum rulesets of at most 16 cells (qttt.analysis.compiled).

   A second implementation of the rules of qttt/engine.py (Board) and the scoring of
   qttt/scoring.py, named by the same rule ids: random playouts that draw from Python's own
   Mersenne Twister state (so a seed gives the same games as `qttt.playout`), perft, positions for
   the engine protocol, and an exact solver for positions near the end. The ruleset arrives as the
   int64 array `fast.config` serialises (layout in qttt/analysis/fast.py); scores are integers
   scaled by a common denominator chosen in Python.

   Vocabulary (the rules this copy implements; tests/project/test_vocabulary.py compares it with
   qttt.variant.Parameters and qttt.scoring.AWARD_TYPES): game quantum; measurer opponent creator;
   two_cycles true false; last_square forced end; untouched keep vanish; end first-line full;
   award 0 per-pattern 1 first-line 2 rank; criteria 0 min-max 1 min-sum. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_mt.h"

#define MAXC 16
#define MAXM 64
#define MAXPAT 64
#define MAXCOMP 8
#define PLACE 0
#define MEASURE 1
#define OVER 2

typedef struct {
    uint8_t cls[MAXC];
    uint8_t ea[MAXM], eb[MAXM];
    uint64_t live;
    uint64_t spk[MAXC];
    uint16_t comp[MAXC];
    uint16_t x, o, open;
    uint8_t move, phase, pending;
} Pos;

typedef struct {
    int type; /* 0 per-pattern, 1 first-line, 2 rank */
    int npat;
    uint16_t mask[MAXPAT];
    uint8_t cells[MAXPAT][MAXC];
    uint8_t ncells[MAXPAT];
    int64_t points;                            /* per-pattern */
    int64_t sole, first, second, neither, tie, dbl; /* first-line; dbl: one player owns 2+ */
    int ncrit;
    int crit[4]; /* 0 min-max, 1 min-sum */
    int nworth;
    int64_t worth[MAXPAT]; /* rank k (1-based) is worth[k-1] */
} Comp;

typedef struct {
    int ncells, creator, two_cycles, forced_last, vanish;
    int nend;
    uint16_t endm[MAXPAT];
    int ncomp;
    Comp comp[MAXCOMP];
    uint8_t pa[MAXC * MAXC], pb[MAXC * MAXC];
    int npairs;
} Rules;

static int ctz64(uint64_t v) { return __builtin_ctzll(v); }
static int popc32(uint32_t v) { return __builtin_popcount(v); }

/* ---- rules (qttt/engine.py _Board) ------------------------------------------------------------ */

static void init_pos(const Rules *r, Pos *p) {
    memset(p, 0, sizeof *p);
    p->open = (uint16_t)((1u << r->ncells) - 1);
    for (int c = 0; c < r->ncells; c++) p->comp[c] = (uint16_t)(1u << c);
    p->move = 1;
    p->phase = PLACE;
}

/* rules end-line, end-full, last-square, turn-after-measure */
static void settle(const Rules *r, Pos *p) {
    for (int i = 0; i < r->nend; i++) {
        uint16_t m = r->endm[i];
        if ((m & p->x) == m || (m & p->o) == m) { p->phase = OVER; return; }
    }
    uint16_t left = p->open;
    if (left == 0 || ((left & (left - 1)) == 0 && !r->forced_last)) p->phase = OVER;
    else p->phase = PLACE;
}

/* rules turn-order, entanglement, cycle-close, last-square */
static void place(const Rules *r, Pos *p, int a, int b) {
    int k = p->move++;
    if (a == b) {
        p->cls[a] = (uint8_t)k;
        if (k & 1) p->x |= (uint16_t)(1u << a); else p->o |= (uint16_t)(1u << a);
        p->open &= (uint16_t)~(1u << a);
        settle(r, p);
        return;
    }
    if (a > b) { int t = a; a = b; b = t; }
    uint64_t bit = 1ull << k;
    p->spk[a] |= bit;
    p->spk[b] |= bit;
    p->ea[k] = (uint8_t)a;
    p->eb[k] = (uint8_t)b;
    p->live |= bit;
    uint16_t ca = p->comp[a];
    if (ca >> b & 1) {
        p->phase = MEASURE;
        p->pending = (uint8_t)k;
    } else {
        uint16_t merged = ca | p->comp[b];
        for (uint32_t m = merged; m; m &= m - 1) p->comp[__builtin_ctz(m)] = merged;
    }
}

/* rules measure-cell, collapse-component, collapse-untouched, then the end checks */
static void measure(const Rules *r, Pos *p, int cell) {
    uint16_t component = p->comp[cell];
    int sm[MAXM], sc[MAXM], sp = 0;
    sm[sp] = p->pending; sc[sp] = cell; sp++;
    while (sp) {
        sp--;
        int m = sm[sp], c = sc[sp];
        p->cls[c] = (uint8_t)m;
        int a = p->ea[m], b = p->eb[m];
        p->live &= ~(1ull << m);
        p->spk[a + b - c] &= ~(1ull << m);
        uint64_t rest = p->spk[c] & ~(1ull << m);
        p->spk[c] = 0;
        while (rest) {
            int j = ctz64(rest);
            rest &= rest - 1;
            sm[sp] = j; sc[sp] = p->ea[j] + p->eb[j] - c; sp++;
        }
    }
    uint16_t xm = p->x;
    for (uint32_t m = component; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        if (p->cls[c] & 1) xm |= (uint16_t)(1u << c);
    }
    p->o |= component & (uint16_t)~xm;
    p->x = xm;
    p->open &= (uint16_t)~component;
    p->pending = 0;
    if (r->vanish && p->live) {
        p->live = 0;
        for (uint32_t m = p->open; m; m &= m - 1) {
            int c = __builtin_ctz(m);
            p->spk[c] = 0;
            p->comp[c] = (uint16_t)(1u << c);
        }
    }
    settle(r, p);
}

static int pair_live(const Pos *p, int a, int b) {
    for (uint64_t l = p->live; l; l &= l - 1) {
        int k = ctz64(l);
        if (p->ea[k] == a && p->eb[k] == b) return 1;
    }
    return 0;
}

/* Legal actions in the engine's order, encoded (placement a*cells+b, measurement -(cell+1)). */
static int legal(const Rules *r, const Pos *p, int32_t *out) {
    int n = 0;
    if (p->phase == OVER) return 0;
    if (p->phase == MEASURE) {
        out[n++] = -(p->ea[p->pending] + 1);
        out[n++] = -(p->eb[p->pending] + 1);
        return n;
    }
    uint16_t op = p->open;
    if ((op & (op - 1)) == 0) { int c = __builtin_ctz(op); out[n++] = c * r->ncells + c; return n; }
    for (uint32_t m = op; m; m &= m - 1) {
        int a = __builtin_ctz(m);
        for (uint32_t q = m & (m - 1); q; q &= q - 1) {
            int b = __builtin_ctz(q);
            if (!r->two_cycles && pair_live(p, a, b)) continue;
            out[n++] = a * r->ncells + b;
        }
    }
    return n;
}

static void apply_code(const Rules *r, Pos *p, int32_t code) {
    if (code < 0) measure(r, p, -code - 1);
    else place(r, p, code / r->ncells, code % r->ncells);
}

/* ---- scoring (qttt/scoring.py), scaled ------------------------------------------------------- */

static int64_t line_key(const Comp *c, int i, const Pos *p) {
    int64_t key = 0;
    for (int k = 0; k < c->ncrit; k++) {
        int v = 0;
        for (int j = 0; j < c->ncells[i]; j++) {
            int m = p->cls[c->cells[i][j]];
            if (c->crit[k] == 0) { if (m > v) v = m; } else v += m;
        }
        key = key * 4096 + v;
    }
    return key;
}

/* rule score-at-end: x and o points of the board as it stands */
static void score(const Rules *r, const Pos *p, int64_t *xs, int64_t *os) {
    int64_t sx = 0, so = 0;
    for (int ci = 0; ci < r->ncomp; ci++) {
        const Comp *c = &r->comp[ci];
        if (c->type == 0) { /* score-per-pattern */
            int nx = 0, no = 0;
            for (int i = 0; i < c->npat; i++) {
                uint16_t m = c->mask[i];
                if ((m & p->x) == m) nx++;
                else if ((m & p->o) == m) no++;
            }
            sx += c->points * nx;
            so += c->points * no;
        } else if (c->type == 1) { /* score-first-line */
            int64_t kx = -1, ko = -1;
            int nx = 0, no = 0;
            for (int i = 0; i < c->npat; i++) {
                uint16_t m = c->mask[i];
                if ((m & p->x) == m) { int64_t k = line_key(c, i, p); nx++; if (kx < 0 || k < kx) kx = k; }
                else if ((m & p->o) == m) { int64_t k = line_key(c, i, p); no++; if (ko < 0 || k < ko) ko = k; }
            }
            if (kx < 0 && ko < 0) { sx += c->neither; so += c->neither; }
            else if (ko < 0) sx += nx > 1 ? c->dbl : c->sole;
            else if (kx < 0) so += no > 1 ? c->dbl : c->sole;
            else if (kx == ko) { sx += c->tie; so += c->tie; }
            else if (kx < ko) { sx += c->first; so += c->second; }
            else { sx += c->second; so += c->first; }
        } else { /* score-rank */
            uint64_t times = 0;
            int tx[MAXPAT], nx = 0, to[MAXPAT], no = 0;
            for (int i = 0; i < c->npat; i++) {
                uint16_t m = c->mask[i];
                int who = (m & p->x) == m ? 1 : (m & p->o) == m ? 2 : 0;
                if (!who) continue;
                int t = 0;
                for (int j = 0; j < c->ncells[i]; j++) if (p->cls[c->cells[i][j]] > t) t = p->cls[c->cells[i][j]];
                times |= 1ull << t;
                if (who == 1) tx[nx++] = t; else to[no++] = t;
            }
            for (int i = 0; i < nx; i++) {
                int k = __builtin_popcountll(times & ((1ull << tx[i]) - 1));
                if (k < c->nworth) sx += c->worth[k];
            }
            for (int i = 0; i < no; i++) {
                int k = __builtin_popcountll(times & ((1ull << to[i]) - 1));
                if (k < c->nworth) so += c->worth[k];
            }
        }
    }
    *xs = sx; *os = so;
}

/* Who owns the better best line of the first first-line component (rule score-first-line):
   0 no such component, 1 x, 2 o, 3 neither owns a line, 4 equal keys. */
static int line_result(const Rules *r, const Pos *p) {
    for (int ci = 0; ci < r->ncomp; ci++) {
        const Comp *c = &r->comp[ci];
        if (c->type != 1) continue;
        int64_t kx = -1, ko = -1;
        for (int i = 0; i < c->npat; i++) {
            uint16_t m = c->mask[i];
            if ((m & p->x) == m) { int64_t k = line_key(c, i, p); if (kx < 0 || k < kx) kx = k; }
            else if ((m & p->o) == m) { int64_t k = line_key(c, i, p); if (ko < 0 || k < ko) ko = k; }
        }
        if (kx < 0 && ko < 0) return 3;
        if (ko < 0) return 1;
        if (kx < 0) return 2;
        return kx == ko ? 4 : kx < ko ? 1 : 2;
    }
    return 0;
}

/* ---- playouts (qttt/engine.py playout, the same draws in the same order) -------------------- */

#define DIGEST0 0xcbf29ce484222325ull
#define DIGESTP 0x100000001b3ull

static uint64_t digest_step(uint64_t h, int64_t v) { return (h ^ (uint64_t)v) * DIGESTP; }

/* One random game from the start; codes (if not NULL) receive its actions. Returns the number of
   actions; p->phase says whether it ended (else it stopped at a deadlock, scored 0-0). */
static int playout(const Rules *r, MT *g, Pos *p, int32_t *codes, uint64_t *digest) {
    init_pos(r, p);
    int n = 0;
    uint64_t h = DIGEST0;
    int cells = r->ncells;
    for (;;) {
        int32_t code;
        if (p->phase == PLACE) {
            int opens[MAXC], m = 0;
            for (uint32_t q = p->open; q; q &= q - 1) opens[m++] = __builtin_ctz(q);
            if (m == 1) {
                code = opens[0] * cells + opens[0];
                place(r, p, opens[0], opens[0]);
            } else if (r->two_cycles) {
                int i = (int)(mt_random(g) * m);
                int j = (int)(mt_random(g) * (m - 1));
                if (j >= i) j++;
                else { int t = i; i = j; j = t; }
                code = opens[i] * cells + opens[j];
                place(r, p, opens[i], opens[j]);
            } else {
                int32_t acts[MAXC * MAXC];
                int k = legal(r, p, acts);
                if (!k) break;
                code = acts[(int)(mt_random(g) * k)];
                place(r, p, code / cells, code % cells);
            }
        } else if (p->phase == MEASURE) {
            int c = mt_random(g) < 0.5 ? p->ea[p->pending] : p->eb[p->pending];
            code = -(c + 1);
            measure(r, p, c);
        } else {
            break;
        }
        if (codes) codes[n] = code;
        h = digest_step(h, code);
        n++;
    }
    if (digest) *digest = h;
    return n;
}

static void final_scores(const Rules *r, const Pos *p, int64_t *xs, int64_t *os) {
    if (p->phase == OVER) score(r, p, xs, os);
    else { *xs = 0; *os = 0; } /* a deadlock ends the playout unscored, as in the engine */
}

/* ---- perft (qttt/conformance/perft.py) ------------------------------------------------------- */

static void perft_walk(const Rules *r, const Pos *p, int level, int depth, uint64_t *counts) {
    int32_t acts[MAXC * MAXC];
    int n = legal(r, p, acts);
    counts[level] += (uint64_t)n;
    if (level + 1 >= depth) return;
    for (int i = 0; i < n; i++) {
        Pos q = *p;
        apply_code(r, &q, acts[i]);
        perft_walk(r, &q, level + 1, depth, counts);
    }
}

/* ---- exact solver for positions near the end ------------------------------------------------ */

typedef struct {
    uint64_t k1, k2;
    int64_t lo, hi;
} Entry;

typedef struct {
    const Rules *r;
    Entry *tt;
    uint64_t mask;
    uint64_t nodes;
} Search;

static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Two independent 64-bit hashes of everything that decides the rest of the game. */
static void pos_key(const Rules *r, const Pos *p, uint64_t *k1, uint64_t *k2) {
    uint64_t a = 0x1234567ull + p->move * 0x100ull + p->phase * 0x10ull + p->pending;
    uint64_t b = a ^ 0xabcdef0123ull;
    for (int c = 0; c < r->ncells; c++) {
        a = mix(a ^ ((uint64_t)c << 56 | (uint64_t)p->cls[c] << 48 | p->spk[c]));
        b = mix(b + 0x9e3779b97f4a7c15ull * ((uint64_t)p->cls[c] << 20 | (uint64_t)c << 8 | p->comp[c]))
            ^ p->spk[c];
    }
    *k1 = a; *k2 = mix(b);
}

static int x_moves(const Rules *r, const Pos *p) {
    if (p->phase == MEASURE) {
        int creator_x = p->pending & 1;
        return r->creator ? creator_x : !creator_x;
    }
    return p->move & 1;
}

static int64_t diff_now(const Rules *r, const Pos *p) {
    int64_t xs, os;
    score(r, p, &xs, &os);
    return xs - os;
}

/* Fail-soft alpha-beta value x - o (scaled); a deadlock is scored as the board stands
   (qttt/analysis/solve.py). */
static int64_t search(Search *s, const Pos *p, int64_t alpha, int64_t beta) {
    const Rules *r = s->r;
    s->nodes++;
    if (p->phase == OVER) return diff_now(r, p);
    uint64_t k1, k2;
    pos_key(r, p, &k1, &k2);
    Entry *e = &s->tt[(k1 ^ k2) & s->mask];
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    if (e->k1 == k1 && e->k2 == k2) {
        lo = e->lo; hi = e->hi;
        if (lo >= beta || lo == hi) return lo;
        if (hi <= alpha) return hi;
        if (lo > alpha) alpha = lo;
        if (hi < beta) beta = hi;
    }
    int32_t acts[MAXC * MAXC];
    int n = legal(r, p, acts);
    int64_t best;
    if (n == 0) {
        best = diff_now(r, p);
    } else {
        int maxi = x_moves(r, p);
        int64_t a = alpha, b = beta;
        best = maxi ? INT64_MIN : INT64_MAX;
        for (int i = 0; i < n; i++) {
            Pos q = *p;
            apply_code(r, &q, acts[i]);
            int64_t v = search(s, &q, a, b);
            if (maxi) { if (v > best) best = v; if (v > a) a = v; }
            else { if (v < best) best = v; if (v < b) b = v; }
            if (a >= b) break;
        }
    }
    if (!(e->k1 == k1 && e->k2 == k2)) { e->k1 = k1; e->k2 = k2; e->lo = INT64_MIN; e->hi = INT64_MAX; }
    if (n == 0 || (best > alpha && best < beta)) { e->lo = e->hi = best; }
    else if (best <= alpha) { if (best < e->hi) e->hi = best; }
    else { if (best > e->lo) e->lo = best; }
    return best;
}

/* ---- API (ctypes) ------------------------------------------------------------------------------ */

void *qc_new(const int64_t *cfg, int64_t ncfg) {
    Rules *r = calloc(1, sizeof(Rules));
    if (!r) return NULL;
    int64_t i = 0;
    int bad = 0;
#define NEXT() (i < ncfg ? cfg[i++] : (bad = 1, 0))
    r->ncells = (int)NEXT();
    r->creator = (int)NEXT();
    r->two_cycles = (int)NEXT();
    r->forced_last = (int)NEXT();
    r->vanish = (int)NEXT();
    (void)NEXT(); /* numbered keys: the solver's */
    if (r->ncells < 1 || r->ncells > MAXC) bad = 1;
    r->nend = (int)NEXT();
    if (r->nend < 0 || r->nend > MAXPAT) { free(r); return NULL; }
    for (int j = 0; j < r->nend; j++) r->endm[j] = (uint16_t)NEXT();
    int nrel = (int)NEXT();
    for (int j = 0; j < nrel; j++) (void)NEXT();
    int nsym = (int)NEXT();
    for (int j = 0; j < nsym * r->ncells; j++) (void)NEXT();
    r->ncomp = (int)NEXT();
    if (r->ncomp < 0 || r->ncomp > MAXCOMP) { free(r); return NULL; }
    for (int j = 0; j < r->ncomp && !bad; j++) {
        Comp *c = &r->comp[j];
        c->type = (int)NEXT();
        c->npat = (int)NEXT();
        if (c->npat < 0 || c->npat > MAXPAT) { bad = 1; break; }
        for (int k = 0; k < c->npat; k++) {
            c->mask[k] = (uint16_t)NEXT();
            c->ncells[k] = 0;
            for (int cell = 0; cell < r->ncells; cell++)
                if (c->mask[k] >> cell & 1) c->cells[k][c->ncells[k]++] = (uint8_t)cell;
        }
        if (c->type == 0) c->points = NEXT();
        else if (c->type == 1) {
            c->sole = NEXT(); c->first = NEXT(); c->second = NEXT(); c->neither = NEXT(); c->tie = NEXT();
            c->dbl = NEXT();
            c->ncrit = (int)NEXT();
            if (c->ncrit < 0 || c->ncrit > 4) { bad = 1; break; }
            for (int k = 0; k < c->ncrit; k++) c->crit[k] = (int)NEXT();
        } else {
            c->nworth = (int)NEXT();
            if (c->nworth < 0 || c->nworth > MAXPAT) { bad = 1; break; }
            for (int k = 0; k < c->nworth; k++) c->worth[k] = NEXT();
        }
    }
#undef NEXT
    if (bad || i != ncfg) { free(r); return NULL; }
    return r;
}

void qc_free(void *h) { free(h); }

int qc_pos_size(void) { return (int)sizeof(Pos); }

void qc_pos_init(const void *h, void *pos) { init_pos(h, pos); }

/* Apply an action after checking it (rule check-order). 0 when applied, else the broken rule:
   1 over-no-action, 2 measure-pending (a placement while a cycle waits), 3 measure-pending
   (nothing to measure), 4 board-cells, 5 place-open, 6 place-distinct, 7 place-two-cycle,
   8 measure-cell, 9 too many moves for this core. kind 0 places (a, b), 1 measures a. */
int qc_apply(const void *h, void *pos, int kind, int a, int b) {
    const Rules *r = h;
    Pos *p = pos;
    if (p->phase == OVER) return 1;
    if (kind == 1) {
        if (p->phase != MEASURE) return 3;
        if (a < 0 || a >= r->ncells) return 4;
        if (a != p->ea[p->pending] && a != p->eb[p->pending]) return 8;
        measure(r, p, a);
        return 0;
    }
    if (p->phase == MEASURE) return 2;
    if (a < 0 || a >= r->ncells || b < 0 || b >= r->ncells) return 4;
    if (!(p->open >> a & 1) || !(p->open >> b & 1)) return 5;
    if (a == b && p->open != (1u << a)) return 6;
    if (a > b) { int t = a; a = b; b = t; }
    if (!r->two_cycles && a != b && pair_live(p, a, b)) return 7;
    if (p->move >= MAXM - 1) return 9;
    place(r, p, a, b);
    return 0;
}

int qc_legal(const void *h, const void *pos, int32_t *out) { return legal(h, pos, out); }

/* The position as plain numbers: phase, move, pending, to-move (0 x, 1 o, -1 none), x score,
   o score (as the board stands), cycle cell mask (0 if none), then per cell its classical move
   number, then per cell its spooky move-number mask. */
void qc_export(const void *h, const void *pos, int64_t *out) {
    const Rules *r = h;
    const Pos *p = pos;
    out[0] = p->phase;
    out[1] = p->move;
    out[2] = p->phase == MEASURE ? p->pending : 0;
    out[3] = p->phase == OVER ? -1 : p->phase == MEASURE ? !x_moves(r, p) : !(p->move & 1);
    int64_t xs = 0, os = 0;
    if (p->phase == OVER) score(r, p, &xs, &os); /* rule score-at-end */
    out[4] = xs;
    out[5] = os;
    int64_t cyc = 0;
    if (p->phase == MEASURE) { /* the closing move plus the path it closes: breadth-first from a */
        int a = p->ea[p->pending], b = p->eb[p->pending];
        int parent[MAXC], queue[MAXC], qh = 0, qt = 0;
        for (int c = 0; c < MAXC; c++) parent[c] = -1;
        parent[a] = a;
        queue[qt++] = a;
        while (qh < qt) {
            int u = queue[qh++];
            for (uint64_t l = p->live & ~(1ull << p->pending); l; l &= l - 1) {
                int k = ctz64(l);
                int v = p->ea[k] == u ? p->eb[k] : p->eb[k] == u ? p->ea[k] : -1;
                if (v >= 0 && parent[v] < 0) { parent[v] = u; queue[qt++] = v; }
            }
        }
        for (int c = b;; c = parent[c]) { cyc |= 1ll << c; if (c == a) break; }
    }
    out[6] = cyc;
    for (int c = 0; c < r->ncells; c++) out[7 + c] = p->cls[c];
    for (int c = 0; c < r->ncells; c++) out[7 + r->ncells + c] = (int64_t)p->spk[c];
}

/* Score of the board as it stands (x, o), whatever the phase. */
void qc_score(const void *h, const void *pos, int64_t *out) { score(h, pos, &out[0], &out[1]); }

/* Action sequences of length 1..depth from the position. */
void qc_perft(const void *h, const void *pos, int depth, uint64_t *counts) {
    for (int i = 0; i < depth; i++) counts[i] = 0;
    if (depth > 0) perft_walk(h, pos, 0, depth, counts);
}

/* `games` random games; per game its number of actions (lens), final x and o (scores, 2 per
   game, 0-0 for a deadlock), phase at the end (phases) and digest of the actions; codes gets the
   actions (capacity cap, NULL for none). The generator state (625 words) is read and updated.
   Returns the number of codes written, or -1 when cap is too small. */
int64_t qc_games(const void *h, uint32_t *state, int64_t games, int32_t *codes, int64_t cap,
                 int32_t *lens, int64_t *scores, int8_t *phases, uint64_t *digests) {
    const Rules *r = h;
    MT g;
    mt_load(&g, state);
    Pos p;
    int32_t buf[2 * MAXM + 4];
    int64_t used = 0;
    for (int64_t i = 0; i < games; i++) {
        uint64_t d;
        int n = playout(r, &g, &p, buf, &d);
        if (codes) {
            if (used + n > cap) return -1;
            memcpy(codes + used, buf, (size_t)n * sizeof *buf);
        }
        used += n;
        int64_t xs, os;
        final_scores(r, &p, &xs, &os);
        if (lens) lens[i] = n;
        if (scores) { scores[2 * i] = xs; scores[2 * i + 1] = os; }
        if (phases) phases[i] = (int8_t)p.phase;
        if (digests) digests[i] = digest_step(digest_step(digest_step(d, p.phase), xs), os);
    }
    mt_store(&g, state);
    return used;
}

/* `games` random games tallied as a histogram of final (x, o): rows of (x, o, count) in hist
   (room for cap rows), and by line result (`line_result`; 5: a deadlock, unfinished).
   Returns the number of rows, or -1 when cap is too small. */
int64_t qc_sample(const void *h, uint32_t *state, int64_t games, int64_t *hist, int64_t cap,
                  int64_t *lines) {
    const Rules *r = h;
    MT g;
    mt_load(&g, state);
    enum { SLOTS = 1 << 14 };
    int32_t *slot = malloc(SLOTS * sizeof *slot);
    if (!slot) return -1;
    for (int i = 0; i < SLOTS; i++) slot[i] = -1;
    int64_t rows = 0;
    Pos p;
    for (int64_t i = 0; i < games; i++) {
        playout(r, &g, &p, NULL, NULL);
        int64_t xs, os;
        final_scores(r, &p, &xs, &os);
        lines[p.phase == OVER ? line_result(r, &p) : 5]++;
        uint64_t k = mix((uint64_t)xs * 0x9e3779b97f4a7c15ull ^ (uint64_t)os) & (SLOTS - 1);
        for (;;) {
            int32_t s = slot[k];
            if (s < 0) {
                if (rows >= cap || rows >= SLOTS / 2) { free(slot); return -1; }
                slot[k] = (int32_t)rows;
                hist[3 * rows] = xs; hist[3 * rows + 1] = os; hist[3 * rows + 2] = 1;
                rows++;
                break;
            }
            if (hist[3 * s] == xs && hist[3 * s + 1] == os) { hist[3 * s + 2]++; break; }
            k = (k + 1) & (SLOTS - 1);
        }
    }
    free(slot);
    mt_store(&g, state);
    return rows;
}

/* Exact value x - o (scaled) of the position within (alpha, beta), fail-soft, with a table of
   2**log2size entries kept between calls in *table (allocated on first use; NULL on failure). */
void *qc_table_new(int log2size) {
    if (log2size < 4) log2size = 4;
    Search *s = calloc(1, sizeof(Search));
    if (!s) return NULL;
    s->tt = calloc((size_t)1 << log2size, sizeof(Entry));
    if (!s->tt) { free(s); return NULL; }
    s->mask = ((uint64_t)1 << log2size) - 1;
    return s;
}

void qc_table_free(void *t) {
    Search *s = t;
    if (!s) return;
    free(s->tt);
    free(s);
}

uint64_t qc_table_nodes(const void *t) { return ((const Search *)t)->nodes; }

int64_t qc_search(const void *h, void *t, const void *pos, int64_t alpha, int64_t beta) {
    Search *s = t;
    s->r = h;
    return search(s, pos, alpha, beta);
}
