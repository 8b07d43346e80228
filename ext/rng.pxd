# cython: language_level=3
"""A small, fast, seedable random number generator for deals and playouts.

xoshiro256** (Blackman & Vigna), seeded through splitmix64 as its authors
recommend. Everything is inline and nogil so that search loops in any module
that cimports this file pay no call overhead.
"""

from libc.stdint cimport uint64_t, uint32_t


ctypedef struct Rng:
    uint64_t s[4]


cdef inline uint64_t splitmix64(uint64_t *x) noexcept nogil:
    x[0] += <uint64_t>0x9E3779B97F4A7C15ULL
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline void rng_seed(Rng *r, uint64_t seed) noexcept nogil:
    cdef uint64_t x = seed
    cdef int i
    for i in range(4):
        r.s[i] = splitmix64(&x)


cdef inline uint64_t rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t rng_next(Rng *r) noexcept nogil:
    cdef uint64_t result = rotl(r.s[1] * 5, 7) * 9
    cdef uint64_t t = r.s[1] << 17
    r.s[2] ^= r.s[0]
    r.s[3] ^= r.s[1]
    r.s[1] ^= r.s[2]
    r.s[0] ^= r.s[3]
    r.s[2] ^= t
    r.s[3] = rotl(r.s[3], 45)
    return result


cdef inline uint32_t rng_below(Rng *r, uint32_t n) noexcept nogil:
    """A uniform integer in [0, n) by Lemire's multiply-shift.

    The bias is below n / 2**32, far under anything a game of at most 45
    cards can show, so the rejection step is left out for speed.
    """
    return <uint32_t>(((rng_next(r) >> 32) * <uint64_t>n) >> 32)
