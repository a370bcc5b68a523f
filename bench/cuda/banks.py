#!/usr/bin/env python3
"""Shared-memory wavefronts of the register column kernels' access patterns (cuda/fft_kernels.cuh), for the
odd column stride (paddedLen) and the swizzled layout (colOff): per warp-wide 8-byte access, each half-warp
takes as many wavefronts as the most distinct addresses that meet in one bank pair; 1.0 = conflict free.
Patterns: the transposed loads/stores (C columns a block), the exchange reads (T threads a column) and the
first pass's exchange writes (stride = its radix). Run: python3 bench/cuda/banks.py"""
def pad16(i): return i + (i >> 4)
def paddedLen(L): return (L + (L >> 4)) | 1
def swzLen(L): return paddedLen(L) if (L < 16 or L == 64) else (L + (L - 1)//16 + 30) & ~15
def brev4(c): return int(f"{c & 15:04b}"[::-1], 2)
def colOff(L, c, swz): return c*paddedLen(L) if (L < 16 or L == 64 or not swz) else c*swzLen(L) + brev4(c)
def wavefronts(addrs):
    # addrs: list of 32 float2 indices; two half-warps, each: max over banks (16 float2 bank pairs) of distinct addresses
    tot = 0
    for h in (addrs[:16], addrs[16:]):
        by = {}
        for a in h:
            if a is None: continue
            by.setdefault(a % 16, set()).add(a)
        tot += max((len(v) for v in by.values()), default=0)
    return tot
def regRadix(L): return 16 if L >= 16 else L
def sim(L, C, swz, R=None):
    R = R or regRadix(L); T = L // R; B = C*T
    logC = C.bit_length()-1
    res = {}
    # transposed store/load
    tw = 0; ideal = 0
    for w in range(0, B, 32):
        for e in range(R):
            ad = []
            for tid in range(w, min(w+32, B)):
                tc = tid & (C-1); tl = tid >> logC
                ad.append(colOff(L, tc, swz) + pad16(tl + e*T))
            tw += wavefronts(ad); ideal += 2
    res['trans'] = tw/ideal
    # exchange reads (contiguous)
    tw = 0; ideal = 0
    for w in range(0, B, 32):
        for e in range(R):
            ad = []
            for tid in range(w, min(w+32, B)):
                c = tid // T; j = tid % T
                ad.append(colOff(L, c, swz) + pad16(j + e*T))
            tw += wavefronts(ad); ideal += 2
    res['xread'] = tw/ideal
    # first-pass exchange writes (Ns=1, r = firstRadix): dst = jj*r, + m
    r = L
    while r > R: r //= 16
    if r < L:
        tw = 0; ideal = 0
        Q = R // r
        for w in range(0, B, 32):
            for q in range(Q):
                for m in range(r):
                    ad = []
                    for tid in range(w, min(w+32, B)):
                        c = tid // T; j = tid % T; jj = j + q*T
                        ad.append(colOff(L, c, swz) + pad16(jj*r + m))
                    tw += wavefronts(ad); ideal += 2
        res['xwrite1'] = tw/ideal
    return res
print("L, columns a block: wavefronts per access over the ideal (odd stride | swizzled)")
for L, C in [(32, 128), (64, 32), (128, 16), (256, 16), (512, 8), (512, 16), (1024, 4), (1024, 8), (2048, 4), (4096, 2)]:
    print(L, C, 'odd', {k: round(v,2) for k,v in sim(L,C,False).items()}, 'swz', {k: round(v,2) for k,v in sim(L,C,True).items()})
