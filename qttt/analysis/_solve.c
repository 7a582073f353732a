/* Exact solver core for quantum tic-tac-toe on boards of at most 9 cells (qttt.analysis.fast).

   The value of a position is x score - o score under perfect play (X maximises, O minimises, the
   measurer decides measurements), as qttt/analysis/solve.py defines it, on integers: every point
   value is scaled by a common denominator in Python. The rules mirror qttt/engine.py (Board) and
   the scoring qttt/scoring.py; the ruleset arrives as a flat int64 array built by fast.py (layout
   there). Search: fail-soft alpha-beta with a transposition table of bounds keyed on a canonical
   position (minimised over the ruleset's board symmetries; move numbers relabelled by order and
   parity, or dropped when the scoring ignores them; dead cells merged), move ordering by the table's
   best move, then immediate results, then history counts.

   Vocabulary (the rules this copy implements; tests/project/test_vocabulary.py compares it with
   qttt.variant.Parameters and qttt.scoring.AWARD_TYPES): game quantum; measurer opponent creator;
   two_cycles true false; last_square forced end; untouched keep vanish; end first-line full;
   award 0 per-pattern 1 first-line 2 rank; criteria 0 min-max 1 min-sum. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXC 9
#define MAXM 32
#define MAXPAT 64
#define MAXSYM 8
#define MAXCOMP 8
#define NPAIR 36
#define PLACE 0
#define MEASURE 1
#define OVER 2
#define INF 1000000000

typedef struct {
    uint8_t cls[MAXC];
    uint8_t ea[MAXM], eb[MAXM];
    uint32_t live;
    uint32_t spk[MAXC];
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
    int64_t points;                                    /* per-pattern */
    int64_t sole, first, second, neither, tie, dbl;    /* first-line; dbl: one player owns 2+ */
    int ncrit;
    int crit[4];                                       /* 0 min-max, 1 min-sum */
    int nworth;
    int64_t worth[MAXPAT];                             /* rank k (1-based) is worth[k-1] */
} Comp;

typedef struct {
    uint64_t k1, k2;
    int32_t lo, hi;
    uint8_t best, work, used, pad;
} Entry;

typedef struct {
    int ncells, creator, two_cycles, forced_last, vanish, numbered;
    int nend;
    uint16_t endm[MAXPAT];
    int nrel;
    uint16_t relm[MAXPAT];
    int nsym;
    uint8_t perm[MAXSYM][MAXC];
    uint8_t pairperm[MAXSYM][NPAIR];
    int ncomp;
    Comp comp[MAXCOMP];
    uint8_t pidx[MAXC][MAXC];
    uint8_t pa[NPAIR], pb[NPAIR];
    Entry *tt;
    uint64_t ttmask;
    uint64_t nodes, stored;
    uint32_t hist[MAXM][128];
} Solver;

static int ctz32(uint32_t v) { return __builtin_ctz(v); }
static int popc(uint32_t v) { return __builtin_popcount(v); }

/* ---- rules (qttt/engine.py _Board) ---------------------------------------------------------- */

static void finish_or_place(const Solver *s, Pos *p) {
    for (int i = 0; i < s->nend; i++) {
        uint16_t m = s->endm[i];
        if ((m & p->x) == m || (m & p->o) == m) { p->phase = OVER; return; }
    }
    uint16_t left = p->open;
    if (left == 0 || ((left & (left - 1)) == 0 && !s->forced_last)) p->phase = OVER;
    else p->phase = PLACE;
}

static void place(const Solver *s, Pos *p, int a, int b) {
    int k = p->move++;
    if (a == b) {
        p->cls[a] = (uint8_t)k;
        if (k & 1) p->x |= (uint16_t)(1u << a); else p->o |= (uint16_t)(1u << a);
        p->open &= (uint16_t)~(1u << a);
        finish_or_place(s, p);
        return;
    }
    if (a > b) { int t = a; a = b; b = t; }
    uint32_t bit = 1u << k;
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
        for (uint32_t r = merged; r; r &= r - 1) p->comp[ctz32(r)] = merged;
    }
}

static void measure(const Solver *s, Pos *p, int cell) {
    uint16_t component = p->comp[cell];
    int sm[MAXM * 2], sc[MAXM * 2], sp = 0;
    sm[sp] = p->pending; sc[sp] = cell; sp++;
    while (sp) {
        sp--;
        int m = sm[sp], c = sc[sp];
        p->cls[c] = (uint8_t)m;
        int a = p->ea[m], b = p->eb[m];
        p->live &= ~(1u << m);
        p->spk[a + b - c] &= ~(1u << m);
        uint32_t rest = p->spk[c] & ~(1u << m);
        p->spk[c] = 0;
        while (rest) {
            int j = ctz32(rest);
            rest &= rest - 1;
            sm[sp] = j; sc[sp] = p->ea[j] + p->eb[j] - c; sp++;
        }
    }
    uint16_t xm = p->x;
    for (uint32_t r = component; r; r &= r - 1) {
        int c = ctz32(r);
        if (p->cls[c] & 1) xm |= (uint16_t)(1u << c);
    }
    p->o |= component & (uint16_t)~xm;
    p->x = xm;
    p->open &= (uint16_t)~component;
    p->pending = 0;
    if (s->vanish && p->live) {
        p->live = 0;
        for (uint32_t r = p->open; r; r &= r - 1) {
            int c = ctz32(r);
            p->spk[c] = 0;
            p->comp[c] = (uint16_t)(1u << c);
        }
    }
    finish_or_place(s, p);
}

static int x_moves(const Solver *s, const Pos *p) {
    if (p->phase == MEASURE) {
        int creator_x = p->pending & 1;
        return s->creator ? creator_x : !creator_x;
    }
    return p->move & 1;
}

/* ---- scoring (qttt/scoring.py), scaled x - o -------------------------------------------------- */

static int64_t line_key(const Comp *c, int i, const Pos *p) {
    int64_t key = 0;
    for (int k = 0; k < c->ncrit; k++) {
        int v = 0;
        for (int j = 0; j < c->ncells[i]; j++) {
            int m = p->cls[c->cells[i][j]];
            if (c->crit[k] == 0) { if (m > v) v = m; } else v += m;
        }
        key = key * 1024 + v;
    }
    return key;
}

static int64_t score(const Solver *s, const Pos *p) {
    int64_t d = 0;
    for (int ci = 0; ci < s->ncomp; ci++) {
        const Comp *c = &s->comp[ci];
        if (c->type == 0) {
            int n = 0;
            for (int i = 0; i < c->npat; i++) {
                uint16_t m = c->mask[i];
                if ((m & p->x) == m) n++;
                else if ((m & p->o) == m) n--;
            }
            d += c->points * n;
        } else if (c->type == 1) {
            int64_t kx = -1, ko = -1;
            int nx = 0, no = 0;
            for (int i = 0; i < c->npat; i++) {
                uint16_t m = c->mask[i];
                if ((m & p->x) == m) { int64_t k = line_key(c, i, p); nx++; if (kx < 0 || k < kx) kx = k; }
                else if ((m & p->o) == m) { int64_t k = line_key(c, i, p); no++; if (ko < 0 || k < ko) ko = k; }
            }
            if (kx < 0 && ko < 0) continue;                 /* neither - neither */
            if (ko < 0) { d += nx > 1 ? c->dbl : c->sole; continue; }
            if (kx < 0) { d -= no > 1 ? c->dbl : c->sole; continue; }
            if (kx == ko) continue;                          /* tie - tie */
            d += kx < ko ? c->first - c->second : c->second - c->first;
        } else {
            uint32_t times = 0;
            int tx[MAXPAT], nx = 0, to[MAXPAT], no = 0;
            for (int i = 0; i < c->npat; i++) {
                uint16_t m = c->mask[i];
                int who = (m & p->x) == m ? 1 : (m & p->o) == m ? 2 : 0;
                if (!who) continue;
                int t = 0;
                for (int j = 0; j < c->ncells[i]; j++) if (p->cls[c->cells[i][j]] > t) t = p->cls[c->cells[i][j]];
                times |= 1u << t;
                if (who == 1) tx[nx++] = t; else to[no++] = t;
            }
            for (int i = 0; i < nx; i++) {
                int r = popc(times & ((1u << tx[i]) - 1));
                if (r < c->nworth) d += c->worth[r];
            }
            for (int i = 0; i < no; i++) {
                int r = popc(times & ((1u << to[i]) - 1));
                if (r < c->nworth) d -= c->worth[r];
            }
        }
    }
    return d;
}

/* ---- canonical keys (qttt/analysis/keys.py numbered_key / owner_key) ------------------------ */

static uint16_t dead_cells(const Solver *s, const Pos *p) {
    uint16_t live = 0;
    for (int i = 0; i < s->nrel; i++) {
        uint16_t m = s->relm[i];
        if (!((m & p->x) && (m & p->o))) live |= m;
    }
    return (uint16_t)((p->x | p->o) & ~live);
}

static uint16_t map_mask(const Solver *s, int sym, uint16_t m) {
    uint16_t out = 0;
    for (uint32_t r = m; r; r &= r - 1) out |= (uint16_t)(1u << s->perm[sym][ctz32(r)]);
    return out;
}

static void canon(const Solver *s, const Pos *p, uint64_t *k1, uint64_t *k2) {
    uint16_t dead = dead_cells(s, p);
    uint64_t b1 = ~0ull, b2 = ~0ull;
    if (s->numbered) {
        /* items in move-number order: (parity, location), a location being a cell (classical) or
           9 + pair index (live spooky move); the next move's parity closes the list */
        int8_t cellof[MAXM];
        memset(cellof, -1, sizeof cellof);
        for (int c = 0; c < s->ncells; c++)
            if (p->cls[c] && !(dead >> c & 1)) cellof[p->cls[c]] = (int8_t)c;
        int loc[MAXC + 2], par[MAXC + 2], n = 0;
        for (int k = 1; k < p->move; k++) {
            if (p->live >> k & 1) { loc[n] = 9 + s->pidx[p->ea[k]][p->eb[k]]; par[n++] = k & 1; }
            else if (cellof[k] >= 0) { loc[n] = cellof[k]; par[n++] = k & 1; }
        }
        uint64_t tail = (uint64_t)n | (uint64_t)(p->move & 1) << 4 | (uint64_t)p->phase << 5;
        for (int sy = 0; sy < s->nsym; sy++) {
            uint64_t h = 0;
            for (int i = 0; i < n; i++) {
                int l = loc[i];
                int ml = l < 9 ? s->perm[sy][l] : 9 + s->pairperm[sy][l - 9];
                h = h << 7 | (uint64_t)(ml << 1 | par[i]);
            }
            uint64_t t = tail | (uint64_t)map_mask(s, sy, dead) << 8;
            if (h < b1 || (h == b1 && t < b2)) { b1 = h; b2 = t; }
        }
    } else {
        /* cell owners (0 open, 1 x, 2 o, 3 dead), sorted owner-labelled spooky moves, pending move */
        int pl[MAXM], po[MAXM], n = 0;
        for (uint32_t r = p->live; r; r &= r - 1) {
            int k = ctz32(r);
            if (p->phase == MEASURE && k == p->pending) continue;
            pl[n] = s->pidx[p->ea[k]][p->eb[k]]; po[n++] = k & 1;
        }
        for (int sy = 0; sy < s->nsym; sy++) {
            uint64_t codes[MAXM];
            for (int i = 0; i < n; i++) codes[i] = (uint64_t)(s->pairperm[sy][pl[i]] << 1 | po[i]);
            for (int i = 1; i < n; i++) { /* insertion sort */
                uint64_t v = codes[i]; int j = i - 1;
                while (j >= 0 && codes[j] > v) { codes[j + 1] = codes[j]; j--; }
                codes[j + 1] = v;
            }
            uint64_t h = 0;
            for (int i = 0; i < n; i++) h = h << 7 | codes[i];
            uint64_t cells = 0;
            for (int c = 0; c < s->ncells; c++) {
                int code = dead >> c & 1 ? 3 : p->x >> c & 1 ? 1 : p->o >> c & 1 ? 2 : 0;
                cells |= (uint64_t)code << (2 * s->perm[sy][c]);
            }
            uint64_t pend = 0;
            if (p->phase == MEASURE) {
                int k = p->pending;
                pend = 1 + (uint64_t)(s->pairperm[sy][s->pidx[p->ea[k]][p->eb[k]]] << 1 | (k & 1));
            }
            uint64_t t = cells | pend << 18 | (uint64_t)n << 26 | (uint64_t)(p->move & 1) << 31
                         | (uint64_t)p->phase << 32;
            if (h < b1 || (h == b1 && t < b2)) { b1 = h; b2 = t; }
        }
    }
    *k1 = b1; *k2 = b2;
}

static Entry *tt_find(Solver *s, uint64_t k1, uint64_t k2, int create) {
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
    worst->used = 1; worst->k1 = k1; worst->k2 = k2; worst->lo = -INF; worst->hi = INF;
    worst->best = 255; worst->work = 0;
    return worst;
}

/* ---- search ------------------------------------------------------------------------------------ */

/* action codes: pair index 0..35, forced last square 64 + cell, measurement 96 + cell */
static int gen(const Solver *s, const Pos *p, uint8_t *acts) {
    int n = 0;
    if (p->phase == MEASURE) {
        acts[n++] = (uint8_t)(96 + p->ea[p->pending]);
        acts[n++] = (uint8_t)(96 + p->eb[p->pending]);
        return n;
    }
    uint16_t op = p->open;
    if ((op & (op - 1)) == 0) { acts[n++] = (uint8_t)(64 + ctz32(op)); return n; }
    for (uint32_t r = op; r; r &= r - 1) {
        int a = ctz32(r);
        for (uint32_t q = r & (r - 1); q; q &= q - 1) {
            int b = ctz32(q);
            if (!s->two_cycles) {
                int taken = 0;
                for (uint32_t l = p->live; l; l &= l - 1) {
                    int k = ctz32(l);
                    if (p->ea[k] == a && p->eb[k] == b) { taken = 1; break; }
                }
                if (taken) continue;
            }
            acts[n++] = s->pidx[a][b];
        }
    }
    return n;
}

static void apply_act(const Solver *s, Pos *p, int act) {
    if (act >= 96) measure(s, p, act - 96);
    else if (act >= 64) place(s, p, act - 64, act - 64);
    else place(s, p, s->pa[act], s->pb[act]);
}

static int64_t search(Solver *s, const Pos *p, int64_t alpha, int64_t beta) {
    s->nodes++;
    if (p->phase == OVER) return score(s, p);
    uint64_t k1, k2;
    canon(s, p, &k1, &k2);
    Entry *e = tt_find(s, k1, k2, 0);
    int64_t lo = -INF, hi = INF;
    int ttbest = 255;
    if (e) {
        lo = e->lo; hi = e->hi; ttbest = e->best;
        if (lo >= beta || lo == hi) return lo;
        if (hi <= alpha) return hi;
    }
    int64_t a = alpha > lo ? alpha : lo, b = beta < hi ? beta : hi;
    uint8_t acts[NPAIR + 2];
    int n = gen(s, p, acts);
    uint64_t before = s->nodes;
    if (n == 0) { /* deadlock: scored as the board stands */
        int64_t v = score(s, p);
        e = tt_find(s, k1, k2, 1);
        e->lo = e->hi = (int32_t)v;
        return v;
    }
    int maxi = x_moves(s, p);
    /* order: table move, then finished children best for the mover, then history */
    Pos kids[NPAIR + 2];
    int64_t key[NPAIR + 2];
    int idx[NPAIR + 2];
    int mv = p->move < MAXM ? p->move : MAXM - 1;
    for (int i = 0; i < n; i++) {
        kids[i] = *p;
        apply_act(s, &kids[i], acts[i]);
        int64_t g;
        if (acts[i] == ttbest) g = (int64_t)1 << 62;
        else if (kids[i].phase == OVER) { int64_t v = score(s, &kids[i]); g = ((int64_t)1 << 50) + (maxi ? v : -v) * 4096; }
        else g = s->hist[mv][acts[i]];
        key[i] = g;
        idx[i] = i;
    }
    for (int i = 1; i < n; i++) {
        int v = idx[i]; int j = i - 1;
        while (j >= 0 && key[idx[j]] < key[v]) { idx[j + 1] = idx[j]; j--; }
        idx[j + 1] = v;
    }
    int64_t best = maxi ? -INF - 1 : INF + 1;
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
    if (best <= a0) { if (best < e->hi) e->hi = (int32_t)best; }
    else if (best >= b0) { if (best > e->lo) e->lo = (int32_t)best; }
    else { e->lo = e->hi = (int32_t)best; }
    if (e->lo < lo) e->lo = (int32_t)lo;
    if (e->hi > hi) e->hi = (int32_t)hi;
    e->best = (uint8_t)bestact;
    uint64_t work = s->nodes - before;
    int w = 0;
    while (work >>= 1) w++;
    if (w > e->work) e->work = (uint8_t)w;
    return best;
}

/* ---- API (ctypes) ------------------------------------------------------------------------------ */

void *qs_new(const int64_t *cfg, int64_t ncfg, int log2size) {
    Solver *s = calloc(1, sizeof(Solver));
    if (!s) return NULL;
    int64_t i = 0;
#define NEXT() (i < ncfg ? cfg[i++] : 0)
    s->ncells = (int)NEXT();
    s->creator = (int)NEXT();
    s->two_cycles = (int)NEXT();
    s->forced_last = (int)NEXT();
    s->vanish = (int)NEXT();
    s->numbered = (int)NEXT();
    s->nend = (int)NEXT();
    for (int j = 0; j < s->nend; j++) s->endm[j] = (uint16_t)NEXT();
    s->nrel = (int)NEXT();
    for (int j = 0; j < s->nrel; j++) s->relm[j] = (uint16_t)NEXT();
    s->nsym = (int)NEXT();
    for (int j = 0; j < s->nsym; j++)
        for (int c = 0; c < s->ncells; c++) s->perm[j][c] = (uint8_t)NEXT();
    s->ncomp = (int)NEXT();
    for (int j = 0; j < s->ncomp; j++) {
        Comp *c = &s->comp[j];
        c->type = (int)NEXT();
        c->npat = (int)NEXT();
        for (int k = 0; k < c->npat; k++) {
            c->mask[k] = (uint16_t)NEXT();
            c->ncells[k] = 0;
            for (int cell = 0; cell < s->ncells; cell++)
                if (c->mask[k] >> cell & 1) c->cells[k][c->ncells[k]++] = (uint8_t)cell;
        }
        if (c->type == 0) c->points = NEXT();
        else if (c->type == 1) {
            c->sole = NEXT(); c->first = NEXT(); c->second = NEXT(); c->neither = NEXT(); c->tie = NEXT();
            c->dbl = NEXT();
            c->ncrit = (int)NEXT();
            for (int k = 0; k < c->ncrit; k++) c->crit[k] = (int)NEXT();
        } else {
            c->nworth = (int)NEXT();
            for (int k = 0; k < c->nworth; k++) c->worth[k] = NEXT();
        }
    }
#undef NEXT
    int np = 0;
    for (int a = 0; a < s->ncells; a++)
        for (int b = a + 1; b < s->ncells; b++) {
            s->pidx[a][b] = s->pidx[b][a] = (uint8_t)np;
            s->pa[np] = (uint8_t)a; s->pb[np] = (uint8_t)b; np++;
        }
    for (int j = 0; j < s->nsym; j++)
        for (int q = 0; q < np; q++) s->pairperm[j][q] = s->pidx[s->perm[j][s->pa[q]]][s->perm[j][s->pb[q]]];
    if (log2size < 4) log2size = 4;
    s->tt = calloc((size_t)1 << log2size, sizeof(Entry));
    if (!s->tt) { free(s); return NULL; }
    s->ttmask = ((uint64_t)1 << log2size) - 1;
    return s;
}

void qs_free(void *h) {
    Solver *s = h;
    if (!s) return;
    free(s->tt);
    free(s);
}

uint64_t qs_nodes(void *h) { return ((Solver *)h)->nodes; }
uint64_t qs_stored(void *h) { return ((Solver *)h)->stored; }

/* Replay encoded actions (a*cells+b for a placement, -(cell+1) for a measurement) from the start;
   0 on success, 1 + the index of the first action that is not legal. */
static int replay(const Solver *s, Pos *p, const int32_t *codes, int n) {
    memset(p, 0, sizeof *p);
    p->open = (uint16_t)((1u << s->ncells) - 1);
    for (int c = 0; c < s->ncells; c++) p->comp[c] = (uint16_t)(1u << c);
    p->move = 1;
    p->phase = PLACE;
    for (int i = 0; i < n; i++) {
        int code = codes[i];
        if (p->phase == OVER || p->move >= MAXM - 1) return i + 1;
        if (code < 0) {
            int c = -code - 1;
            if (p->phase != MEASURE || (c != p->ea[p->pending] && c != p->eb[p->pending])) return i + 1;
            measure(s, p, c);
        } else {
            int a = code / s->ncells, b = code % s->ncells;
            if (p->phase != PLACE || a >= s->ncells || !(p->open >> a & 1) || !(p->open >> b & 1)) return i + 1;
            if (a == b && popc(p->open) != 1) return i + 1;
            place(s, p, a, b);
        }
    }
    return 0;
}

/* The fail-soft value of the position after `codes` within (alpha, beta); *status: 0, or 1 + the
   index of an illegal action. */
int64_t qs_search(void *h, const int32_t *codes, int n, int64_t alpha, int64_t beta, int *status) {
    Solver *s = h;
    Pos p;
    *status = replay(s, &p, codes, n);
    if (*status) return 0;
    return search(s, &p, alpha, beta);
}

/* Final score difference (scaled) of the board after `codes` as it stands; *phase gets its phase. */
int64_t qs_score(void *h, const int32_t *codes, int n, int *phase) {
    Solver *s = h;
    Pos p;
    if (replay(s, &p, codes, n)) { *phase = -1; return 0; }
    *phase = p.phase;
    return score(s, &p);
}

/* ---- perft ------------------------------------------------------------------------------------- */

static void perft_walk(const Solver *s, const Pos *p, int level, int depth, uint64_t *counts) {
    if (p->phase == OVER) return;
    uint8_t acts[NPAIR + 2];
    int n = gen(s, p, acts);
    counts[level] += (uint64_t)n;
    if (level + 1 >= depth) return;
    for (int i = 0; i < n; i++) {
        Pos q = *p;
        apply_act(s, &q, acts[i]);
        perft_walk(s, &q, level + 1, depth, counts);
    }
}

/* Perft from the position after `codes`: counts[d-1] = action sequences of length d, d = 1..depth
   (a finished game has no continuation). 0 on success, else 1 + the index of an illegal action. */
int qs_perft(void *h, const int32_t *codes, int n, int depth, uint64_t *counts) {
    Solver *s = h;
    Pos p;
    int status = replay(s, &p, codes, n);
    if (status) return status;
    for (int d = 0; d < depth; d++) counts[d] = 0;
    if (depth > 0) perft_walk(s, &p, 0, depth, counts);
    return 0;
}
