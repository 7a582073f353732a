/* Compiled rules core for the nested-classical family (qttt.nested.compiled): Intelligent
   Tic-Tac-Toe and its editions, boards of n×n blocks of n×n cells for n up to 8.

   A second implementation of the rules of qttt/nested.py, each step named by its rule id in
   spec/rules.toml: random playouts that draw from Python's own Mersenne Twister state (so a seed
   gives the same games as `nested.nested_playout`), perft, and positions loaded from the engine's
   states (for the search player's rollouts). The ruleset arrives as the int64 array
   `compiled.config` serialises (layout there): routes and patterns as masks (any route; the
   pattern kinds are expanded to positions by qttt.geometry); points are integers scaled by a
   common denominator chosen in Python. Its field names and award codes come from _config.h,
   which Python generates from the same declarations (`compiled.config_header`); the rules it
   implements are checked by behaviour (tests/project/test_vocabulary.py: a ruleset using each
   parameter value and award plays the engine's games). */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_config.h"
#include "_mt.h"

#define MAXN 8
#define MAXB (MAXN * MAXN)      /* blocks, and positions in a block */
#define MAXCELLS (MAXB * MAXB)  /* cells of the board */
#define MAXW (MAXCELLS / 64)    /* 64-bit words of a set of cells */
#define MAXPAT 64               /* patterns through one position (or one block) */
#define MAXCOMP 8
#define OPEN 0
#define DRAWN 3

typedef struct {
    uint64_t avail[MAXW];                   /* empty cells of open blocks */
    uint64_t loc[2][MAXB];                  /* per block: positions marked by x, by o */
    uint64_t owned[2];                      /* blocks won by x, by o */
    uint64_t free[MAXB];                    /* per block: its empty positions, none once closed */
    int open;                               /* blocks still open */
    int8_t status[MAXB];                    /* OPEN, 1 x won, 2 o won, DRAWN */
    int last, extra, player, move, over, winner;
    int64_t score[2];
} Pos;

typedef struct {
    int type;                               /* QN_AWARD_... */
#define QN_DECLARE(field) int64_t field;
    QN_POINT_FIELDS(QN_DECLARE)
#undef QN_DECLARE
    int64_t weight[MAXB];
} Comp;

typedef struct {
#define QN_DECLARE(field) int field;
    QN_RULES_FIELDS(QN_DECLARE)
#undef QN_DECLARE
    int side, blocks, cells, words, ncomp;
    uint16_t block_of[MAXCELLS], pos_of[MAXCELLS];
    uint64_t full;                          /* every position of a block */
    uint64_t block_mask[MAXB][MAXW];        /* the cells of each block */
    uint64_t route_mask[MAXB][MAXW];        /* per position: the cells of the blocks it routes to */
    int single[MAXB];                       /* per position: the one block it routes to, or -1 */
    uint16_t cell_of[MAXB][MAXB];           /* per block and position: the cell */
    int nlocal[MAXB], nboard[MAXB];
    uint64_t local[MAXB][MAXPAT];           /* per position: the block patterns through it */
    uint64_t board[MAXB][MAXPAT];           /* per block: the board patterns through it */
    Comp comp[MAXCOMP];
    Pos start;                              /* the empty board */
} Rules;

/* Bits set in x (portable: the builtin calls a library routine without a target popcnt) */
static inline int popc(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

/* The position of the k-th lowest bit set in x (k < popc(x)), without branches: the byte holding
   it from the bytes' running counts, then a table for the bit within that byte. */
static uint8_t select8[256][8], count8[256];

static void select_init(void) {
    for (int m = 0; m < 256; m++) {
        int k = 0;
        for (int b = 0; b < 8; b++)
            if (m >> b & 1) select8[m][k++] = (uint8_t)b;
        count8[m] = (uint8_t)k;
    }
}

static inline int select64(uint64_t x, int k) {
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    uint64_t s = x - ((x >> 1) & 0x5555555555555555ULL);
    s = (s & 0x3333333333333333ULL) + ((s >> 2) & 0x3333333333333333ULL);
    s = (s + (s >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    uint64_t upto = s * ones;                            /* byte i: bits set in bytes 0..i */
    uint64_t below = (((uint64_t)k * ones | high) - upto) & high;  /* bytes whose running count <= k */
    int byte = (int)(((below >> 7) * ones) >> 56);
    int before = (int)((upto << 8) >> (8 * byte) & 0xff);
    return 8 * byte + select8[(x >> (8 * byte)) & 0xff][k - before];
}

/* select64 for a mask of at most 16 bits: both bytes' answers, one kept */
static inline int select16(uint64_t x, int k) {
    int lo = (int)(x & 0xff), n = count8[lo];
    int low = select8[lo][k & 7], high = 8 + select8[(x >> 8) & 0xff][(k - n) & 7];
    int in_low = -(k < n);  /* all ones when the bit is in the low byte: no branch to mispredict */
    return (low & in_low) | (high & ~in_low);
}

/* ---- configuration: the QN_RULES_FIELDS (n, then value codes); per position its route (a mask
   of blocks); block patterns (count, masks of positions); board patterns (count, masks of
   blocks); components (count, then each: its QN_AWARD code, the QN_POINT_FIELDS, then one weight
   per block) ------------------------------------------------------------------------------ */

static int read_patterns(const int64_t *cfg, int64_t len, int64_t *at, int count_of_items,
                         int nper[MAXB], uint64_t out[MAXB][MAXPAT]) {
    if (*at >= len) return 0;
    int64_t k = cfg[(*at)++];
    if (k < 0 || *at + k > len) return 0;
    memset(nper, 0, sizeof(int) * MAXB);
    for (int64_t i = 0; i < k; i++) {
        uint64_t m = (uint64_t)cfg[(*at)++];
        for (int q = 0; q < count_of_items; q++)
            if (m >> q & 1) {
                if (nper[q] >= MAXPAT) return 0;
                out[q][nper[q]++] = m;
            }
    }
    return 1;
}

static void start_init(Rules *r);

#define QN_COUNT(field) + 1
#define QN_NRULES (0 QN_RULES_FIELDS(QN_COUNT))
#define QN_NPOINTS (0 QN_POINT_FIELDS(QN_COUNT))

void *qn_new(const int64_t *cfg, int64_t len) {
    if (len < QN_NRULES) return NULL;
    Rules *r = calloc(1, sizeof(Rules));
    if (!r) return NULL;
    select_init();
    int64_t at = 0;
#define QN_READ(field) r->field = (int)cfg[at++];
    QN_RULES_FIELDS(QN_READ)
#undef QN_READ
    if (r->n < 2 || r->n > MAXN) goto bad;
    int n = r->n;
    r->side = r->blocks = n * n;
    r->cells = r->side * r->side;
    r->words = (r->cells + 63) / 64;
    r->full = r->side == 64 ? ~0ULL : (1ULL << r->side) - 1;
    for (int c = 0; c < r->cells; c++) {  /* nested-board: cells row by row over the whole board */
        int row = c / r->side, col = c % r->side;
        r->block_of[c] = (uint16_t)((row / n) * n + col / n);
        r->pos_of[c] = (uint16_t)((row % n) * n + col % n);
        r->block_mask[r->block_of[c]][c >> 6] |= 1ULL << (c & 63);
        r->cell_of[r->block_of[c]][r->pos_of[c]] = (uint16_t)c;
    }
    if (len < at + r->side) goto bad;
    for (int p = 0; p < r->side; p++) {   /* nested-route: the blocks position p names */
        uint64_t blocks = (uint64_t)cfg[at++];
        r->single[p] = blocks && !(blocks & (blocks - 1)) ? __builtin_ctzll(blocks) : -1;
        for (int b = 0; b < r->blocks; b++)
            if (blocks >> b & 1)
                for (int w = 0; w < r->words; w++) r->route_mask[p][w] |= r->block_mask[b][w];
    }
    if (!read_patterns(cfg, len, &at, r->side, r->nlocal, r->local)) goto bad;   /* nested-patterns */
    if (!read_patterns(cfg, len, &at, r->blocks, r->nboard, r->board)) goto bad;
    if (at >= len) goto bad;
    r->ncomp = (int)cfg[at++];
    if (r->ncomp < 0 || r->ncomp > MAXCOMP) goto bad;
    for (int i = 0; i < r->ncomp; i++) {
        Comp *k = &r->comp[i];
        if (at + 1 + QN_NPOINTS + r->blocks > len) goto bad;
        k->type = (int)cfg[at++];
        switch (k->type) {
#define QN_CASE(AWARD) case QN_AWARD_##AWARD:
            QN_AWARDS(QN_CASE) break;
#undef QN_CASE
            default: goto bad;
        }
#define QN_READ(field) k->field = cfg[at++];
        QN_POINT_FIELDS(QN_READ)
#undef QN_READ
        for (int b = 0; b < r->blocks; b++) k->weight[b] = cfg[at++];
    }
    if (at != len) goto bad;
    start_init(r);
    return r;
bad:
    free(r);
    return NULL;
}

void qn_free(void *r) { free(r); }

int qn_pos_size(void) { return (int)sizeof(Pos); }

/* nested-first-move: the empty board, x to move anywhere */
void qn_pos_init(const Rules *r, Pos *s) { *s = r->start; }

static void start_init(Rules *r) {
    Pos *s = &r->start;
    memset(s, 0, sizeof *s);
    for (int c = 0; c < r->cells; c++) s->avail[c >> 6] |= 1ULL << (c & 63);
    for (int b = 0; b < r->blocks; b++) s->free[b] = r->full;
    s->open = r->blocks;
    s->last = -1;
    s->move = 1;
}

/* ---- the rules ------------------------------------------------------------------------------ */

/* The legal cells as a set: nested-route (empty cells of the open blocks the previous cell's
   position names), else nested-first-move / nested-free-move (any empty cell of an open block).
   Returns the number of cells. */
static int allowed(const Rules *r, const Pos *s, uint64_t *out) {
    int count = 0;
    if (s->over) {
        memset(out, 0, sizeof(uint64_t) * (size_t)r->words);
        return 0;
    }
    if (s->last >= 0) {
        const uint64_t *route = r->route_mask[r->pos_of[s->last]];
        for (int w = 0; w < r->words; w++) {
            out[w] = s->avail[w] & route[w];
            count += popc(out[w]);
        }
        if (count) return count;
    }
    for (int w = 0; w < r->words; w++) {
        out[w] = s->avail[w];
        count += popc(out[w]);
    }
    return count;
}

/* The points of a finished game: nested-score-win, nested-score-draw-blocks,
   nested-score-draw-majority. */
static void score(const Rules *r, Pos *s) {
    s->score[0] = s->score[1] = 0;
    for (int i = 0; i < r->ncomp; i++) {
        const Comp *k = &r->comp[i];
        if (k->type == QN_AWARD_WIN) {       /* nested-score-win */
            if (s->winner) s->score[s->winner - 1] += k->points;
            continue;
        }
        if (s->winner) continue;             /* the draw awards score only a game without a winner */
        int64_t worth[2] = {0, 0};
        for (int b = 0; b < r->blocks; b++)
            if (s->status[b] == 1 || s->status[b] == 2) worth[s->status[b] - 1] += k->weight[b];
        if (k->type == QN_AWARD_DRAW_BLOCKS) { /* nested-score-draw-blocks */
            s->score[0] += worth[0];
            s->score[1] += worth[1];
        } else if (worth[0] == worth[1]) {   /* nested-score-draw-majority */
            s->score[0] += k->equal;
            s->score[1] += k->equal;
        } else {
            int more = worth[0] > worth[1] ? 0 : 1;
            s->score[more] += k->more;
            s->score[1 - more] += k->fewer;
        }
    }
}

static void finish(const Rules *r, Pos *s, int winner) {
    s->over = 1;
    s->winner = winner;
    score(r, s);
}

/* One move of the mover in cell c, known legal: nested-block-win, nested-block-draw,
   nested-block-closed, nested-board-win, nested-end-closed, nested-bonus, nested-turn. */
static inline void mark_at(const Rules *r, Pos *s, int c, int b, int q) {
    int p = s->player, w = c >> 6;
    uint64_t bit = 1ULL << (c & 63);
    uint64_t mine = s->loc[p][b] |= 1ULL << q;  /* nested-turn: one mark of the mover */
    s->avail[w] &= ~bit;
    int full = !(s->free[b] &= ~(1ULL << q));
    int won = 0;
    if (full && r->full_block == QN_FULL_BLOCK_DRAWN_FIRST) {  /* nested-block-draw */
        s->status[b] = DRAWN;
    } else {
        for (int i = 0; i < r->nlocal[q]; i++)  /* nested-block-win */
            if ((r->local[q][i] & mine) == r->local[q][i]) {
                won = 1;
                break;
            }
        if (won) s->status[b] = (int8_t)(1 + p);
        else if (full) s->status[b] = DRAWN;  /* nested-block-draw */
    }
    if (s->status[b] != OPEN) {               /* nested-block-closed */
        for (int k = 0; k < r->words; k++) s->avail[k] &= ~r->block_mask[b][k];
        s->free[b] = 0;
        s->open--;
    }
    s->last = c;
    s->move++;
    if (won) {                                /* nested-board-win: a pattern of the mover's blocks */
        uint64_t owned = s->owned[p] |= 1ULL << b;
        for (int i = 0; i < r->nboard[b]; i++)
            if ((r->board[b][i] & owned) == r->board[b][i]) {
                finish(r, s, p + 1);
                return;
            }
    }
    if (!s->open) {                           /* nested-end-closed (an open block has an empty cell) */
        finish(r, s, 0);
        return;
    }
    if (won && (r->bonus == QN_BONUS_CHAIN || (r->bonus == QN_BONUS_BLOCK_WIN && !s->extra))) {  /* nested-bonus */
        s->extra = 1;
    } else {                                  /* nested-turn */
        s->extra = 0;
        s->player = 1 - p;
    }
}

static void mark(const Rules *r, Pos *s, int c) { mark_at(r, s, c, r->block_of[c], r->pos_of[c]); }

/* Apply cell c after the engine's checks, in the order of nested-check-order: 0 when legal, else
   1 over-no-action, 2 nested-board, 3 nested-cell-empty, 4 nested-block-closed, 5 nested-route. */
int qn_apply(const Rules *r, Pos *s, int c) {
    if (s->over) return 1;
    if (c < 0 || c >= r->cells) return 2;
    uint64_t bit = 1ULL << (c & 63);
    int b = r->block_of[c];
    if ((s->loc[0][b] | s->loc[1][b]) >> r->pos_of[c] & 1) return 3;
    if (s->status[b] != OPEN) return 4;
    uint64_t legal[MAXW];
    allowed(r, s, legal);
    if (!(legal[c >> 6] & bit)) return 5;
    mark(r, s, c);
    return 0;
}

/* The legal cells in increasing order; returns their number. */
int qn_legal(const Rules *r, const Pos *s, int32_t *out) {
    uint64_t legal[MAXW];
    allowed(r, s, legal);
    int k = 0;
    for (int w = 0; w < r->words; w++)
        for (uint64_t m = legal[w]; m; m &= m - 1) out[k++] = w * 64 + __builtin_ctzll(m);
    return k;
}

/* A position of the engine: marks of x and o as cell sets, block states, the previous cell (-1
   before the first move), whether the next move is a bonus, the mover, the move number, and the
   winner (0 none, 1 x, 2 o) when over (scored here). */
void qn_load(const Rules *r, Pos *s, const uint64_t *x, const uint64_t *o, const int8_t *status,
             int last, int extra, int player, int move, int over, int winner) {
    qn_pos_init(r, s);
    for (int w = 0; w < r->words; w++) s->avail[w] &= ~(x[w] | o[w]);
    for (int c = 0; c < r->cells; c++) {
        if (x[c >> 6] >> (c & 63) & 1) s->loc[0][r->block_of[c]] |= 1ULL << r->pos_of[c];
        if (o[c >> 6] >> (c & 63) & 1) s->loc[1][r->block_of[c]] |= 1ULL << r->pos_of[c];
    }
    for (int b = 0; b < r->blocks; b++) {
        s->status[b] = status[b];
        s->free[b] = r->full & ~(s->loc[0][b] | s->loc[1][b]);
        if (status[b] == 1 || status[b] == 2) s->owned[status[b] - 1] |= 1ULL << b;
        if (status[b] != OPEN) {
            for (int w = 0; w < r->words; w++) s->avail[w] &= ~r->block_mask[b][w];
            s->free[b] = 0;
            s->open--;
        }
    }
    s->last = last;
    s->extra = extra;
    s->player = player;
    s->move = move;
    if (over) finish(r, s, winner);
}

/* over, mover, move, last, extra, winner, x points, o points, free (the next move may go to any
   open block: nested-first-move, nested-free-move), then the block states */
void qn_export(const Rules *r, const Pos *s, int64_t *out) {
    int free = 1;
    if (s->last >= 0) {
        const uint64_t *route = r->route_mask[r->pos_of[s->last]];
        for (int w = 0; w < r->words; w++)
            if (s->avail[w] & route[w]) free = 0;
    }
    out[0] = s->over;
    out[1] = s->player;
    out[2] = s->move;
    out[3] = s->last;
    out[4] = s->extra;
    out[5] = s->winner;
    out[6] = s->score[0];
    out[7] = s->score[1];
    out[8] = free;
    for (int b = 0; b < r->blocks; b++) out[9 + b] = s->status[b];
}

/* x's marks, then o's, as cell sets of `words` words each */
void qn_marks(const Rules *r, const Pos *s, uint64_t *out) {
    memset(out, 0, sizeof(uint64_t) * 2 * (size_t)r->words);
    for (int c = 0; c < r->cells; c++)
        for (int p = 0; p < 2; p++)
            if (s->loc[p][r->block_of[c]] >> r->pos_of[c] & 1) out[p * r->words + (c >> 6)] |= 1ULL << (c & 63);
}

/* ---- perft ---------------------------------------------------------------------------------- */

static void perft_walk(const Rules *r, const Pos *s, int depth, int level, uint64_t *counts) {
    uint64_t legal[MAXW];
    int k = allowed(r, s, legal);
    counts[level] += (uint64_t)k;
    if (level + 1 >= depth) return;
    Pos child;
    for (int w = 0; w < r->words; w++)
        for (uint64_t m = legal[w]; m; m &= m - 1) {
            child = *s;
            mark(r, &child, w * 64 + __builtin_ctzll(m));
            perft_walk(r, &child, depth, level + 1, counts);
        }
}

/* counts[d - 1]: the action sequences of length d from s, for d = 1..depth */
void qn_perft(const Rules *r, const Pos *s, int depth, uint64_t *counts) {
    memset(counts, 0, sizeof(uint64_t) * (size_t)depth);
    if (depth > 0) perft_walk(r, s, depth, 0, counts);
}

/* ---- random games (nested.nested_playout: the same draws in the same order) ----------------- */

/* Play s to the end with uniformly random legal cells: each move takes the legal cell at index
   int(random() × count) in increasing order. Cells (if not NULL) receive the moves; returns
   their number. */
static int playout(const Rules *r, MT *g, Pos *s, int32_t *cells) {
    uint64_t legal[MAXW];
    int moves = 0, q = s->last >= 0 ? r->pos_of[s->last] : -1;
    while (!s->over) {
        int c, b = q >= 0 ? r->single[q] : -1;
        if (b >= 0 && s->free[b]) {  /* nested-route to one block: its empty positions, in order */
            uint64_t m = s->free[b];
            if (r->side <= 16) {
                q = select16(m, (int)(mt_random(g) * (count8[m & 0xff] + count8[m >> 8 & 0xff])));
            } else {
                q = select64(m, (int)(mt_random(g) * popc(m)));
            }
            c = r->cell_of[b][q];
        } else {
            int k = (int)(mt_random(g) * allowed(r, s, legal));
            int w = 0;
            for (int n; (n = popc(legal[w])) <= k; w++) k -= n;
            c = w * 64 + select64(legal[w], k);
            b = r->block_of[c];
            q = r->pos_of[c];
        }
        if (cells) cells[moves] = c;
        moves++;
        mark_at(r, s, c, b, q);
    }
    return moves;
}

/* `games` random games from the empty board; per game its number of moves (lens), final x and o
   points (scores, 2 per game) and winner (0 none, 1 x, 2 o), and its cells in `cells` (capacity
   cap, NULL for none). The generator state (625 words) is read and updated. Returns the cells
   written, or -1 when cap is too small. */
int64_t qn_games(const Rules *r, uint32_t *state, int64_t games, int32_t *cells, int64_t cap,
                 int32_t *lens, int64_t *scores, int8_t *winners) {
    MT g;
    Pos s;
    int64_t at = 0;
    mt_load(&g, state);
    for (int64_t i = 0; i < games; i++) {
        if (cells && at + r->cells > cap) return -1;
        qn_pos_init(r, &s);
        int n = playout(r, &g, &s, cells ? cells + at : NULL);
        at += cells ? n : 0;
        lens[i] = n;
        scores[2 * i] = s.score[0];
        scores[2 * i + 1] = s.score[1];
        winners[i] = (int8_t)s.winner;
    }
    mt_store(&g, state);
    return at;
}

/* Play s to the end in place with random legal cells drawn from the generator state; returns
   the number of moves. */
int qn_playout(const Rules *r, Pos *s, uint32_t *state) {
    MT g;
    mt_load(&g, state);
    int n = playout(r, &g, s, NULL);
    mt_store(&g, state);
    return n;
}
