/* Python's Mersenne Twister (Modules/_randommodule.c) over a `random.Random`'s state words and
   index, for the compiled cores that draw the same numbers as the Python engine. */

#ifndef QTTT_MT_H
#define QTTT_MT_H

#include <stdint.h>
#include <string.h>

typedef struct { uint32_t mt[624]; int index; } MT;

/* The next 624 words of the state (the generator's twist), index back to 0. */
static void mt_twist(MT *g) {
    uint32_t y, *mt = g->mt;
    int k;
    for (k = 0; k < 624 - 397; k++) {
        y = (mt[k] & 0x80000000U) | (mt[k + 1] & 0x7fffffffU);
        mt[k] = mt[k + 397] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
    }
    for (; k < 623; k++) {
        y = (mt[k] & 0x80000000U) | (mt[k + 1] & 0x7fffffffU);
        mt[k] = mt[k + (397 - 624)] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
    }
    y = (mt[623] & 0x80000000U) | (mt[0] & 0x7fffffffU);
    mt[623] = mt[396] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
    g->index = 0;
}

/* One 32-bit word (inline: the twist, once in 624 words, is the call) */
static inline uint32_t mt_next(MT *g) {
    if (g->index >= 624) mt_twist(g);
    uint32_t y = g->mt[g->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* random.random(): 53 random bits */
static inline double mt_random(MT *g) {
    uint32_t a = mt_next(g) >> 5, b = mt_next(g) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

static void mt_load(MT *g, const uint32_t *state) {
    memcpy(g->mt, state, sizeof g->mt);
    g->index = (int)state[624];
}

static void mt_store(const MT *g, uint32_t *state) {
    memcpy(state, g->mt, sizeof g->mt);
    state[624] = (uint32_t)g->index;
}

#endif
