/* Compiled rules core for quantum rulesets (qttt.quantum.compiled): the one C implementation of
   the rules of qttt/quantum/engine.py (Board) and the scoring of qttt/quantum/scoring.py, named by the same rule
   ids, with everything built on top of it: random playouts that draw from Python's own Mersenne
   Twister state (so a seed gives the same games as `qttt.playout`), perft, positions for the engine
   protocol, and an exact alpha-beta solver.

   The same source is compiled twice (qttt.quantum.compiled.BUILDS): QC_CELLS=9 (boards of at most
   9 cells, 32-bit move masks, solver keys canonical under the board's symmetries) and QC_CELLS=16
   (64-bit move masks, solver keys hashed). The ruleset arrives as the int64 array
   `compiled.config` serialises from `qttt.game.Game`; its field names and codes come from
   _config.h, which Python generates from the same declarations (`compiled.config_header`). Scores
   are integers scaled by a common denominator chosen in Python.

   Every stack and buffer is bounded by construction: a position the rules cannot produce (a bug
   in the rules, here or upstream of a test) gets the phase BAD, which no rule produces and from
   which nothing follows (no legal action, no deeper search), and the entry points report it as
   QC_INCONSISTENT, rather than walk it past the end of an array. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_config.h"
#include "_mt.h"

#ifndef QC_CELLS
#define QC_CELLS 16
#endif
#define MAXC QC_CELLS
#if MAXC <= 9
typedef uint32_t moves_t; /* one bit per move number */
typedef int32_t value_t;  /* a scaled score difference in the solver's table */
#define MAXM 32
#define CANONICAL 1
#define VINF 1000000000
#elif MAXC <= 16
typedef uint64_t moves_t;
typedef int64_t value_t;
#define MAXM 64
#define CANONICAL 0
#define VINF ((int64_t)1 << 60)
#else
#error "QC_CELLS is at most 16"
#endif
#define MAXPAT 64
#define MAXREL 256
#define MAXCOMP 8
#define MAXSYM 8
#define NPAIR (MAXC * (MAXC - 1) / 2)
#define NCODES (MAXC * MAXC + 2 * MAXC) /* action codes: a*cells+b placements, cells*cells+c measurements,
                                           cells*cells+cells+c chance outcomes */
#define NOACT 0xFFFF
#define PLACE 0
#define MEASURE 1
#define OVER 2
#define CHANCE 3 /* rule collapse-chance: a measurement has named `chosen`, chance decides */
#define BAD 4 /* the position is inconsistent: a measurement met a mark or a cell twice, or moves ran out */
#define QC_TOO_MANY 9      /* qc_apply: more moves than this build holds */
#define QC_INCONSISTENT 12 /* an entry point met a position the rules cannot produce */

typedef struct {
    uint8_t cls[MAXC];
    uint8_t ea[MAXM], eb[MAXM];
    moves_t live;
    moves_t spk[MAXC];
    uint16_t comp[MAXC];
    uint16_t x, o, open;
    uint8_t move, phase, pending, chosen;
} Pos;

/* One scoring component: its award's fields (as _config.h names them), then its list (first-line:
   criteria codes; rank: the worth of rank k at k-1). */
typedef struct {
    int type;
    int npat;
    uint16_t mask[MAXPAT];
    uint8_t cells[MAXPAT][MAXC];
    uint8_t ncells[MAXPAT];
#define QC_DECLARE(field) int64_t field;
#define QC_DECLARE_AWARD(AWARD) QC_AWARD_##AWARD##_FIELDS(QC_DECLARE)
    QC_AWARDS(QC_DECLARE_AWARD)
#undef QC_DECLARE_AWARD
#undef QC_DECLARE
    int nlist;
    int64_t list[MAXPAT];
} Comp;

typedef struct {
#define QC_DECLARE(field) int64_t field;
    QC_GAME_FIELDS(QC_DECLARE)
#undef QC_DECLARE
    int64_t draw_points;             /* rule score-draw-second: draw_second scaled */
    int nend;
    uint16_t endm[MAXPAT];
    int nrel;
    uint16_t relm[MAXREL];
    int nsym;
    uint8_t perm[MAXSYM][MAXC];
    int ncomp;
    Comp comp[MAXCOMP];
    int sq;                          /* cells * cells: the first measurement code */
    int oc;                          /* sq + cells: the first chance-outcome code */
    uint8_t ca[NCODES], cb[NCODES];  /* the cells of each action code */
    uint8_t pidx[MAXC][MAXC];        /* pair index of two cells */
    uint8_t pairperm[MAXSYM][NPAIR]; /* a pair's index under each symmetry */
} Rules;

#define HOT static inline __attribute__((always_inline))

HOT int ctz(uint64_t v) { return __builtin_ctzll(v); }

HOT int popc(moves_t v) { return sizeof v == 4 ? __builtin_popcount((uint32_t)v) : __builtin_popcountll(v); }

static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ---- rules (qttt/quantum/engine.py Board) -------------------------------------------------------------- */

static void init_pos(const Rules *r, Pos *p) {
    memset(p, 0, sizeof *p);
    p->open = (uint16_t)((1u << r->cells) - 1);
    for (int c = 0; c < r->cells; c++) p->comp[c] = (uint16_t)(1u << c);
    p->move = 1;
    p->phase = PLACE;
}

/* rules end-line, end-full, last-square, turn-after-measure */
HOT void settle(const Rules *r, Pos *p) {
    for (int i = 0; i < r->nend; i++) {
        uint16_t m = r->endm[i];
        if ((m & p->x) == m || (m & p->o) == m) { p->phase = OVER; return; }
    }
    uint16_t left = p->open;
    if (left == 0 || ((left & (left - 1)) == 0 && r->last_square == QC_LAST_SQUARE_END)) p->phase = OVER;
    else p->phase = PLACE;
}

/* rules turn-order, entanglement, cycle-close, last-square */
HOT void place(const Rules *r, Pos *p, int a, int b) {
    if (p->move >= MAXM - 1) { p->phase = BAD; return; } /* no move number left */
    int k = p->move++;
    if (a == b) {
        p->cls[a] = (uint8_t)k;
        if (k & 1) p->x |= (uint16_t)(1u << a); else p->o |= (uint16_t)(1u << a);
        p->open &= (uint16_t)~(1u << a);
        settle(r, p);
        return;
    }
    if (a > b) { int t = a; a = b; b = t; }
    moves_t bit = (moves_t)1 << k;
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
        for (uint32_t m = merged; m; m &= m - 1) p->comp[ctz(m)] = merged;
    }
}

/* rules collapse-component, collapse-untouched, then the end checks: the closing move's mark
   becomes classical in cell */
HOT void collapse_at(const Rules *r, Pos *p, int cell) {
    uint16_t component = p->comp[cell];
    /* each move is pushed at most once (`pushed`), so the stack holds at most MAXM entries; a
       move met again, or a cell filled twice, means the position is inconsistent */
    int sm[MAXM], sc[MAXM], sp = 0;
    moves_t pushed = (moves_t)1 << p->pending;
    uint32_t filled = 0;
    int bad = 0;
    sm[sp] = p->pending; sc[sp] = cell; sp++;
    while (sp) {
        sp--;
        int m = sm[sp], c = sc[sp];
        if (filled >> c & 1) { bad = 1; continue; }
        filled |= 1u << c;
        p->cls[c] = (uint8_t)m;
        int a = p->ea[m], b = p->eb[m];
        moves_t bit = (moves_t)1 << m;
        p->live &= ~bit;
        p->spk[a + b - c] &= ~bit;
        moves_t rest = p->spk[c] & ~bit;
        p->spk[c] = 0;
        while (rest) {
            int j = ctz(rest);
            rest &= rest - 1;
            if (pushed >> j & 1) { bad = 1; continue; }
            pushed |= (moves_t)1 << j;
            sm[sp] = j; sc[sp] = p->ea[j] + p->eb[j] - c; sp++;
        }
    }
    uint16_t xm = p->x;
    for (uint32_t m = component; m; m &= m - 1) {
        int c = ctz(m);
        if (p->cls[c] & 1) xm |= (uint16_t)(1u << c);
    }
    p->o |= component & (uint16_t)~xm;
    p->x = xm;
    p->open &= (uint16_t)~component;
    p->pending = 0;
    p->chosen = 0;
    if (r->untouched == QC_UNTOUCHED_VANISH && p->live) {
        p->live = 0;
        for (uint32_t m = p->open; m; m &= m - 1) {
            int c = ctz(m);
            p->spk[c] = 0;
            p->comp[c] = (uint16_t)(1u << c);
        }
    }
    settle(r, p);
    if (bad) p->phase = BAD;
}

/* rule measure-cell: the measurement names cell; under a chance collapse a chance turn follows
   (rule collapse-chance), else the cell is the outcome */
HOT void measure(const Rules *r, Pos *p, int cell) {
    if (r->collapse == QC_COLLAPSE_CHOICE) { collapse_at(r, p, cell); return; }
    p->phase = CHANCE;
    p->chosen = (uint8_t)cell;
}

/* rule collapse-chance: the outcomes of the chance turn in the engine's order (by cell), each
   with its probability num/den (the cell named p, the other 1 - p; none of probability 0) */
static int chance_outcomes(const Rules *r, const Pos *p, int *cells, int64_t *num, int64_t *den) {
    int n = 0, ends[2] = {p->ea[p->pending], p->eb[p->pending]};
    for (int i = 0; i < 2; i++) {
        int named = ends[i] == p->chosen;
        if (!named && r->p_num == r->p_den) continue;
        cells[n] = ends[i];
        num[n] = named ? r->p_num : r->p_den - r->p_num;
        den[n] = r->p_den;
        n++;
    }
    return n;
}

/* qttt.chance.draw: one random() u = k / 2**53, then the first outcome whose cumulative
   probability exceeds u, compared exactly */
static int draw_outcome(const Rules *r, const Pos *p, MT *g) {
    int cells[2];
    int64_t num[2], den[2];
    int n = chance_outcomes(r, p, cells, num, den);
    uint64_t a = mt_next(g) >> 5, b = mt_next(g) >> 6;
    unsigned __int128 k = (unsigned __int128)(a * 67108864u + b);
    unsigned __int128 sum = 0;
    for (int i = 0; i < n - 1; i++) {
        sum += (unsigned __int128)num[i];
        if (k * (unsigned __int128)den[i] < sum << 53) return cells[i];
    }
    return cells[n - 1];
}

/* rule place-two-cycle: the two cells already hold a live spooky move */
static int pair_live(const Pos *p, int a, int b) {
    for (moves_t l = p->live; l; l &= l - 1) {
        int k = ctz(l);
        if (p->ea[k] == a && p->eb[k] == b) return 1;
    }
    return 0;
}

/* rules measure-by, collapse-chance: whether x chooses now (the second player, o, names the cell
   under collapse = chance-second) */
static int x_moves(const Rules *r, const Pos *p) {
    if (p->phase == MEASURE) {
        if (r->collapse == QC_COLLAPSE_CHANCE_SECOND) return 0;
        int creator_x = p->pending & 1;
        switch (r->measurer) {
            case QC_MEASURER_CREATOR: return creator_x;
            default: return !creator_x;  /* QC_MEASURER_OPPONENT */
        }
    }
    return p->move & 1;
}

/* Legal actions in the engine's order as action codes (rules measure-pending, last-square,
   place-distinct, place-two-cycle). */
HOT int legal(const Rules *r, const Pos *p, int *out) {
    int n = 0;
    if (p->phase == OVER || p->phase == BAD) return 0;
    if (p->phase == MEASURE) {
        out[n++] = r->sq + p->ea[p->pending];
        out[n++] = r->sq + p->eb[p->pending];
        return n;
    }
    if (p->phase == CHANCE) {
        int cells[2];
        int64_t num[2], den[2];
        int k = chance_outcomes(r, p, cells, num, den);
        for (int i = 0; i < k; i++) out[n++] = r->oc + cells[i];
        return n;
    }
    uint16_t op = p->open;
    if ((op & (op - 1)) == 0) { int c = ctz(op); out[n++] = c * r->cells + c; return n; }
    for (uint32_t m = op; m; m &= m - 1) {
        int a = ctz(m);
        for (uint32_t q = m & (m - 1); q; q &= q - 1) {
            int b = ctz(q);
            if (!r->two_cycles && pair_live(p, a, b)) continue;
            out[n++] = a * r->cells + b;
        }
    }
    return n;
}

HOT void apply_code(const Rules *r, Pos *p, int code) {
    if (code >= r->oc) { collapse_at(r, p, r->ca[code]); return; } /* a chance outcome */
    if (code >= r->sq) measure(r, p, r->ca[code]);
    else place(r, p, r->ca[code], r->cb[code]);
}

/* An action code as Python encodes it (qttt/quantum/analysis/count.py encode): -(cell+1) measures,
   -(cells+cell+1) is a chance outcome. */
static int32_t external(const Rules *r, int code) {
    if (code >= r->oc) return -(r->cells + r->ca[code] + 1);
    return code >= r->sq ? -(r->ca[code] + 1) : code;
}

/* An action code from Python's encoding */
static int internal(const Rules *r, int32_t code) {
    if (code < -r->cells) return r->oc + (-code - r->cells - 1);
    return code < 0 ? r->sq - code - 1 : code;
}

/* ---- scoring (qttt/quantum/scoring.py), scaled ---------------------------------------------------------- */

HOT int64_t line_key(const Comp *c, int i, const Pos *p) {
    int64_t key = 0;
    for (int k = 0; k < c->nlist; k++) {
        int v = 0;
        for (int j = 0; j < c->ncells[i]; j++) {
            int m = p->cls[c->cells[i][j]];
            if (c->list[k] == QC_CRITERION_MIN_MAX) { if (m > v) v = m; } else v += m;
        }
        key = key * 4096 + v;
    }
    return key;
}

/* The smallest key of an x line and of an o line (-1: none) and how many each owns. */
HOT void best_lines(const Comp *c, const Pos *p, int64_t *kx, int64_t *ko, int *nx, int *no) {
    *kx = *ko = -1;
    *nx = *no = 0;
    for (int i = 0; i < c->npat; i++) {
        uint16_t m = c->mask[i];
        if ((m & p->x) == m) { int64_t k = line_key(c, i, p); ++*nx; if (*kx < 0 || k < *kx) *kx = k; }
        else if ((m & p->o) == m) { int64_t k = line_key(c, i, p); ++*no; if (*ko < 0 || k < *ko) *ko = k; }
    }
}

/* rule score-at-end: x and o points of the board as it stands */
HOT void score(const Rules *r, const Pos *p, int64_t *xs, int64_t *os) {
    int64_t sx = 0, so = 0;
    for (int ci = 0; ci < r->ncomp; ci++) {
        const Comp *c = &r->comp[ci];
        if (c->type == QC_AWARD_PER_PATTERN) { /* rule score-per-pattern */
            int nx = 0, no = 0;
            for (int i = 0; i < c->npat; i++) {
                uint16_t m = c->mask[i];
                if ((m & p->x) == m) nx++;
                else if ((m & p->o) == m) no++;
            }
            sx += c->points * nx;
            so += c->points * no;
        } else if (c->type == QC_AWARD_FIRST_LINE) { /* rule score-first-line */
            int64_t kx, ko;
            int nx, no;
            best_lines(c, p, &kx, &ko, &nx, &no);
            if (kx < 0 && ko < 0) { sx += c->neither; so += c->neither; }
            else if (ko < 0) sx += nx > 1 ? c->double_line : c->sole;
            else if (kx < 0) so += no > 1 ? c->double_line : c->sole;
            else if (kx == ko) { sx += c->equal; so += c->equal; }
            else if (kx < ko) { sx += c->first; so += c->second; }
            else { sx += c->second; so += c->first; }
        } else { /* rule score-rank */
            moves_t times = 0;
            int tx[MAXPAT], nx = 0, to[MAXPAT], no = 0;
            for (int i = 0; i < c->npat; i++) {
                uint16_t m = c->mask[i];
                int who = (m & p->x) == m ? 1 : (m & p->o) == m ? 2 : 0;
                if (!who) continue;
                int t = 0;
                for (int j = 0; j < c->ncells[i]; j++) if (p->cls[c->cells[i][j]] > t) t = p->cls[c->cells[i][j]];
                times |= (moves_t)1 << t;
                if (who == 1) tx[nx++] = t; else to[no++] = t;
            }
            for (int i = 0; i < nx; i++) {
                int k = popc(times & (((moves_t)1 << tx[i]) - 1));
                if (k < c->nlist) sx += c->list[k];
            }
            for (int i = 0; i < no; i++) {
                int k = popc(times & (((moves_t)1 << to[i]) - 1));
                if (k < c->nlist) so += c->list[k];
            }
        }
    }
    if (sx == so) { sx -= r->draw_points; so += r->draw_points; } /* rule score-draw-second */
    *xs = sx; *os = so;
}

HOT int64_t diff_now(const Rules *r, const Pos *p) {
    int64_t xs, os;
    score(r, p, &xs, &os);
    return xs - os;
}

/* Who owns the better best line of the first first-line component (rule score-first-line):
   0 no such component, 1 x, 2 o, 3 neither owns a line, 4 equal keys. */
static int line_result(const Rules *r, const Pos *p) {
    for (int ci = 0; ci < r->ncomp; ci++) {
        const Comp *c = &r->comp[ci];
        if (c->type != QC_AWARD_FIRST_LINE) continue;
        int64_t kx, ko;
        int nx, no;
        best_lines(c, p, &kx, &ko, &nx, &no);
        if (kx < 0 && ko < 0) return 3;
        if (ko < 0) return 1;
        if (kx < 0) return 2;
        return kx == ko ? 4 : kx < ko ? 1 : 2;
    }
    return 0;
}

/* ---- playouts (qttt/quantum/engine.py playout, the same draws in the same order) -------------------- */

#define DIGEST0 0xcbf29ce484222325ull
#define DIGESTP 0x100000001b3ull

static uint64_t digest_step(uint64_t h, int64_t v) { return (h ^ (uint64_t)v) * DIGESTP; }

/* One random game from the start; codes (if not NULL, room for 4 * MAXM) receive its actions (as
   Python encodes them). Returns the number of actions (-2 when the game outgrows this build's move
   masks, -3 when a position is inconsistent); p->phase says whether it ended (else it stopped at a
   deadlock, scored 0-0). */
static int playout(const Rules *r, MT *g, Pos *p, int32_t *codes, uint64_t *digest) {
    init_pos(r, p);
    int n = 0;
    uint64_t h = DIGEST0;
    int cells = r->cells;
    for (;;) {
        int32_t code;
        if (p->phase == BAD || n >= 4 * MAXM) return -3; /* each placement is measured at most once */
        if (p->phase == PLACE) {
            if (p->move >= MAXM - 1) return -2;
            int opens[MAXC], m = 0;
            for (uint32_t q = p->open; q; q &= q - 1) opens[m++] = ctz(q);
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
                int acts[MAXC * MAXC];
                int k = legal(r, p, acts);
                if (!k) break;
                code = acts[(int)(mt_random(g) * k)];
                place(r, p, r->ca[code], r->cb[code]);
            }
        } else if (p->phase == MEASURE) {
            int c = mt_random(g) < 0.5 ? p->ea[p->pending] : p->eb[p->pending];
            code = -(c + 1);
            measure(r, p, c);
        } else if (p->phase == CHANCE) {
            int c = draw_outcome(r, p, g);
            code = -(cells + c + 1);
            collapse_at(r, p, c);
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

/* Counts the sequences; 0, or QC_INCONSISTENT when an action leads to an inconsistent position. */
static int perft_walk(const Rules *r, const Pos *p, int level, int depth, uint64_t *counts) {
    int acts[NCODES];
    int n = legal(r, p, acts), bad = 0;
    counts[level] += (uint64_t)n;
    if (level + 1 >= depth) return 0;
    for (int i = 0; i < n; i++) {
        Pos q = *p;
        apply_code(r, &q, acts[i]);
        if (q.phase == BAD) { bad = 1; continue; }
        bad |= perft_walk(r, &q, level + 1, depth, counts) != 0;
    }
    return bad ? QC_INCONSISTENT : 0;
}

/* ---- solver: position keys ---------------------------------------------------------------------- */

#if CANONICAL
/* Canonical keys (qttt/quantum/analysis/keys.py numbered_key / owner_key), minimised over the symmetries. */

static uint16_t dead_cells(const Rules *r, const Pos *p) {
    uint16_t live = 0;
    for (int i = 0; i < r->nrel; i++) {
        uint16_t m = r->relm[i];
        if (!((m & p->x) && (m & p->o))) live |= m;
    }
    return (uint16_t)((p->x | p->o) & ~live);
}

static uint16_t map_mask(const Rules *r, int sym, uint16_t m) {
    uint16_t out = 0;
    for (uint32_t q = m; q; q &= q - 1) out |= (uint16_t)(1u << r->perm[sym][ctz(q)]);
    return out;
}

static void pos_key(const Rules *r, const Pos *p, uint64_t *k1, uint64_t *k2) {
    uint16_t dead = dead_cells(r, p);
    uint64_t b1 = ~0ull, b2 = ~0ull;
    if (r->uses_move_numbers) {
        /* items in move-number order: (parity, location), a location being a cell (classical) or
           9 + pair index (live spooky move); the next move's parity closes the list */
        int8_t cellof[MAXM];
        memset(cellof, -1, sizeof cellof);
        for (int c = 0; c < r->cells; c++)
            if (p->cls[c] && !(dead >> c & 1)) cellof[p->cls[c]] = (int8_t)c;
        int loc[MAXC + 2], par[MAXC + 2], n = 0;
        for (int k = 1; k < p->move && n < MAXC + 2; k++) { /* n < MAXC + 2 unless inconsistent */
            if (p->live >> k & 1) { loc[n] = 9 + r->pidx[p->ea[k]][p->eb[k]]; par[n++] = k & 1; }
            else if (cellof[k] >= 0) { loc[n] = cellof[k]; par[n++] = k & 1; }
        }
        uint64_t tail = (uint64_t)n | (uint64_t)(p->move & 1) << 4 | (uint64_t)p->phase << 5;
        for (int sy = 0; sy < r->nsym; sy++) {
            uint64_t h = 0;
            for (int i = 0; i < n; i++) {
                int l = loc[i];
                int ml = l < 9 ? r->perm[sy][l] : 9 + r->pairperm[sy][l - 9];
                h = h << 7 | (uint64_t)(ml << 1 | par[i]);
            }
            uint64_t t = tail | (uint64_t)map_mask(r, sy, dead) << 8;
            if (p->phase == CHANCE) t |= (1 + (uint64_t)r->perm[sy][p->chosen]) << 20;
            if (h < b1 || (h == b1 && t < b2)) { b1 = h; b2 = t; }
        }
    } else {
        /* cell owners (0 open, 1 x, 2 o, 3 dead), sorted owner-labelled spooky moves, pending move */
        int pl[MAXM], po[MAXM], n = 0;
        for (moves_t l = p->live; l; l &= l - 1) {
            int k = ctz(l);
            if ((p->phase == MEASURE || p->phase == CHANCE) && k == p->pending) continue;
            pl[n] = r->pidx[p->ea[k]][p->eb[k]]; po[n++] = k & 1;
        }
        for (int sy = 0; sy < r->nsym; sy++) {
            uint64_t codes[MAXM];
            for (int i = 0; i < n; i++) codes[i] = (uint64_t)(r->pairperm[sy][pl[i]] << 1 | po[i]);
            for (int i = 1; i < n; i++) { /* insertion sort */
                uint64_t v = codes[i]; int j = i - 1;
                while (j >= 0 && codes[j] > v) { codes[j + 1] = codes[j]; j--; }
                codes[j + 1] = v;
            }
            uint64_t h = 0;
            for (int i = 0; i < n; i++) h = h << 7 | codes[i];
            uint64_t cells = 0;
            for (int c = 0; c < r->cells; c++) {
                int code = dead >> c & 1 ? 3 : p->x >> c & 1 ? 1 : p->o >> c & 1 ? 2 : 0;
                cells |= (uint64_t)code << (2 * r->perm[sy][c]);
            }
            uint64_t pend = 0, named = 0;
            if (p->phase == MEASURE || p->phase == CHANCE) {
                int k = p->pending;
                pend = 1 + (uint64_t)(r->pairperm[sy][r->pidx[p->ea[k]][p->eb[k]]] << 1 | (k & 1));
            }
            if (p->phase == CHANCE) named = 1 + (uint64_t)r->perm[sy][p->chosen];
            uint64_t t = cells | pend << 18 | (uint64_t)n << 26 | (uint64_t)(p->move & 1) << 31
                         | (uint64_t)p->phase << 32 | named << 34;
            if (h < b1 || (h == b1 && t < b2)) { b1 = h; b2 = t; }
        }
    }
    *k1 = b1; *k2 = b2;
}
#else
/* Two independent 64-bit hashes of everything that decides the rest of the game. */
static void pos_key(const Rules *r, const Pos *p, uint64_t *k1, uint64_t *k2) {
    uint64_t a = 0x1234567ull + p->move * 0x100ull + p->phase * 0x10ull + p->pending + ((uint64_t)p->chosen << 40);
    uint64_t b = a ^ 0xabcdef0123ull;
    for (int c = 0; c < r->cells; c++) {
        a = mix(a ^ ((uint64_t)c << 56 | (uint64_t)p->cls[c] << 48 | (uint64_t)p->spk[c]));
        b = mix(b + 0x9e3779b97f4a7c15ull * ((uint64_t)p->cls[c] << 20 | (uint64_t)c << 8 | p->comp[c]))
            ^ (uint64_t)p->spk[c];
    }
    *k1 = a; *k2 = mix(b);
}
#endif

/* ---- walk: shape keys (verify/quantum/exhaustive.py shape_key) ----------------------------------

   The checker's walk merges positions whose open cells' entanglement graphs are isomorphic, with the
   pending move marked, the phase and the parity of the next move equal. The key is exact: a
   parenthesis string (AHU codes: bit 0 is '(', 1 is ')'; 2 bits per open cell, so at most 32) after
   8 bits of phase, parity and the pending component's size, left-aligned in 64 bits; codes are
   ordered as Python orders the strings, so the key is the one `shape_code` makes of the Python key. */

typedef struct { uint64_t v; int n; } Code; /* a parenthesis string: bit 0 '(' 1 ')', right-aligned, n bits */

static int code_cmp(Code a, Code b) {
    uint64_t x = a.n ? a.v << (64 - a.n) : 0, y = b.n ? b.v << (64 - b.n) : 0;
    return x < y ? -1 : x > y;
}

#define MAXDEG (2 * MAXC) /* edges at one open cell of a graph the rules make: at most MAXC */
typedef struct {
    int deg[MAXC];
    int8_t nb[MAXC][MAXDEG];
} Graph;

/* AHU code of the tree hanging at v, away from parent and the cells of avoid. */
static Code rooted(const Graph *g, int v, int parent, uint32_t avoid) {
    Code kids[MAXC];
    int n = 0;
    for (int i = 0; i < g->deg[v]; i++) {
        int u = g->nb[v][i];
        if (u == parent || (avoid >> u & 1)) continue;
        Code k = rooted(g, u, v, avoid);
        int j = n - 1;
        while (j >= 0 && code_cmp(kids[j], k) > 0) { kids[j + 1] = kids[j]; j--; }
        kids[j + 1] = k;
        n++;
    }
    Code out = {0, 1};
    for (int i = 0; i < n; i++) { out.v = out.v << kids[i].n | kids[i].v; out.n += kids[i].n; }
    out.v = out.v << 1 | 1; out.n += 1;
    return out;
}

static Code tree_code(const Graph *g, uint32_t cells) {
    int degree[MAXC], left = popc(cells);
    uint32_t removed = 0, leaves = 0;
    for (uint32_t m = cells; m; m &= m - 1) { int c = ctz(m); degree[c] = g->deg[c]; if (degree[c] <= 1) leaves |= 1u << c; }
    while (left > 2) {
        uint32_t nxt = 0;
        for (uint32_t m = leaves; m; m &= m - 1) {
            int leaf = ctz(m);
            removed |= 1u << leaf; left--;
            for (int i = 0; i < g->deg[leaf]; i++) {
                int u = g->nb[leaf][i];
                if (removed >> u & 1) continue;
                if (--degree[u] == 1) nxt |= 1u << u;
            }
        }
        leaves = nxt;
    }
    Code best = {0, 0};
    for (uint32_t m = cells & ~removed; m; m &= m - 1) {
        Code c = rooted(g, ctz(m), -1, 0);
        if (!best.n || code_cmp(c, best) < 0) best = c;
    }
    return best;
}

/* The pending component's code: hanging trees along the cycle from one end of the pending move to the other,
   the lesser direction; n = 0 when the component is not one cycle through the pending move. */
static Code cycle_code(const Pos *p, const Graph *g, uint32_t cells) {
    Code none = {0, 0};
    int degree[MAXC];
    uint32_t core = cells, stack = 0;
    int nmoves = 0;
    for (moves_t l = p->live; l; l &= l - 1) if (cells >> p->ea[ctz(l)] & 1) nmoves++;
    if (nmoves != popc(cells)) return none;
    for (uint32_t m = cells; m; m &= m - 1) { int c = ctz(m); degree[c] = g->deg[c]; if (degree[c] <= 1) stack |= 1u << c; }
    while (stack) {
        int c = ctz(stack); stack &= stack - 1;
        if (!(core >> c & 1)) continue;
        core &= ~(1u << c);
        for (int i = 0; i < g->deg[c]; i++) {
            int u = g->nb[c][i];
            if ((core >> u & 1) && --degree[u] <= 1) stack |= 1u << u;
        }
    }
    int k = p->pending, a = p->ea[k], b = p->eb[k];
    if (!(core >> a & 1) || !(core >> b & 1)) return none;
    int order[MAXC + 1], n = 0, last = k, here = a;
    order[n++] = a;
    while (here != b) {
        int step = -1, found = 0;
        for (moves_t l = p->live; l; l &= l - 1) {
            int j = ctz(l);
            if (j == last || !(core >> p->ea[j] & 1) || !(core >> p->eb[j] & 1)) continue;
            if (p->ea[j] == here || p->eb[j] == here) { step = j; found++; }
        }
        if (found != 1 || n > popc(core)) return none;
        last = step;
        here = p->ea[step] == here ? p->eb[step] : p->ea[step];
        order[n++] = here;
    }
    if (n != popc(core)) return none;
    Code seq[MAXC];
    for (int i = 0; i < n; i++) seq[i] = rooted(g, order[i], -1, core);
    Code fw = {0, 0}, bw = {0, 0};
    for (int i = 0; i < n; i++) {
        fw.v = fw.v << seq[i].n | seq[i].v; fw.n += seq[i].n;
        bw.v = bw.v << seq[n - 1 - i].n | seq[n - 1 - i].v; bw.n += seq[n - 1 - i].n;
    }
    return code_cmp(bw, fw) < 0 ? bw : fw;
}

#define ODD_KEY (~(uint64_t)0)
#define CHANCE_KEY (~(uint64_t)1) /* a chance turn: the walk keys it by the position itself, not by a class */

/* phase (2 bits), parity of the next move (1), cells of the pending component (5), its code, then the other
   components' tree codes in increasing order; left-aligned. ODD_KEY for a graph of a shape the rules never make. */
static uint64_t shape_key(const Rules *r, const Pos *p) {
    if (p->phase == CHANCE) return CHANCE_KEY;
    Graph g;
    uint32_t open = p->open;
    for (int c = 0; c < r->cells; c++) g.deg[c] = 0;
    for (moves_t l = p->live; l; l &= l - 1) {
        int k = ctz(l), a = p->ea[k], b = p->eb[k];
        if (!(open >> a & 1) || !(open >> b & 1) || g.deg[a] == MAXDEG || g.deg[b] == MAXDEG) return ODD_KEY;
        g.nb[a][g.deg[a]++] = (int8_t)b;
        g.nb[b][g.deg[b]++] = (int8_t)a;
    }
    uint32_t seen = 0;
    Code trees[MAXC], pend = {0, 0};
    int nt = 0, pendcells = 0;
    int pcell = p->phase == MEASURE ? p->ea[p->pending] : -1;
    for (uint32_t m = open; m; m &= m - 1) {
        int c = ctz(m);
        if (seen >> c & 1) continue;
        uint32_t comp = 1u << c, todo = 1u << c;
        while (todo) {
            int v = ctz(todo); todo &= todo - 1;
            for (int i = 0; i < g.deg[v]; i++) { int u = g.nb[v][i]; if (!(comp >> u & 1)) { comp |= 1u << u; todo |= 1u << u; } }
        }
        seen |= comp;
        int edges = 0;
        for (uint32_t q = comp; q; q &= q - 1) edges += g.deg[ctz(q)];
        edges /= 2;
        if (pcell >= 0 && (comp >> pcell & 1)) {
            pend = cycle_code(p, &g, comp);
            if (!pend.n) return ODD_KEY;
            pendcells = popc(comp);
        } else if (edges != popc(comp) - 1) {
            return ODD_KEY;
        } else {
            Code t = tree_code(&g, comp);
            int j = nt - 1;
            while (j >= 0 && code_cmp(trees[j], t) > 0) { trees[j + 1] = trees[j]; j--; }
            trees[j + 1] = t;
            nt++;
        }
    }
    uint64_t key = (uint64_t)p->phase;
    int n = 2;
    key = key << 1 | (p->move & 1); n += 1;
    key = key << 5 | (uint64_t)pendcells; n += 5;
    key = key << pend.n | pend.v; n += pend.n;
    for (int i = 0; i < nt; i++) { key = key << trees[i].n | trees[i].v; n += trees[i].n; }
    return key << (64 - n);
}

/* ---- solver: the value x - o under perfect play (qttt/quantum/analysis/solve.py) ---------------- */

typedef struct {
    uint64_t k1, k2;
    value_t lo, hi;
    uint16_t best;
    uint8_t work, used;
} Entry;

typedef struct {
    const Rules *r;
    Entry *tt;
    uint64_t ttmask;
    uint64_t nodes, stored;
    uint32_t hist[MAXM][NCODES];
} Search;

static Entry *tt_find(Search *s, uint64_t k1, uint64_t k2, int create) {
    uint64_t h = (k1 * 0x9E3779B97F4A7C15ull) ^ (k2 * 0xC2B2AE3D27D4EB4Full);
    h ^= h >> 29;
    uint64_t base = h & s->ttmask & ~3ull;
    Entry *worst = NULL;
    for (int i = 0; i < 4; i++) {
        Entry *e = &s->tt[base + i];
        if (e->used && e->k1 == k1 && e->k2 == k2) return e;
        if (!create) continue;
        if (!e->used) { if (!worst || worst->used) worst = e; }
        else if (!worst || (worst->used && e->work < worst->work)) worst = e;
    }
    if (!create) return NULL;
    if (!worst->used) s->stored++;
    worst->used = 1; worst->k1 = k1; worst->k2 = k2; worst->lo = -VINF; worst->hi = VINF;
    worst->best = NOACT; worst->work = 0;
    return worst;
}

/* The children of p in the order the searches try them: the table's best move, then immediate
   results best for the mover, then history counts (hist: this move number's). kids[i] is p after
   acts[i]; idx lists the i in that order. */
static void order_children(const Rules *r, const Pos *p, const int *acts, int n, int ttbest,
                           const uint32_t *hist, Pos *kids, int *idx) {
    int maxi = x_moves(r, p);
    int64_t key[NPAIR + 2];
    for (int i = 0; i < n; i++) {
        kids[i] = *p;
        apply_code(r, &kids[i], acts[i]);
        int64_t g;
        if (acts[i] == ttbest) g = (int64_t)1 << 62;
        else if (kids[i].phase == OVER) { int64_t v = diff_now(r, &kids[i]); g = ((int64_t)1 << 50) + (maxi ? v : -v) * 4096; }
        else g = hist[acts[i]];
        key[i] = g;
        idx[i] = i;
    }
    for (int i = 1; i < n; i++) {
        int v = idx[i]; int j = i - 1;
        while (j >= 0 && key[idx[j]] < key[v]) { idx[j + 1] = idx[j]; j--; }
        idx[j + 1] = v;
    }
}

/* Fail-soft alpha-beta with a table of bounds; moves ordered by the table's best move, then
   immediate results best for the mover, then history counts. A deadlock is scored as the board
   stands. */
static int64_t search(Search *s, const Pos *p, int64_t alpha, int64_t beta) {
    const Rules *r = s->r;
    s->nodes++;
    if (p->phase == OVER || p->phase == BAD) return diff_now(r, p); /* over, or inconsistent: searched no deeper */
    uint64_t k1, k2;
    pos_key(r, p, &k1, &k2);
    Entry *e = tt_find(s, k1, k2, 0);
    int64_t lo = -VINF, hi = VINF;
    int ttbest = NOACT;
    if (e) {
        lo = e->lo; hi = e->hi; ttbest = e->best;
        if (lo >= beta || lo == hi) return lo;
        if (hi <= alpha) return hi;
    }
    int64_t a = alpha > lo ? alpha : lo, b = beta < hi ? beta : hi;
    int acts[NCODES];
    int n = legal(r, p, acts);
    uint64_t before = s->nodes;
    if (n == 0) { /* deadlock: scored as the board stands */
        int64_t v = diff_now(r, p);
        e = tt_find(s, k1, k2, 1);
        e->lo = e->hi = (value_t)v;
        return v;
    }
    int maxi = x_moves(r, p);
    Pos kids[NPAIR + 2];
    int idx[NPAIR + 2];
    int mv = p->move < MAXM ? p->move : MAXM - 1;
    order_children(r, p, acts, n, ttbest, s->hist[mv], kids, idx);
    int64_t best = maxi ? -VINF - 1 : VINF + 1;
    int bestact = acts[idx[0]];
    for (int ii = 0; ii < n; ii++) {
        int i = idx[ii];
        int64_t v = search(s, &kids[i], a, b);
        if (maxi) {
            if (v > best) { best = v; bestact = acts[i]; if (v > a) a = v; }
        } else {
            if (v < best) { best = v; bestact = acts[i]; if (v < b) b = v; }
        }
        if (a >= b) { s->hist[mv][acts[i]] += 1; break; }
    }
    int64_t a0 = alpha > lo ? alpha : lo, b0 = beta < hi ? beta : hi;
    e = tt_find(s, k1, k2, 1);
    if (best <= a0) { if (best < e->hi) e->hi = (value_t)best; }
    else if (best >= b0) { if (best > e->lo) e->lo = (value_t)best; }
    else { e->lo = e->hi = (value_t)best; }
    if (e->lo < lo) e->lo = (value_t)lo;
    if (e->hi > hi) e->hi = (value_t)hi;
    e->best = (uint16_t)bestact;
    uint64_t work = s->nodes - before;
    int w = 0;
    while (work >>= 1) w++;
    if (w > e->work) e->work = (uint8_t)w;
    return best;
}

/* ---- expectimax: a chance ruleset's value as a polynomial in p (qttt/quantum/analysis/expectimax.py) ----

   Under a chance collapse (rule collapse-chance) a chance turn is worth other + p (named - other)
   and each player takes the best child, so the value of a position is a piecewise polynomial in p.
   A game has at most cells / 2 chance turns (each collapse makes at least two cells classical), so
   every value is a polynomial of degree at most DEG with integer coefficients (scores scaled), in
   powers of p. The search compares values as they stand just right (side +1) or just left (side -1)
   of a point p0 = pa / pb: by the sign of the first non-zero Taylor coefficient of their difference
   at p0 (times (-1)^j on the left), computed exactly. Alpha-beta over that total order returns the
   polynomial of the piece of the value next to p0; its value at p0 is the value there. Both outcomes
   of a chance turn are searched whatever the ruleset's p (the other one has weight 1 - p, zero at
   p = 1), with the full window: a chance turn's value is exact. A table holds one point. */

#define DEG (MAXC / 2)
#define ELIMIT ((int64_t)1 << 29) /* a value's coefficients stay below this (else overflow is reported) */
#define EINF ((int64_t)1 << 30)   /* the window's infinities, as constant polynomials */
#define NL ((DEG * 63 + 40 + 63) / 64 + 1) /* limbs of the exact sign: pb**DEG * 2**40 with a sign bit */

typedef struct { int64_t c[DEG + 1]; } Poly;
typedef struct { uint64_t w[NL]; } Big; /* two's complement */

typedef struct {
    uint64_t k1, k2;
    int32_t lo[DEG + 1], hi[DEG + 1];
    uint16_t best;
    uint8_t work, used;
} PEntry;

typedef struct {
    const Rules *r;
    PEntry *tt;
    uint64_t ttmask;
    uint64_t nodes, stored;
    uint64_t pa, pb; /* the point p0 = pa / pb */
    int side;        /* +1: just right of p0, -1: just left */
    int overflow;    /* a coefficient reached ELIMIT (or a value's degree DEG + 1) */
    uint32_t hist[MAXM][NCODES];
} ESearch;

static void big_set(Big *x, int64_t v) {
    x->w[0] = (uint64_t)v;
    for (int i = 1; i < NL; i++) x->w[i] = v < 0 ? ~0ull : 0;
}

static void big_mul(Big *x, uint64_t m) { /* modulo 2**(64 NL): exact while the product fits */
    unsigned __int128 carry = 0;
    for (int i = 0; i < NL; i++) {
        unsigned __int128 t = (unsigned __int128)x->w[i] * m + carry;
        x->w[i] = (uint64_t)t;
        carry = t >> 64;
    }
}

static void big_add(Big *x, const Big *y) {
    unsigned __int128 carry = 0;
    for (int i = 0; i < NL; i++) {
        unsigned __int128 t = (unsigned __int128)x->w[i] + y->w[i] + carry;
        x->w[i] = (uint64_t)t;
        carry = t >> 64;
    }
}

static int big_sign(const Big *x) {
    if (x->w[NL - 1] >> 63) return -1;
    for (int i = 0; i < NL; i++)
        if (x->w[i]) return 1;
    return 0;
}

static const int64_t BINOM[DEG + 1][DEG + 1] = {
#if DEG == 4
    {1}, {1, 1}, {1, 2, 1}, {1, 3, 3, 1}, {1, 4, 6, 4, 1}
#elif DEG == 8
    {1}, {1, 1}, {1, 2, 1}, {1, 3, 3, 1}, {1, 4, 6, 4, 1}, {1, 5, 10, 10, 5, 1}, {1, 6, 15, 20, 15, 6, 1},
    {1, 7, 21, 35, 35, 21, 7, 1}, {1, 8, 28, 56, 70, 56, 28, 8, 1}
#else
#error "binomials for this DEG"
#endif
};

/* The sign of polynomial d (DEG + 1 coefficients) just beside the point: the j-th Taylor coefficient
   at p0 = pa/pb is pb**-M * sum_m d[j+m] C(j+m, j) pa**m pb**(M-m) (M = the degree - j), evaluated
   exactly by Horner's rule in NL limbs. */
static int germ_sign(const ESearch *s, const int64_t *d) {
    int top = DEG;
    while (top >= 0 && d[top] == 0) top--;
    if (top < 0) return 0;
    if (top == 0) return d[0] > 0 ? 1 : -1;
    if (top <= 4 && s->pb < (1u << 16)) { /* every term below 2**98: exact in 128 bits */
        for (int j = 0; j <= top; j++) {
            __int128 g = (__int128)d[top] * BINOM[top][j];
            for (int i = top - j - 1; i >= 0; i--) {
                __int128 t = (__int128)d[j + i] * BINOM[j + i][j];
                for (int k = 0; k < top - j - i; k++) t *= (__int128)s->pb;
                g = g * (__int128)s->pa + t;
            }
            if (g) { int sg = g > 0 ? 1 : -1; return (j & 1) && s->side < 0 ? -sg : sg; }
        }
        return 0;
    }
    for (int j = 0; j <= top; j++) {
        int m = top - j;
        Big g, t;
        big_set(&g, d[top] * BINOM[top][j]);
        for (int i = m - 1; i >= 0; i--) {
            big_mul(&g, s->pa);
            big_set(&t, d[j + i] * BINOM[j + i][j]);
            for (int k = 0; k < m - i; k++) big_mul(&t, s->pb);
            big_add(&g, &t);
        }
        int sg = big_sign(&g);
        if (sg) return (j & 1) && s->side < 0 ? -sg : sg;
    }
    return 0; /* unreachable: a non-zero polynomial has a non-zero Taylor coefficient */
}

static int pcmp(const ESearch *s, const Poly *x, const Poly *y) {
    int64_t d[DEG + 1];
    for (int k = 0; k <= DEG; k++) d[k] = x->c[k] - y->c[k];
    return germ_sign(s, d);
}

static void pconst(Poly *x, int64_t v) {
    memset(x, 0, sizeof *x);
    x->c[0] = v;
}

static int pequal(const Poly *x, const Poly *y) { return memcmp(x, y, sizeof *x) == 0; }

static void pload(Poly *x, const int32_t *c) { for (int k = 0; k <= DEG; k++) x->c[k] = c[k]; }

static void pstore(int32_t *c, const Poly *x) { for (int k = 0; k <= DEG; k++) c[k] = (int32_t)x->c[k]; }

/* rule collapse-chance: the chance turn's value, other + p (named - other) */
static void pmix(ESearch *s, Poly *out, const Poly *named, const Poly *other) {
    if (named->c[DEG] != other->c[DEG]) s->overflow = 1;
    out->c[0] = other->c[0];
    for (int k = 1; k <= DEG; k++) {
        out->c[k] = other->c[k] + named->c[k - 1] - other->c[k - 1];
        if (out->c[k] >= ELIMIT || out->c[k] <= -ELIMIT) s->overflow = 1;
    }
}

static PEntry *ptt_find(ESearch *s, uint64_t k1, uint64_t k2, int create) {
    uint64_t h = (k1 * 0x9E3779B97F4A7C15ull) ^ (k2 * 0xC2B2AE3D27D4EB4Full);
    h ^= h >> 29;
    uint64_t base = h & s->ttmask & ~3ull;
    PEntry *worst = NULL;
    for (int i = 0; i < 4; i++) {
        PEntry *e = &s->tt[base + i];
        if (e->used && e->k1 == k1 && e->k2 == k2) return e;
        if (!create) continue;
        if (!e->used) { if (!worst || worst->used) worst = e; }
        else if (!worst || (worst->used && e->work < worst->work)) worst = e;
    }
    if (!create) return NULL;
    if (!worst->used) s->stored++;
    Poly inf;
    worst->used = 1; worst->k1 = k1; worst->k2 = k2;
    pconst(&inf, -EINF); pstore(worst->lo, &inf);
    pconst(&inf, EINF); pstore(worst->hi, &inf);
    worst->best = NOACT; worst->work = 0;
    return worst;
}

static void work_done(PEntry *e, uint64_t work) {
    int w = 0;
    while (work >>= 1) w++;
    if (w > e->work) e->work = (uint8_t)w;
}

/* Fail-soft alpha-beta over the order beside the point, as `search` (the same move ordering, a
   deadlock scored as the board stands); a chance turn is the exact mix of its two outcomes. */
static void esearch(ESearch *s, const Pos *p, const Poly *alpha, const Poly *beta, Poly *out) {
    const Rules *r = s->r;
    s->nodes++;
    if (p->phase == OVER || p->phase == BAD) { pconst(out, diff_now(r, p)); return; } /* or inconsistent */
    uint64_t k1, k2;
    pos_key(r, p, &k1, &k2);
    PEntry *e = ptt_find(s, k1, k2, 0);
    Poly lo, hi;
    pconst(&lo, -EINF);
    pconst(&hi, EINF);
    int ttbest = NOACT;
    if (e) {
        pload(&lo, e->lo); pload(&hi, e->hi); ttbest = e->best;
        if (pequal(&lo, &hi) || pcmp(s, &lo, beta) >= 0) { *out = lo; return; }
        if (pcmp(s, &hi, alpha) <= 0) { *out = hi; return; }
    }
    uint64_t before = s->nodes;
    if (p->phase == CHANCE) {
        int named = p->chosen, other = p->ea[p->pending] + p->eb[p->pending] - named;
        Pos kn = *p, ko = *p;
        collapse_at(r, &kn, named);
        collapse_at(r, &ko, other);
        Poly vn, vo, ninf, pinf;
        pconst(&ninf, -EINF);
        pconst(&pinf, EINF);
        esearch(s, &kn, &ninf, &pinf, &vn);
        esearch(s, &ko, &ninf, &pinf, &vo);
        pmix(s, out, &vn, &vo);
        e = ptt_find(s, k1, k2, 1);
        pstore(e->lo, out); pstore(e->hi, out);
        work_done(e, s->nodes - before);
        return;
    }
    int acts[NCODES];
    int n = legal(r, p, acts);
    if (n == 0) { /* deadlock: scored as the board stands */
        pconst(out, diff_now(r, p));
        e = ptt_find(s, k1, k2, 1);
        pstore(e->lo, out); pstore(e->hi, out);
        return;
    }
    Poly a = pcmp(s, alpha, &lo) > 0 ? *alpha : lo, b = pcmp(s, beta, &hi) < 0 ? *beta : hi;
    Poly a0 = a, b0 = b;
    int maxi = x_moves(r, p);
    Pos kids[NPAIR + 2];
    int idx[NPAIR + 2];
    int mv = p->move < MAXM ? p->move : MAXM - 1;
    order_children(r, p, acts, n, ttbest, s->hist[mv], kids, idx);
    Poly best;
    pconst(&best, maxi ? -EINF - 1 : EINF + 1);
    int bestact = acts[idx[0]];
    for (int ii = 0; ii < n; ii++) {
        int i = idx[ii];
        Poly v;
        esearch(s, &kids[i], &a, &b, &v);
        if (maxi) {
            if (pcmp(s, &v, &best) > 0) { best = v; bestact = acts[i]; if (pcmp(s, &v, &a) > 0) a = v; }
        } else {
            if (pcmp(s, &v, &best) < 0) { best = v; bestact = acts[i]; if (pcmp(s, &v, &b) < 0) b = v; }
        }
        if (pcmp(s, &a, &b) >= 0) { s->hist[mv][acts[i]] += 1; break; }
    }
    e = ptt_find(s, k1, k2, 1);
    Poly elo, ehi;
    pload(&elo, e->lo); pload(&ehi, e->hi);
    if (pcmp(s, &best, &a0) <= 0) { if (pcmp(s, &best, &ehi) < 0) ehi = best; }
    else if (pcmp(s, &best, &b0) >= 0) { if (pcmp(s, &best, &elo) > 0) elo = best; }
    else elo = ehi = best;
    if (pcmp(s, &elo, &lo) < 0) elo = lo;
    if (pcmp(s, &ehi, &hi) > 0) ehi = hi;
    pstore(e->lo, &elo); pstore(e->hi, &ehi);
    e->best = (uint16_t)bestact;
    work_done(e, s->nodes - before);
    *out = best;
}

/* ---- configuration (qttt.quantum.compiled.config; field names from _config.h) --------------- */

typedef struct { const int64_t *cfg; int64_t n, i; int bad; } Reader;

static int64_t next(Reader *rd) { return rd->i < rd->n ? rd->cfg[rd->i++] : (rd->bad = 1, 0); }

/* A count read from the configuration, refused (bad) outside 0..most. */
static int count(Reader *rd, int most) {
    int64_t v = next(rd);
    if (v < 0 || v > most) { rd->bad = 1; return 0; }
    return (int)v;
}

static void read_component(Reader *rd, const Rules *r, Comp *c) {
    c->type = (int)next(rd);
    c->npat = count(rd, MAXPAT);
    for (int k = 0; k < c->npat; k++) {
        c->mask[k] = (uint16_t)next(rd);
        c->ncells[k] = 0;
        for (int cell = 0; cell < r->cells; cell++)
            if (c->mask[k] >> cell & 1) c->cells[k][c->ncells[k]++] = (uint8_t)cell;
    }
    switch (c->type) {
#define QC_READ(field) c->field = next(rd);
#define QC_CASE(AWARD) case QC_AWARD_##AWARD: QC_AWARD_##AWARD##_FIELDS(QC_READ) break;
        QC_AWARDS(QC_CASE)
#undef QC_CASE
#undef QC_READ
        default: rd->bad = 1; return;
    }
    c->nlist = count(rd, MAXPAT);
    for (int k = 0; k < c->nlist; k++) c->list[k] = next(rd);
}

/* The pair and action-code tables of the board. */
static void tables(Rules *r) {
    r->sq = (int)(r->cells * r->cells);
    r->oc = r->sq + (int)r->cells;
    for (int a = 0; a < r->cells; a++)
        for (int b = 0; b < r->cells; b++) { r->ca[a * r->cells + b] = (uint8_t)a; r->cb[a * r->cells + b] = (uint8_t)b; }
    for (int c = 0; c < r->cells; c++) r->ca[r->sq + c] = r->cb[r->sq + c] = (uint8_t)c;
    for (int c = 0; c < r->cells; c++) r->ca[r->oc + c] = r->cb[r->oc + c] = (uint8_t)c;
    int np = 0;
    for (int a = 0; a < r->cells; a++)
        for (int b = a + 1; b < r->cells; b++) r->pidx[a][b] = r->pidx[b][a] = (uint8_t)np++;
    for (int j = 0; j < r->nsym; j++)
        for (int a = 0; a < r->cells; a++)
            for (int b = a + 1; b < r->cells; b++)
                r->pairperm[j][r->pidx[a][b]] = r->pidx[r->perm[j][a]][r->perm[j][b]];
}

/* ---- API (ctypes) ------------------------------------------------------------------------------ */

void *qc_new(const int64_t *cfg, int64_t ncfg) {
    Rules *r = calloc(1, sizeof(Rules));
    if (!r) return NULL;
    Reader rd = {cfg, ncfg, 0, 0};
#define QC_READ(field) r->field = next(&rd);
    QC_GAME_FIELDS(QC_READ)
#undef QC_READ
    if (r->cells < 1 || r->cells > MAXC) rd.bad = 1;
    /* p from 1/2 to 1 (rule collapse-chance); draw_second a whole number of score units */
    if (r->p_den < 1 || r->p_den > ((int64_t)1 << 62) || r->p_num > r->p_den || 2 * r->p_num < r->p_den) rd.bad = 1;
    if (r->draw_second_den < 1 || r->scale < 1 || r->draw_second_num < 0 || r->scale % r->draw_second_den) rd.bad = 1;
    else r->draw_points = r->scale / r->draw_second_den * r->draw_second_num;
    r->nend = count(&rd, MAXPAT);
    for (int j = 0; j < r->nend; j++) r->endm[j] = (uint16_t)next(&rd);
    r->nrel = count(&rd, MAXREL);
    for (int j = 0; j < r->nrel; j++) r->relm[j] = (uint16_t)next(&rd);
    r->nsym = count(&rd, MAXSYM);
    for (int j = 0; j < r->nsym && !rd.bad; j++)
        for (int c = 0; c < r->cells; c++) {
            int64_t to = next(&rd);
            if (to < 0 || to >= r->cells) rd.bad = 1;
            else r->perm[j][c] = (uint8_t)to;
        }
    r->ncomp = count(&rd, MAXCOMP);
    for (int j = 0; j < r->ncomp && !rd.bad; j++) read_component(&rd, r, &r->comp[j]);
    if (rd.bad || rd.i != ncfg) { free(r); return NULL; }
    tables(r);
    return r;
}

void qc_free(void *h) { free(h); }

int qc_pos_size(void) { return (int)sizeof(Pos); }

void qc_pos_init(const void *h, void *pos) { init_pos(h, pos); }

/* Apply an action after checking it (rule check-order). 0 when applied, else the broken rule:
   1 over-no-action, 2 measure-pending (a placement while a cycle waits), 3 measure-pending
   (nothing to measure), 4 board-cells, 5 place-open, 6 place-distinct, 7 place-two-cycle,
   8 measure-cell, 9 too many moves for this core (QC_TOO_MANY), 10 collapse-chance (another action
   during a chance turn, or an outcome when none is due), 11 collapse-chance (an outcome not offered),
   12 the position is inconsistent (QC_INCONSISTENT: before the action, or the collapse met a mark or
   a cell twice). kind 0 places (a, b), 1 measures a, 2 is the chance outcome a. */
int qc_apply(const void *h, void *pos, int kind, int a, int b) {
    const Rules *r = h;
    Pos *p = pos;
    if (p->phase == BAD) return QC_INCONSISTENT;
    if (p->phase == OVER) return 1;
    if (p->phase == CHANCE || kind == 2) {
        if (p->phase != CHANCE || kind != 2) return 10;
        if (a < 0 || a >= r->cells) return 4;
        int cells[2];
        int64_t num[2], den[2];
        int n = chance_outcomes(r, p, cells, num, den);
        if (!(cells[0] == a || (n > 1 && cells[1] == a))) return 11;
        collapse_at(r, p, a);
        return p->phase == BAD ? QC_INCONSISTENT : 0;
    }
    if (kind == 1) {
        if (p->phase != MEASURE) return 3;
        if (a < 0 || a >= r->cells) return 4;
        if (a != p->ea[p->pending] && a != p->eb[p->pending]) return 8;
        measure(r, p, a);
        return p->phase == BAD ? QC_INCONSISTENT : 0;
    }
    if (p->phase == MEASURE) return 2;
    if (a < 0 || a >= r->cells || b < 0 || b >= r->cells) return 4;
    if (!(p->open >> a & 1) || !(p->open >> b & 1)) return 5;
    if (a == b && p->open != (1u << a)) return 6;
    if (a > b) { int t = a; a = b; b = t; }
    if (!r->two_cycles && a != b && pair_live(p, a, b)) return 7;
    if (p->move >= MAXM - 1) return QC_TOO_MANY;
    place(r, p, a, b);
    return 0;
}

/* The position after encoded actions (as Python encodes them) from the start: 0, or 1 + the index
   of the first action qc_apply refuses (negated when it found the position inconsistent). */
int qc_replay(const void *h, void *pos, const int32_t *codes, int n) {
    const Rules *r = h;
    init_pos(r, pos);
    for (int i = 0; i < n; i++) {
        int32_t code = codes[i];
        int cells = (int)r->cells;
        int refused = code < -cells ? qc_apply(r, pos, 2, -code - cells - 1, 0)
                      : code < 0 ? qc_apply(r, pos, 1, -code - 1, 0)
                                 : qc_apply(r, pos, 0, code / cells, code % cells);
        if (refused) return refused == QC_INCONSISTENT ? -(i + 1) : i + 1;
    }
    return 0;
}

/* Legal actions in the engine's order, as Python encodes them. */
int qc_legal(const void *h, const void *pos, int32_t *out) {
    int acts[NCODES];
    int n = legal(h, pos, acts);
    for (int i = 0; i < n; i++) out[i] = external(h, acts[i]);
    return n;
}

static uint32_t cycle_cells(const Pos *p); /* below, with the walk */

/* The position as plain numbers: phase, move, pending (as held, whatever the phase), to-move
   (0 x, 1 o, 2 chance, -1 none), x score, o score (as the board stands), cycle cell mask (0 if
   none), the cell a chance measurement named (-1 outside a chance turn), then per cell its
   classical move number, then per cell its spooky move-number mask. Returns 0, or QC_INCONSISTENT
   for a position the rules cannot produce (then the cycle mask is 0). */
int qc_export(const void *h, const void *pos, int64_t *out) {
    const Rules *r = h;
    const Pos *p = pos;
    int pending = p->phase == MEASURE || p->phase == CHANCE;
    out[0] = p->phase;
    out[1] = p->move;
    out[2] = p->pending; /* as held: a pending move left after its measurement shows */
    out[3] = p->phase == OVER ? -1 : p->phase == CHANCE ? 2 : p->phase == MEASURE ? !x_moves(r, p) : !(p->move & 1);
    int64_t xs = 0, os = 0;
    if (p->phase == OVER) score(r, p, &xs, &os); /* rule score-at-end */
    out[4] = xs;
    out[5] = os;
    int64_t cyc = 0;
    int bad = p->phase == BAD;
    if (pending) { /* rule cycle-close: the closing move plus the path it closes */
        cyc = cycle_cells(p);
        if (!cyc) bad = 1; /* no path closes the cycle */
    }
    out[6] = cyc;
    out[7] = p->phase == CHANCE ? p->chosen : -1;
    for (int c = 0; c < r->cells; c++) out[8 + c] = p->cls[c];
    for (int c = 0; c < r->cells; c++) out[8 + r->cells + c] = (int64_t)p->spk[c];
    return bad ? QC_INCONSISTENT : 0;
}

/* The outcomes of a chance turn (none outside one) as Python encodes them, each with its exact
   probability num/den: what an expectimax over the core needs. Returns their number. */
int qc_chance(const void *h, const void *pos, int32_t *codes, int64_t *num, int64_t *den) {
    const Rules *r = h;
    const Pos *p = pos;
    if (p->phase != CHANCE) return 0;
    int cells[2];
    int n = chance_outcomes(r, p, cells, num, den);
    for (int i = 0; i < n; i++) codes[i] = -(int32_t)(r->cells + cells[i] + 1);
    return n;
}

/* The solver's key of a position (two words: canonical under the board's symmetries in the 9-cell
   build, hashed in the 16-cell one). */
void qc_key(const void *h, const void *pos, uint64_t *out) { pos_key(h, pos, &out[0], &out[1]); }

/* The walk's shape key of a position (ODD_KEY, all bits set, for a graph the rules never make). */
uint64_t qc_shape_key(const void *h, const void *pos) { return shape_key(h, pos); }

/* The legal actions (as Python encodes them, in the engine's order) and the shape key of the
   position each leads to; their number. */
int qc_child_keys(const void *h, const void *pos, int32_t *codes, uint64_t *keys) {
    const Rules *r = h;
    int acts[NCODES];
    int n = legal(r, pos, acts);
    for (int i = 0; i < n; i++) {
        Pos q = *(const Pos *)pos;
        apply_code(r, &q, acts[i]);
        codes[i] = external(r, acts[i]);
        keys[i] = shape_key(r, &q);
    }
    return n;
}

/* Score of the board as it stands (x, o), whatever the phase. */
void qc_score(const void *h, const void *pos, int64_t *out) { score(h, pos, &out[0], &out[1]); }

/* Action sequences of length 1..depth from the position (a finished game has no continuation).
   Returns 0, or QC_INCONSISTENT when a position on the way is one the rules cannot produce. */
int qc_perft(const void *h, const void *pos, int depth, uint64_t *counts) {
    for (int i = 0; i < depth; i++) counts[i] = 0;
    if (((const Pos *)pos)->phase == BAD) return QC_INCONSISTENT;
    return depth > 0 ? perft_walk(h, pos, 0, depth, counts) : 0;
}

/* `games` random games; per game its number of actions (lens), final x and o (scores, 2 per
   game, 0-0 for a deadlock), phase at the end (phases) and digest of the actions; codes gets the
   actions (capacity cap, NULL for none). The generator state (625 words) is read and updated.
   Returns the number of codes written, or -1 when cap is too small; -2 when a game outgrows this
   build's move masks; -3 when a position is inconsistent. */
int64_t qc_games(const void *h, uint32_t *state, int64_t games, int32_t *codes, int64_t cap,
                 int32_t *lens, int64_t *scores, int8_t *phases, uint64_t *digests) {
    const Rules *r = h;
    MT g;
    mt_load(&g, state);
    Pos p;
    int32_t buf[4 * MAXM + 4];
    int64_t used = 0;
    for (int64_t i = 0; i < games; i++) {
        uint64_t d;
        int n = playout(r, &g, &p, buf, &d);
        if (n < 0) return n;
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

/* `games` random games written as JSON Lines records (qttt random): per game `head`, its actions'
   JSON texts joined by commas (frag from fragoff[i] to fragoff[i+1] for the action coded i: a*cells+b
   places, cells*cells+c measures c, as Python's notation writes them), then `tail`. The generator
   state is read and updated. Returns the bytes written, or -1 when cap is too small; -2 when a game
   outgrows this build's move masks; -3 when a position is inconsistent. */
int64_t qc_jsonl(const void *h, uint32_t *state, int64_t games, const char *frag, const int32_t *fragoff,
                 const char *head, int headlen, const char *tail, int taillen, char *out, int64_t cap) {
    const Rules *r = h;
    MT g;
    mt_load(&g, state);
    Pos p;
    int32_t buf[4 * MAXM + 4];
    int64_t at = 0;
    for (int64_t i = 0; i < games; i++) {
        int n = playout(r, &g, &p, buf, NULL);
        if (n < 0) return n;
        if (at + headlen > cap) return -1;
        memcpy(out + at, head, (size_t)headlen);
        at += headlen;
        for (int k = 0; k < n; k++) {
            int code = internal(r, buf[k]);
            int len = fragoff[code + 1] - fragoff[code];
            if (at + len + 1 + taillen > cap) return -1;
            if (k) out[at++] = ',';
            memcpy(out + at, frag + fragoff[code], (size_t)len);
            at += len;
        }
        if (at + taillen > cap) return -1;
        memcpy(out + at, tail, (size_t)taillen);
        at += taillen;
    }
    mt_store(&g, state);
    return at;
}

/* `games` random games tallied as a histogram of final (x, o): rows of (x, o, count) in hist
   (room for cap rows), and by line result (`line_result`; 5: a deadlock, unfinished).
   Returns the number of rows, or -1 when cap is too small; -2 when a game outgrows this build's
   move masks; -3 when a position is inconsistent. */
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
        int n = playout(r, &g, &p, NULL, NULL);
        if (n < 0) { free(slot); return n; }
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

/* A solver table of 2**log2size entries (and its move-ordering history), NULL on failure. */
void *qc_table_new(int log2size) {
    if (log2size < 4) log2size = 4;
    Search *s = calloc(1, sizeof(Search));
    if (!s) return NULL;
    s->tt = calloc((size_t)1 << log2size, sizeof(Entry));
    if (!s->tt) { free(s); return NULL; }
    s->ttmask = ((uint64_t)1 << log2size) - 1;
    return s;
}

void qc_table_free(void *t) {
    Search *s = t;
    if (!s) return;
    free(s->tt);
    free(s);
}

uint64_t qc_table_nodes(const void *t) { return ((const Search *)t)->nodes; }

uint64_t qc_table_stored(const void *t) { return ((const Search *)t)->stored; }

/* The fail-soft value x - o (scaled) of the position within (alpha, beta), with the table t. */
int64_t qc_search(const void *h, void *t, const void *pos, int64_t alpha, int64_t beta) {
    Search *s = t;
    s->r = h;
    return search(s, pos, alpha, beta);
}

/* An expectimax table of 2**log2size entries for the point p0 = num / den (0 <= num <= den < 2**62)
   approached from `side` (+1 right, -1 left; not beyond 0 or 1), NULL on failure. */
void *qc_etable_new(int log2size, int64_t num, int64_t den, int side) {
    if (den < 1 || den >= ((int64_t)1 << 62) || num < 0 || num > den || (side != 1 && side != -1)) return NULL;
    if ((side > 0 && num == den) || (side < 0 && num == 0)) return NULL;
    if (log2size < 4) log2size = 4;
    ESearch *s = calloc(1, sizeof(ESearch));
    if (!s) return NULL;
    s->tt = calloc((size_t)1 << log2size, sizeof(PEntry));
    if (!s->tt) { free(s); return NULL; }
    s->ttmask = ((uint64_t)1 << log2size) - 1;
    s->pa = (uint64_t)num; s->pb = (uint64_t)den; s->side = side;
    return s;
}

void qc_etable_free(void *t) {
    ESearch *s = t;
    if (!s) return;
    free(s->tt);
    free(s);
}

uint64_t qc_etable_nodes(const void *t) { return ((const ESearch *)t)->nodes; }

uint64_t qc_etable_stored(const void *t) { return ((const ESearch *)t)->stored; }

/* The degree bound of a value: DEG + 1 coefficients come out of qc_evalue. */
int qc_edegree(void) { return DEG; }

/* The exact value x - o (scaled) of the position as a polynomial in p beside the table's point:
   out[k] is the coefficient of p**k. 0, or 1 when a coefficient went beyond the core's limits. */
int qc_evalue(const void *h, void *t, const void *pos, int64_t *out) {
    ESearch *s = t;
    s->r = h;
    Poly ninf, pinf, v;
    pconst(&ninf, -EINF);
    pconst(&pinf, EINF);
    esearch(s, pos, &ninf, &pinf, &v);
    for (int k = 0; k <= DEG; k++) out[k] = v.c[k];
    return s->overflow;
}

/* ---- replay (qttt replay --json): records as JSON Lines to final states -------------------------- */

typedef struct { const char *s, *e; } Cursor;

static void ws(Cursor *c) { while (c->s < c->e && (*c->s == ' ' || *c->s == '\t' || *c->s == '\r')) c->s++; }

/* The literal text t (after whitespace). */
static int lit(Cursor *c, const char *t, int n) {
    ws(c);
    if (c->e - c->s < n || memcmp(c->s, t, (size_t)n)) return 0;
    c->s += n;
    return 1;
}

/* A JSON integer of at most 4 digits without a sign (after whitespace); -1 if there is none. */
static int small_int(Cursor *c) {
    ws(c);
    const char *s = c->s;
    int v = 0, d = 0;
    while (s < c->e && *s >= '0' && *s <= '9' && d < 5) { v = v * 10 + (*s++ - '0'); d++; }
    if (d == 0 || d > 4 || (d > 1 && *c->s == '0') || (s < c->e && *s >= '0' && *s <= '9')) return -1;
    c->s = s;
    return v;
}

/* One record of the variant `name`, written exactly as {"variant": name, "actions": [...]} with
   actions {"place": [a, b]} and {"measure": c} and JSON whitespace anywhere between tokens, every
   action legal (qc_apply: rule check-order): 1 with p its final position, else 0 (the line is left
   to the Python engine, which reads any record and names what is wrong with it). */
static int replay_record(const Rules *r, Cursor *c, const char *name, int namelen, Pos *p) {
    if (!lit(c, "{", 1) || !lit(c, "\"variant\"", 9) || !lit(c, ":", 1) || !lit(c, "\"", 1)) return 0;
    if (c->e - c->s < namelen + 1 || memcmp(c->s, name, (size_t)namelen) || c->s[namelen] != '"') return 0;
    c->s += namelen + 1;
    if (!lit(c, ",", 1) || !lit(c, "\"actions\"", 9) || !lit(c, ":", 1) || !lit(c, "[", 1)) return 0;
    init_pos(r, p);
    if (!lit(c, "]", 1)) {
        for (;;) {
            if (!lit(c, "{", 1)) return 0;
            int refused;
            if (lit(c, "\"place\"", 7)) {
                if (!lit(c, ":", 1) || !lit(c, "[", 1)) return 0;
                int a = small_int(c);
                if (a < 0 || !lit(c, ",", 1)) return 0;
                int b = small_int(c);
                if (b < 0 || !lit(c, "]", 1)) return 0;
                refused = qc_apply(r, p, 0, a, b);
            } else if (lit(c, "\"measure\"", 9)) {
                if (!lit(c, ":", 1)) return 0;
                int a = small_int(c);
                if (a < 0) return 0;
                refused = qc_apply(r, p, 1, a, 0);
            } else if (lit(c, "\"outcome\"", 9)) {
                if (!lit(c, ":", 1)) return 0;
                int a = small_int(c);
                if (a < 0) return 0;
                refused = qc_apply(r, p, 2, a, 0);
            } else {
                return 0;
            }
            if (refused || !lit(c, "}", 1)) return 0;
            if (lit(c, "]", 1)) break;
            if (!lit(c, ",", 1)) return 0;
        }
    }
    if (!lit(c, "}", 1)) return 0;
    ws(c);
    return c->s == c->e;
}

static char *put(char *o, const char *t, size_t n) { memcpy(o, t, n); return o + n; }

static char *put_int(char *o, int64_t v) {
    char digits[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)-v : (uint64_t)v;
    do { digits[n++] = (char)('0' + u % 10); u /= 10; } while (u);
    if (v < 0) *o++ = '-';
    while (n) *o++ = digits[--n];
    return o;
}

/* str(Fraction(num, den)) in double quotes (den > 0). */
static char *put_frac(char *o, int64_t num, int64_t den) {
    int64_t a = num < 0 ? -num : num, b = den;
    while (b) { int64_t t = a % b; a = b; b = t; }
    int64_t g = a ? a : 1;
    *o++ = '"';
    o = put_int(o, num / g);
    if (den / g != 1) { *o++ = '/'; o = put_int(o, den / g); }
    *o++ = '"';
    return o;
}

/* str(Fraction(v, scale)) in double quotes. */
static char *put_points(char *o, int64_t v, int64_t scale) {
    int64_t a = v < 0 ? -v : v, b = scale;
    while (b) { int64_t t = a % b; a = b; b = t; }
    int64_t g = a ? a : 1;
    *o++ = '"';
    o = put_int(o, v / g);
    if (scale / g != 1) { *o++ = '/'; o = put_int(o, scale / g); }
    *o++ = '"';
    return o;
}

#define PUT(o, t) put(o, t, sizeof t - 1)

/* The v1 state of p (qttt.quantum.notation.state_json, as json.dumps writes it with ", " and ": ")
   after `head` ({"variant": ..., "board": [), marks from the table (mark of move k: mark[markoff[k]
   .. markoff[k+1]], in double quotes). */
static char *put_state(const Rules *r, const Pos *p, char *o, const char *head, int headlen,
                       const char *mark, const int32_t *markoff, int64_t scale) {
    int64_t v[8 + 2 * MAXC]; /* qc_export's header, then cells */
    qc_export(r, p, v);
    o = put(o, head, (size_t)headlen);
    for (int c = 0; c < r->cells; c++) {
        if (c) o = PUT(o, ", ");
        int k = p->cls[c];
        if (k) { o = put(o, mark + markoff[k], (size_t)(markoff[k + 1] - markoff[k])); continue; }
        *o++ = '[';
        int first = 1;
        for (moves_t s = p->spk[c]; s; s &= s - 1) {
            int m = ctz(s);
            if (!first) o = PUT(o, ", ");
            first = 0;
            o = put(o, mark + markoff[m], (size_t)(markoff[m + 1] - markoff[m]));
        }
        *o++ = ']';
    }
    o = PUT(o, "], \"to_move\": ");
    o = v[3] < 0 ? PUT(o, "null") : v[3] == 2 ? PUT(o, "\"chance\"") : v[3] ? PUT(o, "\"o\"") : PUT(o, "\"x\"");
    o = PUT(o, ", \"phase\": ");
    o = v[0] == PLACE ? PUT(o, "\"place\"") : v[0] == MEASURE ? PUT(o, "\"measure\"")
        : v[0] == CHANCE ? PUT(o, "\"chance\"") : PUT(o, "\"over\"");
    o = PUT(o, ", \"move\": ");
    o = put_int(o, v[1]);
    o = PUT(o, ", \"cycle\": ");
    if (v[0] == MEASURE || v[0] == CHANCE) {
        *o++ = '[';
        for (int c = 0, first = 1; c < r->cells; c++)
            if (v[6] >> c & 1) { if (!first) o = PUT(o, ", "); first = 0; o = put_int(o, c); }
        *o++ = ']';
    } else {
        o = PUT(o, "null");
    }
    o = v[0] == OVER ? PUT(o, ", \"over\": true") : PUT(o, ", \"over\": false");
    o = PUT(o, ", \"scores\": {\"x\": ");
    o = put_points(o, v[4], scale);
    o = PUT(o, ", \"o\": ");
    o = put_points(o, v[5], scale);
    if (v[0] != CHANCE) return PUT(o, "}}\n");
    o = PUT(o, "}, \"chance\": [");
    int cells[2];
    int64_t num[2], den[2];
    int n = chance_outcomes(r, p, cells, num, den);
    for (int i = 0; i < n; i++) {
        if (i) o = PUT(o, ", ");
        o = PUT(o, "{\"action\": {\"outcome\": ");
        o = put_int(o, cells[i]);
        o = PUT(o, "}, \"probability\": ");
        o = put_frac(o, num[i], den[i]);
        *o++ = '}';
    }
    return PUT(o, "]}\n");
}

/* Replay the JSON Lines text in[0..n) line by line while each line is blank or a record this
   function reads (replay_record) of the variant `name`, writing each final state (put_state) to
   out (room for cap bytes; a record is written only with room for `most` more). The last line
   counts only when `final` (else it may go on in text not given yet). stats: [0] bytes of in
   consumed (whole lines), [1] records replayed, [2] lines consumed, [3] why it stopped: 0 the
   text ended, 1 the next line is not one this function reads, 2 out is full. Returns the bytes
   written. */
int64_t qc_replay_jsonl(const void *h, const char *in, int64_t n, int final, const char *name, int namelen,
                        const char *head, int headlen, const char *mark, const int32_t *markoff,
                        int64_t scale, int64_t most, char *out, int64_t cap, int64_t *stats) {
    const Rules *r = h;
    const char *s = in, *end = in + n;
    char *o = out;
    int64_t records = 0, lines = 0;
    /* the most one state can take, whatever the caller says: the head, the fixed text (keys, the
       player, phase, move, over, two scores of up to 20 digits each side of the slash, and a chance
       turn's two outcomes with their probabilities, 20 digits each side of the slash: under 600
       bytes), and per cell ", [" "]" and up to MAXM marks with ", ", or a cycle cell */
    int widest = 0;
    for (int k = 0; k <= MAXM; k++)
        if (markoff[k + 1] - markoff[k] > widest) widest = markoff[k + 1] - markoff[k];
    int64_t need = headlen + 600 + (int64_t)r->cells * (8 + MAXM * (widest + 2));
    if (most < need) most = need;
    int why = 0;
    Pos p;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl && !final) break;
        const char *e = nl ? nl : end;
        Cursor c = {s, e};
        ws(&c);
        if (c.s != e) {
            if (cap - (o - out) < most) { why = 2; break; }
            if (!replay_record(r, &c, name, namelen, &p)) { why = 1; break; }
            o = put_state(r, &p, o, head, headlen, mark, markoff, scale);
            records++;
        }
        lines++;
        s = nl ? nl + 1 : end;
    }
    stats[0] = s - in;
    stats[1] = records;
    stats[2] = lines;
    stats[3] = why;
    return o - out;
}
/* ---- walk: shape classes in C (verify/quantum/exhaustive.py, core_process) -----------------------

   A ply of the checker's walk held in C: each class (its shape key) with up to 1 + WALK_OTHERS
   games reaching it, in rank order (a game's actions as internal action codes, compared code by
   code: the engine's order of legal actions), one game per position (a digest of the declared
   fields). `qc_walk_process` checks every class's representative and up to K other members with
   the checker's own reading of the rules transcribed from verify/quantum/sampled.py (graph shape,
   bookkeeping, end rules, both measurements, the refusal of every action of the action space,
   deadlock, members' futures), and sends each child class to the table of the shard its key
   belongs to (`walk_shard`, as Python's shard_of). Failures carry the game showing them; the
   engine replays every one before it is reported (Python's confirm). */

#define WALK_OTHERS 2
#define WALK_KEEP (1 + WALK_OTHERS)
#define WALK_MAXPLY 60
#define WALK_FIELDS 5 /* a failure record: property, detail, member, probe, path length; the member's path, then
                         the representative's (WALK_MAXPLY + 1 codes each) */
#define WALK_RECORD (WALK_FIELDS + 2 * (WALK_MAXPLY + 1))

typedef struct {
    int ply;
    int64_t n, cap, slots;
    int64_t *slot;      /* per slot: entry index + 1, 0 empty */
    uint64_t *key;      /* per entry */
    uint8_t *count;
    uint64_t *digest;   /* WALK_KEEP per entry */
    uint16_t *path;     /* WALK_KEEP * ply per entry */
} WalkTable;

static uint64_t walk_mix(uint64_t key) { /* Python's shard_of before the modulo */
    uint64_t h = (key ^ (key >> 31)) * 0x9E3779B97F4A7C15ull;
    return h >> 17;
}

static int walk_grow(WalkTable *t) {
    int64_t cap = t->cap ? 2 * t->cap : 1024;
    int keep = WALK_KEEP, ply = t->ply ? t->ply : 1;
    uint64_t *key = realloc(t->key, (size_t)cap * sizeof *key);
    if (!key) return 0;
    t->key = key;
    uint8_t *count = realloc(t->count, (size_t)cap);
    if (!count) return 0;
    t->count = count;
    uint64_t *digest = realloc(t->digest, (size_t)cap * keep * sizeof *digest);
    if (!digest) return 0;
    t->digest = digest;
    uint16_t *path = realloc(t->path, (size_t)cap * keep * ply * sizeof *path);
    if (!path) return 0;
    t->path = path;
    t->cap = cap;
    int64_t slots = 2 * cap;
    int64_t *slot = calloc((size_t)slots, sizeof *slot);
    if (!slot) return 0;
    for (int64_t i = 0; i < t->n; i++) {
        uint64_t h = walk_mix(t->key[i]) & (uint64_t)(slots - 1);
        while (slot[h]) h = (h + 1) & (uint64_t)(slots - 1);
        slot[h] = i + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->slots = slots;
    return 1;
}

static int path_cmp(const uint16_t *a, const uint16_t *b, int n) {
    for (int i = 0; i < n; i++) if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* Offer a game reaching class `key`: the class keeps its games in rank order, one per digest, at most
   WALK_KEEP. 0 when out of memory. */
static int walk_offer(WalkTable *t, uint64_t key, uint64_t digest, const uint16_t *path) {
    if (t->n + 1 > t->cap && !walk_grow(t)) return 0;
    uint64_t h = walk_mix(key) & (uint64_t)(t->slots - 1);
    while (t->slot[h] && t->key[t->slot[h] - 1] != key) h = (h + 1) & (uint64_t)(t->slots - 1);
    int ply = t->ply;
    int64_t e;
    if (!t->slot[h]) {
        e = t->n++;
        t->slot[h] = e + 1;
        t->key[e] = key;
        t->count[e] = 0;
    } else {
        e = t->slot[h] - 1;
    }
    uint64_t *dg = &t->digest[e * WALK_KEEP];
    uint16_t *ps = &t->path[e * WALK_KEEP * ply];
    int n = t->count[e];
    for (int i = 0; i < n; i++) {
        if (dg[i] != digest) continue;
        if (path_cmp(path, &ps[i * ply], ply) >= 0) return 1;
        for (int j = i; j < n - 1; j++) { /* drop the later game of the same position */
            dg[j] = dg[j + 1];
            memmove(&ps[j * ply], &ps[(j + 1) * ply], (size_t)ply * sizeof *ps);
        }
        n--;
        break;
    }
    int at = n;
    while (at > 0 && path_cmp(path, &ps[(at - 1) * ply], ply) < 0) at--;
    if (at >= WALK_KEEP) { t->count[e] = (uint8_t)n; return 1; }
    int last = n < WALK_KEEP ? n : WALK_KEEP - 1;
    for (int j = last; j > at; j--) {
        dg[j] = dg[j - 1];
        memcpy(&ps[j * ply], &ps[(j - 1) * ply], (size_t)ply * sizeof *ps);
    }
    dg[at] = digest;
    memcpy(&ps[at * ply], path, (size_t)ply * sizeof *ps);
    t->count[e] = (uint8_t)(n < WALK_KEEP ? n + 1 : WALK_KEEP);
    return 1;
}

/* A digest of a position's declared fields (engine.STATE: cls, spk, move, phase, pending). */
static uint64_t walk_digest(const Rules *r, const Pos *p) {
    uint64_t h = mix(0x51ed270b27f3c1ull ^ ((uint64_t)p->move << 16 | (uint64_t)p->phase << 8 | p->pending));
    for (int c = 0; c < r->cells; c++) h = mix(h ^ ((uint64_t)p->cls[c] << 56 ^ (uint64_t)c << 50 ^ (uint64_t)p->spk[c]));
    return h;
}

/* ---- the checker's reading in C -------------------------------------------------------------------- */

enum { WP_SHAPE, WP_UNIQUE, WP_TOTAL, WP_DEADLOCK, WP_LENGTH, WP_TURN, WP_LEGAL };
/* details (verify/quantum/exhaustive.py CORE_DETAILS says each in words) */
enum {
    WD_EDGE_CLASSICAL = 1, WD_NOT_FOREST, WD_PENDING_COMPONENT, WD_CYCLE, WD_MOVE, WD_PENDING, WD_PLACED,
    WD_MEASURED, WD_TO_MOVE, WD_OVER, WD_BOUND, WD_OUTCOME, WD_OUTSIDE, WD_NOT_FORCED, WD_DIFFER,
    WD_LISTED_REFUSED, WD_ALLOWED_UNLISTED, WD_REFUSED_OTHER, WD_ACCEPTED, WD_STUCK, WD_FUTURE_PHASE,
    WD_FUTURE_TURN, WD_FUTURE_COUNT, WD_FUTURE_CLASSES, WD_REPLAY
};

typedef struct {
    int32_t *rec;
    int64_t cap, n;
    int per_prop[8];
    const uint16_t *rep; /* the representative's path, for the records */
} Fails;

static void fail(Fails *f, int prop, int detail, int member, int probe, const uint16_t *path, int len) {
    if (f->per_prop[prop] >= 8 || f->n >= f->cap || len > WALK_MAXPLY + 1) return; /* the first KEPT per
                                                                                     property, in walk order */
    f->per_prop[prop]++;
    int32_t *r = &f->rec[f->n++ * WALK_RECORD];
    r[0] = prop; r[1] = detail; r[2] = member; r[3] = probe; r[4] = len;
    for (int i = 0; i < len; i++) { r[WALK_FIELDS + i] = path[i]; r[WALK_FIELDS + WALK_MAXPLY + 1 + i] = f->rep[i]; }
}

/* Replay internal action codes from the start with the core's own checks: 0, or 1 + the index
   of the first refused. */
static int walk_replay(const Rules *r, Pos *p, const uint16_t *path, int n) {
    init_pos(r, p);
    for (int i = 0; i < n; i++) {
        int code = path[i];
        if (code >= r->sq + r->cells) return i + 1;
        int refused = code >= r->sq ? qc_apply(r, p, 1, r->ca[code], 0) : qc_apply(r, p, 0, r->ca[code], r->cb[code]);
        if (refused) return i + 1;
    }
    return 0;
}

/* The cells of the cycle the pending move closes (its two cells and the path between them). */
static uint32_t cycle_cells(const Pos *p) {
    int a = p->ea[p->pending], b = p->eb[p->pending];
    int parent[MAXC];
    for (int c = 0; c < MAXC; c++) parent[c] = -1;
    int queue[MAXC], qh = 0, qt = 0;
    parent[a] = a;
    queue[qt++] = a;
    while (qh < qt) {
        int u = queue[qh++];
        for (moves_t l = p->live & ~((moves_t)1 << p->pending); l; l &= l - 1) {
            int k = ctz(l);
            int v = p->ea[k] == u ? p->eb[k] : p->eb[k] == u ? p->ea[k] : -1;
            if (v >= 0 && parent[v] < 0 && qt < MAXC) { parent[v] = u; queue[qt++] = v; }
        }
    }
    if (parent[b] < 0) return 0;
    uint32_t out = 0;
    for (int c = b, steps = 0; steps <= MAXC; c = parent[c], steps++) { out |= 1u << c; if (c == a) break; }
    return out;
}

/* The cells joined to c by live moves. */
static uint32_t component_of(const Pos *p, int c) {
    uint32_t comp = 1u << c, todo = comp;
    while (todo) {
        int v = ctz(todo); todo &= todo - 1;
        for (moves_t l = p->live; l; l &= l - 1) {
            int k = ctz(l), u = p->ea[k] == v ? p->eb[k] : p->eb[k] == v ? p->ea[k] : -1;
            if (u >= 0 && !(comp >> u & 1)) { comp |= 1u << u; todo |= 1u << u; }
        }
    }
    return comp;
}

/* Rule check: between measurements the live graph on the open cells is a forest; while one is
   pending the pending move's component has as many moves as cells, its core (leaves peeled) is the
   cycle, and every other component is a tree (check_shape). */
static int check_shape_c(const Rules *r, const Pos *p) {
    int parent[MAXC];
    for (int c = 0; c < r->cells; c++) parent[c] = c;
    uint32_t pend = p->phase == MEASURE ? component_of(p, p->ea[p->pending]) : 0;
    int inside = 0;
    for (moves_t l = p->live; l; l &= l - 1) {
        int k = ctz(l), a = p->ea[k], b = p->eb[k];
        if (!(p->open >> a & 1) || !(p->open >> b & 1)) return WD_EDGE_CLASSICAL;
        if (pend >> a & 1) { inside++; continue; }
        while (parent[a] != a) a = parent[a];
        while (parent[b] != b) b = parent[b];
        if (a == b) return WD_NOT_FOREST;
        parent[a] = b;
    }
    if (p->phase != MEASURE) return 0;
    if (inside != popc(pend)) return WD_PENDING_COMPONENT;
    uint32_t core = pend;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t m = core; m; m &= m - 1) {
            int c = ctz(m), degree = 0;
            for (moves_t l = p->live; l; l &= l - 1) {
                int k = ctz(l);
                if ((p->ea[k] == c && (core >> p->eb[k] & 1)) || (p->eb[k] == c && (core >> p->ea[k] & 1))) degree++;
            }
            if (degree <= 1) { core &= ~(1u << c); changed = 1; }
        }
    }
    return core == cycle_cells(p) ? 0 : WD_CYCLE;
}

/* The player to act by the rules (turn-order, measure-by), from k placements: 0 x, 1 o, -1 none. */
static int expected_turn_c(const Rules *r, const Pos *p, int k) {
    if (p->phase == OVER) return -1;
    if (p->phase == MEASURE) {
        int creator = k & 1 ? 0 : 1;
        return r->measurer == QC_MEASURER_CREATOR ? creator : 1 - creator;
    }
    return (k + 1) & 1 ? 0 : 1;
}

static int turn_of(const Rules *r, const Pos *p) {
    if (p->phase == OVER) return -1;
    return x_moves(r, p) ? 0 : 1;
}

/* The checker's own count of the placements against the position (check_bookkeeping). */
static int check_bookkeeping_c(const Rules *r, const Pos *p, const uint16_t *path, int n) {
    int k = 0;
    for (int i = 0; i < n; i++) k += path[i] < r->sq;
    int last = n ? path[n - 1] : -1;
    if (p->phase != OVER && p->move != k + 1) return WD_MOVE;
    if (p->pending != (p->phase == MEASURE ? k : 0)) return WD_PENDING;
    if (p->phase == MEASURE && !(last >= 0 && last < r->sq)) return WD_PENDING;
    if (last >= 0 && last < r->sq) {
        int a = r->ca[last], b = r->cb[last];
        if (a == b ? p->cls[a] != k
                   : !(p->live >> k & 1) || p->ea[k] != (a < b ? a : b) || p->eb[k] != (a < b ? b : a))
            return WD_PLACED;
    }
    if (last >= r->sq && p->cls[r->ca[last]] != k) return WD_MEASURED;
    if (turn_of(r, p) != expected_turn_c(r, p, k)) return WD_TO_MOVE;
    return 0;
}

/* Rules end-line, end-full, last-square, from the marks alone (ends_now). */
static int ends_now_c(const Rules *r, const Pos *p) {
    uint32_t x = 0, o = 0, open = 0;
    for (int c = 0; c < r->cells; c++) {
        if (!p->cls[c]) open |= 1u << c;
        else if (p->cls[c] & 1) x |= 1u << c;
        else o |= 1u << c;
    }
    for (int i = 0; i < r->nend; i++) {
        uint32_t m = r->endm[i];
        if ((m & x) == m || (m & o) == m) return 1;
    }
    int left = popc(open);
    return left == 0 || (left == 1 && r->last_square == QC_LAST_SQUARE_END);
}

/* Valid outcomes of measuring: each move of the component in one of its two cells, one per cell,
   the pending move in `cell`; counting stops at 2. */
static int count_outcomes(const int *ma, const int *mb, int m, int i, uint32_t used) {
    if (i == m) return 1;
    int total = 0;
    for (int side = 0; side < 2 && total < 2; side++) {
        int c = side ? mb[i] : ma[i];
        if (used >> c & 1) continue;
        total += count_outcomes(ma, mb, m, i + 1, used | 1u << c);
        if (ma[i] == mb[i]) break;
    }
    return total;
}

/* Both measurements of the pending cycle (check_measurements): the component made classical with
   each mark in one of its cells, nothing outside changed (or, under vanish, emptied), the outcome
   the only valid one, the two outcomes differing exactly on the cycle. */
static void check_measurements_c(const Rules *r, const Pos *p, int *unique, int *total) {
    *unique = *total = 0;
    uint32_t comp = component_of(p, p->ea[p->pending]);
    int moves[MAXM], ma[MAXM], mb[MAXM], m = 0;
    for (moves_t l = p->live; l; l &= l - 1) {
        int k = ctz(l);
        if (comp >> p->ea[k] & 1) { moves[m] = k; m++; }
    }
    uint8_t outcome[2][MAXC];
    for (int side = 0; side < 2; side++) {
        int cell = side ? p->eb[p->pending] : p->ea[p->pending];
        Pos q = *p;
        measure(r, &q, cell);
        if (q.cls[cell] != p->pending) { *total = WD_OUTCOME; return; }
        for (int i = 0; i < m; i++) {
            int k = moves[i], at = -1;
            for (int c = 0; c < r->cells; c++) if ((comp >> c & 1) && q.cls[c] == k) at = c;
            if (at < 0 || (at != p->ea[k] && at != p->eb[k])) { *total = WD_OUTCOME; return; }
        }
        for (int c = 0; c < r->cells; c++) {
            if (comp >> c & 1) { if (!q.cls[c]) { *total = WD_OUTCOME; return; } outcome[side][c] = q.cls[c]; continue; }
            if (q.cls[c] != p->cls[c]) { *total = WD_OUTSIDE; return; }
            moves_t want = r->untouched == QC_UNTOUCHED_VANISH ? 0 : p->spk[c];
            if (q.spk[c] != want) { *total = WD_OUTSIDE; return; }
        }
        /* the outcome is the only valid one with the pending move in `cell` */
        int j = 0;
        ma[j] = cell; mb[j] = cell; j++;
        for (int i = 0; i < m; i++) if (moves[i] != p->pending) { ma[j] = p->ea[moves[i]]; mb[j] = p->eb[moves[i]]; j++; }
        if (count_outcomes(ma, mb, j, 0, 0) != 1) { *unique = WD_NOT_FORCED; return; }
    }
    uint32_t moved = 0;
    for (int c = 0; c < r->cells; c++) if ((comp >> c & 1) && outcome[0][c] != outcome[1][c]) moved |= 1u << c;
    if (moved != cycle_cells(p)) *unique = WD_DIFFER;
}

/* The rule refusing an action by the checker's reading (expected_refusals): 0 none, else
   qc_apply's code of the first rule it breaks in the order of rule check-order. */
static int expected_refusal(const Rules *r, const Pos *p, int kind, int a, int b) {
    if (p->phase == OVER) return 1;
    if (kind == 1 && p->phase != MEASURE) return 3;
    if (kind == 0 && p->phase == MEASURE) return 2;
    if (a < 0 || a >= r->cells || (kind == 0 && (b < 0 || b >= r->cells))) return 4;
    if (kind == 1) return a == p->ea[p->pending] || a == p->eb[p->pending] ? 0 : 8;
    uint32_t open = 0;
    for (int c = 0; c < r->cells; c++) if (!p->cls[c]) open |= 1u << c;
    if (!(open >> a & 1) || !(open >> b & 1)) return 5;
    if (a == b && popc(open) != 1) return 6;
    if (!r->two_cycles && a != b)
        for (moves_t l = p->live; l; l &= l - 1) {
            int k = ctz(l);
            if (p->ea[k] == (a < b ? a : b) && p->eb[k] == (a < b ? b : a)) return 7;
        }
    return 0;
}

static int same_refusal(int core, int want) { return core == want || (core >= 2 && core <= 3 && want >= 2 && want <= 3); }

/* Every action of the action space (placements a <= b, measurements, one off the board of each) is
   listed exactly when no rule refuses it, and refused by the core under the rule that does. */
static int check_legal_c(const Rules *r, const Pos *p, int *probe) {
    int acts[NCODES], n = legal(r, p, acts);
    uint8_t listed[NCODES];
    memset(listed, 0, sizeof listed);
    for (int i = 0; i < n; i++) listed[acts[i]] = 1;
    for (int a = 0; a <= r->cells; a++)
        for (int b = a; b <= r->cells; b++) {
            if (b == r->cells && a != 0) continue;
            int want = expected_refusal(r, p, 0, a, b);
            int code = b < r->cells ? a * r->cells + b : -1;
            *probe = code;
            if (!want) { if (code < 0 || !listed[code]) return WD_ALLOWED_UNLISTED; continue; }
            if (code >= 0 && listed[code]) return WD_LISTED_REFUSED;
            Pos q = *p;
            int got = qc_apply(r, &q, 0, a, b);
            if (!got) return WD_ACCEPTED;
            if (!same_refusal(got, want)) return WD_REFUSED_OTHER;
        }
    for (int c = 0; c <= r->cells; c++) {
        int want = expected_refusal(r, p, 1, c, 0);
        int code = c < r->cells ? r->sq + c : -1;
        *probe = code;
        if (!want) { if (code < 0 || !listed[code]) return WD_ALLOWED_UNLISTED; continue; }
        if (code >= 0 && listed[code]) return WD_LISTED_REFUSED;
        Pos q = *p;
        int got = qc_apply(r, &q, 1, c, 0);
        if (!got) return WD_ACCEPTED;
        if (!same_refusal(got, want)) return WD_REFUSED_OTHER;
    }
    *probe = -1;
    return 0;
}

/* Every check of one position (position_failures, check_legal, deadlock); failures recorded with
   `path` (the member's game). */
static void check_position_c(const Rules *r, const Pos *p, const uint16_t *path, int n, int bound, int member,
                             Fails *f) {
    int d;
    if ((d = check_shape_c(r, p))) fail(f, WP_SHAPE, d, member, -1, path, n);
    if ((d = check_bookkeeping_c(r, p, path, n))) fail(f, WP_TURN, d, member, -1, path, n);
    if ((p->phase == OVER) != (p->phase != MEASURE && ends_now_c(r, p))) fail(f, WP_LENGTH, WD_OVER, member, -1, path, n);
    if (bound >= 0 && n > bound) fail(f, WP_LENGTH, WD_BOUND, member, -1, path, n);
    if (p->phase == MEASURE && !check_shape_c(r, p)) {
        int u, t;
        check_measurements_c(r, p, &u, &t);
        if (u) fail(f, WP_UNIQUE, u, member, -1, path, n);
        if (t) fail(f, WP_TOTAL, t, member, -1, path, n);
    }
    int probe;
    if ((d = check_legal_c(r, p, &probe))) fail(f, WP_LEGAL, d, member, probe, path, n);
    int acts[NCODES];
    if (p->phase != OVER && !legal(r, p, acts)) fail(f, WP_DEADLOCK, WD_STUCK, member, -1, path, n);
}

/* ---- members: other games of the class, then relabelled ones (exhaustive.relabel) ---------------- */

static uint64_t walk_rand(uint64_t *s) { *s += 0x9E3779B97F4A7C15ull; return mix(*s); }

/* Another game of the same class under end = full: cells permuted, and between measurements the
   placements that close no cycle taken in another order (each segment's last placement stays
   last). */
static void relabel_c(const Rules *r, const uint16_t *path, int n, uint64_t *seed, uint16_t *out) {
    int perm[MAXC];
    for (int c = 0; c < r->cells; c++) perm[c] = c;
    for (int c = r->cells - 1; c > 0; c--) { int j = (int)(walk_rand(seed) % (uint64_t)(c + 1)); int t = perm[c]; perm[c] = perm[j]; perm[j] = t; }
    uint16_t moved[WALK_MAXPLY];
    for (int i = 0; i < n; i++) {
        int code = path[i];
        if (code >= r->sq) { moved[i] = (uint16_t)(r->sq + perm[r->ca[code]]); continue; }
        int a = perm[r->ca[code]], b = perm[r->cb[code]];
        if (a > b) { int t = a; a = b; b = t; }
        moved[i] = (uint16_t)(a * r->cells + b);
    }
    int start = 0;
    for (int i = 0; i <= n; i++) {
        if (i < n && moved[i] < r->sq) continue;
        int end = i - 1; /* the segment start..i-1 of placements; its last one stays last */
        for (int j = end - 1; j > start; j--) {
            int pick = start + (int)(walk_rand(seed) % (uint64_t)(j - start + 1));
            uint16_t t = moved[j]; moved[j] = moved[pick]; moved[pick] = t;
        }
        start = i + 1;
    }
    memcpy(out, moved, (size_t)n * sizeof *out);
}

typedef struct { int phase, turn, n; uint64_t keys[NCODES]; } Future;

static int key_less(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void future_of(const Rules *r, const Pos *p, Future *fu) {
    int acts[NCODES];
    fu->phase = p->phase;
    fu->turn = turn_of(r, p);
    fu->n = legal(r, p, acts);
    for (int i = 0; i < fu->n; i++) { Pos q = *p; apply_code(r, &q, acts[i]); fu->keys[i] = shape_key(r, &q); }
    qsort(fu->keys, (size_t)fu->n, sizeof fu->keys[0], key_less);
}

static int future_differs(const Future *a, const Future *b) {
    if (a->phase != b->phase) return WD_FUTURE_PHASE;
    if (a->turn != b->turn) return WD_FUTURE_TURN;
    if (a->n != b->n) return WD_FUTURE_COUNT;
    for (int i = 0; i < a->n; i++) if (a->keys[i] != b->keys[i]) return WD_FUTURE_CLASSES;
    return 0;
}

/* ---- a ply in C ---------------------------------------------------------------------------------- */

void *qc_walk_table(int ply) {
    WalkTable *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->ply = ply;
    if (!walk_grow(t)) { free(t); return NULL; }
    return t;
}

void qc_walk_table_free(void *tp) {
    WalkTable *t = tp;
    if (!t) return;
    free(t->slot); free(t->key); free(t->count); free(t->digest); free(t->path); free(t);
}

int64_t qc_walk_size(const void *t) { return ((const WalkTable *)t)->n; }

/* A table as bytes: per class its key, the number of games, then per game its digest and its
   codes (u16); the bytes needed when more than cap. */
int64_t qc_walk_dump(const void *tp, uint8_t *out, int64_t cap) {
    const WalkTable *t = tp;
    int64_t need = 0;
    for (int64_t e = 0; e < t->n; e++) need += 9 + t->count[e] * (8 + 2 * (int64_t)t->ply);
    if (need > cap) return need;
    uint8_t *o = out;
    for (int64_t e = 0; e < t->n; e++) {
        memcpy(o, &t->key[e], 8); o += 8;
        *o++ = t->count[e];
        for (int i = 0; i < t->count[e]; i++) {
            memcpy(o, &t->digest[e * WALK_KEEP + i], 8); o += 8;
            memcpy(o, &t->path[(e * WALK_KEEP + i) * t->ply], 2 * (size_t)t->ply); o += 2 * t->ply;
        }
    }
    return need;
}

/* Merge bytes `qc_walk_dump` wrote (for a table of the same ply) into t: 0, or -1 when the bytes
   are not such a dump, -2 out of memory. */
int64_t qc_walk_load(void *tp, const uint8_t *in, int64_t len) {
    WalkTable *t = tp;
    const uint8_t *s = in, *e = in + len;
    uint16_t path[WALK_MAXPLY + 1];
    if (t->ply > WALK_MAXPLY) return -1;
    while (s < e) {
        if (e - s < 9) return -1;
        uint64_t key; memcpy(&key, s, 8); s += 8;
        int n = *s++;
        if (n < 1 || n > WALK_KEEP || e - s < n * (8 + 2 * (int64_t)t->ply)) return -1;
        for (int i = 0; i < n; i++) {
            uint64_t digest; memcpy(&digest, s, 8); s += 8;
            memcpy(path, s, 2 * (size_t)t->ply); s += 2 * t->ply;
            if (!walk_offer(t, key, digest, path)) return -2;
        }
    }
    return 0;
}

static const WalkTable *sort_table;
static int rep_less(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    int ply = sort_table->ply;
    return path_cmp(&sort_table->path[x * WALK_KEEP * ply], &sort_table->path[y * WALK_KEEP * ply], ply);
}

/* Check every class of t in rank order and offer its children to outs[walk_shard(key)]:
   the representative and up to `members` other members (other games first, then relabelled ones)
   are checked (check_position_c), members' futures against the representative's; failures go to
   fails (WALK_RECORD int32s each, at most fail_cap), and the representatives the engine is to check
   (ply <= engine_ply, key hash divisible by engine_every, or over when `finals`) to picked (their codes,
   t->ply each, at most pick_cap). stats: classes, members, final positions, members differing by
   field (cls, spk, move, phase, pending), failures, picked, then per class its abstract key
   (phase, sizes) into abstract (at most abstract_cap distinct). Returns 0, or -1 out of memory, -2
   a game that does not replay, -3 a buffer too small. */
int64_t qc_walk_process(const void *h, void *tp, int members, int bound, int engine_ply, int64_t engine_every,
                        int finals, void **outs, int shards, int32_t *fails, int64_t fail_cap, uint16_t *picked,
                        int64_t pick_cap, int64_t *stats, uint64_t *abstract, int64_t abstract_cap) {
    const Rules *r = h;
    WalkTable *t = tp;
    int ply = t->ply;
    if (ply >= WALK_MAXPLY) return -3;
    Fails f = {fails, fail_cap, 0, {0}, NULL};
    int64_t *order = malloc((size_t)(t->n ? t->n : 1) * sizeof *order);
    if (!order) return -1;
    for (int64_t i = 0; i < t->n; i++) order[i] = i;
    sort_table = t;
    qsort(order, (size_t)t->n, sizeof *order, rep_less);
    for (int i = 0; i < 11; i++) stats[i] = 0;
    int64_t nabs = 0;
    Future *mine = malloc(sizeof *mine), *theirs = malloc(sizeof *theirs);
    if (!mine || !theirs) { free(order); free(mine); free(theirs); return -1; }
    uint16_t child[WALK_MAXPLY + 1], other[WALK_MAXPLY + 1];
    for (int64_t oi = 0; oi < t->n; oi++) {
        int64_t e = order[oi];
        const uint16_t *path = &t->path[e * WALK_KEEP * ply];
        Pos p;
        if (walk_replay(r, &p, path, ply) || shape_key(r, &p) != t->key[e]) {
            free(order); free(mine); free(theirs); return -2;
        }
        f.rep = path;
        stats[0]++;
        check_position_c(r, &p, path, ply, bound, 0, &f);
        stats[2] += p.phase == OVER;
        /* the abstraction's key: phase, pending component's size, sorted sizes of the others */
        {
            int sizes[MAXC], ns = 0, pend = 0;
            uint32_t seen = 0, pc = p.phase == MEASURE ? component_of(&p, p.ea[p.pending]) : 0;
            for (uint32_t m = p.open; m; m &= m - 1) {
                int c = ctz(m);
                if (seen >> c & 1) continue;
                uint32_t comp = component_of(&p, c);
                seen |= comp;
                if (comp == pc) pend = popc(comp); else sizes[ns++] = popc(comp);
            }
            for (int i = 1; i < ns; i++) { int v = sizes[i], j = i - 1; while (j >= 0 && sizes[j] > v) { sizes[j + 1] = sizes[j]; j--; } sizes[j + 1] = v; }
            uint64_t a = (uint64_t)p.phase << 60 | (uint64_t)pend << 55;
            uint64_t body = 0;
            for (int i = 0; i < ns; i++) body = body * 17 + (uint64_t)sizes[i];
            a ^= p.phase == OVER ? 0 : mix(body * 64 + (uint64_t)ns + 0x9E37) >> 9;
            int found = 0;
            for (int64_t i = 0; i < nabs && !found; i++) found = abstract[i] == a;
            if (!found && nabs < abstract_cap) abstract[nabs++] = a;
        }
        if (picked && (ply <= engine_ply || (engine_every > 0 && walk_mix(t->key[e]) % (uint64_t)engine_every == 0)
                       || (finals && p.phase == OVER))) {
            if (stats[9] >= pick_cap) { free(order); free(mine); free(theirs); return -3; }
            memcpy(&picked[stats[9]++ * ply], path, 2 * (size_t)ply);
        }
        /* children */
        int acts[NCODES], n = legal(r, &p, acts);
        mine->phase = p.phase; mine->turn = turn_of(r, &p); mine->n = n;
        memcpy(child, path, 2 * (size_t)ply);
        for (int i = 0; i < n; i++) {
            Pos q = p;
            apply_code(r, &q, acts[i]);
            uint64_t key = shape_key(r, &q);
            mine->keys[i] = key;
            child[ply] = (uint16_t)acts[i];
            if (!walk_offer(outs[walk_mix(key) % (uint64_t)shards], key, walk_digest(r, &q), child)) {
                free(order); free(mine); free(theirs); return -1;
            }
        }
        qsort(mine->keys, (size_t)n, sizeof mine->keys[0], key_less);
        if (!members || !ply) continue;
        /* members */
        uint64_t seed = mix(0x7a3b9c1d ^ t->key[e]);
        for (int i = 0; i < ply; i++) seed = mix(seed ^ path[i]);
        uint64_t seen_digest[1 + 64];
        int nseen = 0, checked = 0;
        seen_digest[nseen++] = walk_digest(r, &p);
        for (int attempt = 0; checked < members && attempt < (t->count[e] - 1) + 3 * members; attempt++) {
            int is_other = attempt < t->count[e] - 1;
            if (is_other) memcpy(other, &t->path[(e * WALK_KEEP + 1 + attempt) * ply], 2 * (size_t)ply);
            else relabel_c(r, path, ply, &seed, other);
            Pos q;
            if (walk_replay(r, &q, other, ply)) { if (is_other) { free(order); free(mine); free(theirs); return -2; } continue; }
            uint64_t d = walk_digest(r, &q);
            int dup = 0;
            for (int i = 0; i < nseen; i++) dup |= seen_digest[i] == d;
            if (dup || shape_key(r, &q) != t->key[e]) continue;
            if (nseen < 65) seen_digest[nseen++] = d;
            checked++;
            check_position_c(r, &q, other, ply, bound, checked, &f);
            /* declared fields differing from the representative's */
            int dcls = 0, dspk = 0;
            for (int c = 0; c < r->cells; c++) { dcls |= q.cls[c] != p.cls[c]; dspk |= q.spk[c] != p.spk[c]; }
            stats[3] += dcls; stats[4] += dspk; stats[5] += q.move != p.move; stats[6] += q.phase != p.phase;
            stats[7] += q.pending != p.pending;
            future_of(r, &q, theirs);
            int why = future_differs(theirs, mine);
            if (why) fail(&f, why == WD_FUTURE_TURN ? WP_TURN : why == WD_FUTURE_PHASE ? WP_LENGTH
                              : why == WD_FUTURE_COUNT ? WP_LEGAL : q.phase == MEASURE ? WP_TOTAL : WP_SHAPE,
                          why, checked, -1, other, ply);
        }
        stats[1] += checked;
    }
    stats[8] = f.n;
    stats[10] = nabs;
    free(order); free(mine); free(theirs);
    return 0;
}
