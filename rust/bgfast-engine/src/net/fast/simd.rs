//! Sixteen-lane float vectors: one trait, an AVX-512 body, an AVX2+FMA body and a portable
//! one, and the vectorized functions the forward pass needs (exp, tanh, the logistic
//! function).
//!
//! Every kernel is written once against [`Simd`] and compiled into each build by inlining
//! (`#[inline(always)]` all the way down to the entry points in `kernels`). A value of a
//! build's type is a proof that its instructions may run: [`Portable`] always, [`Avx2`] and
//! [`Avx512`] only when made by the dispatcher after run-time detection.
//!
//! The layout of a compiled net is the same for every build: blocks of sixteen floats, one
//! AVX-512 register, two AVX2 registers. A build that switches at run time (tests force the
//! baseline) then needs no second copy of the weights; AVX2 pays for it only in padding
//! (150 hidden units take 160 lanes instead of 152).

/// Floats per block.
pub(crate) const LANES: usize = 16;

/// Sixteen floats, aligned for one 512-bit load.
#[derive(Clone, Copy, PartialEq, Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct Block(pub(crate) [f32; LANES]);

/// One build's vector instructions.
pub(crate) trait Simd: Copy {
    /// Sixteen floats in registers.
    type V: Copy;
    /// How many blocks of a layer one pass keeps in registers (the first layer's sums, then
    /// their activations and the head's products): as many as the build's registers hold
    /// beside the constants and the head's accumulators.
    const GROUP: usize;
    /// Every lane `x`.
    fn splat(self, x: f32) -> Self::V;
    /// The lanes of `b`.
    fn load(self, b: &Block) -> Self::V;
    /// Writes `v` into `b`.
    fn store(self, b: &mut Block, v: Self::V);
    /// `a + b`.
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a - b`.
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a * b`.
    fn mul(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a / b`.
    fn div(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a * b + c`, with one rounding where the build has FMA.
    fn fma(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    /// `c - a * b`, with one rounding where the build has FMA.
    fn fnma(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    /// Lane-wise minimum (`b` if either is NaN).
    fn min(self, a: Self::V, b: Self::V) -> Self::V;
    /// Lane-wise maximum (`b` if either is NaN).
    fn max(self, a: Self::V, b: Self::V) -> Self::V;
    /// `2^n` for `k = n + MAGIC`, where `n` is an integer in `-126..=127` (what rounding
    /// by adding [`MAGIC`] leaves in the float's low mantissa bits).
    fn pow2_magic(self, k: Self::V) -> Self::V;
    /// A dot product's partial sums: lanes that add up to it. As wide as a block where the
    /// registers allow; AVX2 folds a block's two halves into one register, so that a head of
    /// six outputs holds six registers, not twelve.
    type Acc: Copy;
    /// Partial sums of nothing.
    fn acc_zero(self) -> Self::Acc;
    /// `acc` plus the lane-wise products of `a` and `b`.
    fn acc_fma(self, a: Self::V, b: Self::V, acc: Self::Acc) -> Self::Acc;
    /// Two partial sums of the same dot product, added.
    fn acc_add(self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// Lane `j < 8` of the result is the dot product of `acc[j]` (the sum of its lanes);
    /// lanes from 8 on are 0.
    fn reduce8(self, acc: [Self::Acc; 8]) -> Self::V;
}

/// `1.5 * 2^23`: adding it rounds a float of magnitude below `2^22` to an integer, which
/// then sits in the low mantissa bits.
pub(crate) const MAGIC: f32 = 12_582_912.0;
/// The float bits of [`MAGIC`] less the exponent bias: `bits(n + MAGIC) - POW2_BIAS` is the
/// biased exponent of `2^n`.
const POW2_BIAS: u32 = 0x4B40_0000 - 127;

/// `e^y` for `y` in `[-87, 87]` (callers clamp): Cephes' `expf` (Cody-Waite reduction by
/// `ln 2` in two parts, a degree-5 minimax polynomial), within about 1 ulp.
#[inline(always)]
pub(crate) fn exp<S: Simd>(s: S, y: S::V) -> S::V {
    const LOG2E: f32 = core::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4; // 0.693359375 exactly: 355 / 512
    const LN2_LO: f32 = -2.121_944_4e-4;
    const P: [f32; 6] = [
        1.987_569_1e-4,
        1.398_199_9e-3,
        8.333_452e-3,
        4.166_579_6e-2,
        1.666_666_5e-1,
        0.5,
    ];
    let k = s.fma(y, s.splat(LOG2E), s.splat(MAGIC));
    let n = s.sub(k, s.splat(MAGIC));
    let r = s.fnma(n, s.splat(LN2_HI), y);
    let r = s.fnma(n, s.splat(LN2_LO), r);
    let mut p = s.splat(P[0]);
    let mut i = 1;
    while i < P.len() {
        p = s.fma(p, r, s.splat(P[i]));
        i += 1;
    }
    let r2 = s.mul(r, r);
    let e = s.fma(p, r2, s.add(r, s.splat(1.0)));
    s.mul(e, s.pow2_magic(k))
}

/// `tanh x` as Eigen's float approximation (`generic_fast_tanh_float`): `x` clamped to
/// `[-c, c]`, `c = 7.905311` (where the quotient reaches 1 in float), then `x P(x²) / Q(x²)`
/// with `P` of degree 6 and `Q` of degree 3, a minimax fit. Absolute error below 4e-7 (tested
/// over a dense grid; 2e-7 for the exp-based form this replaced, which took four more
/// operations per vector); a next layer's sum of 150 of them moves by about 1e-6 at worst,
/// below the 2e-5 the outputs are held to. Odd, and exactly 0 at 0.
#[inline(always)]
pub(crate) fn tanh<S: Simd>(s: S, x: S::V) -> S::V {
    const CLAMP: f32 = 7.905_311;
    // Highest degree first.
    const P: [f32; 7] = [
        -2.760_768_5e-16,
        2.000_188e-13,
        -8.604_672e-11,
        5.122_297e-8,
        1.485_722_4e-5,
        6.372_619e-4,
        4.893_524_6e-3,
    ];
    const Q: [f32; 4] = [1.198_258_4e-6, 1.185_347_1e-4, 2.268_434_6e-3, 4.893_525e-3];
    let x = s.max(s.min(x, s.splat(CLAMP)), s.splat(-CLAMP));
    let x2 = s.mul(x, x);
    let mut p = s.splat(P[0]);
    let mut i = 1;
    while i < P.len() {
        p = s.fma(p, x2, s.splat(P[i]));
        i += 1;
    }
    let mut q = s.splat(Q[0]);
    let mut i = 1;
    while i < Q.len() {
        q = s.fma(q, x2, s.splat(Q[i]));
        i += 1;
    }
    s.div(s.mul(x, p), q)
}

/// The logistic function `1 / (1 + e^-x)`, `x` clamped to `[-87, 87]`; within about 2e-7
/// relative.
#[inline(always)]
pub(crate) fn sigmoid<S: Simd>(s: S, x: S::V) -> S::V {
    let x = s.max(s.min(x, s.splat(87.0)), s.splat(-87.0));
    let e = exp(s, s.sub(s.splat(0.0), x));
    let one = s.splat(1.0);
    s.div(one, s.add(one, e))
}

/// The portable build: plain arrays, which the compiler vectorizes for the target's
/// baseline (SSE2 on x86-64).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Portable;

impl Portable {
    /// `f` lane by lane (a plain loop: see `kernels` on closures and generic helpers).
    #[inline(always)]
    fn map2(a: [f32; LANES], b: [f32; LANES], f: impl Fn(f32, f32) -> f32) -> [f32; LANES] {
        let mut r = [0.0; LANES];
        for i in 0..LANES {
            r[i] = f(a[i], b[i]);
        }
        r
    }
}

impl Simd for Portable {
    type V = [f32; LANES];
    // SSE2 has sixteen 4-float registers: one block is four of them.
    const GROUP: usize = 1;

    #[inline(always)]
    fn splat(self, x: f32) -> Self::V {
        [x; LANES]
    }
    #[inline(always)]
    fn load(self, b: &Block) -> Self::V {
        b.0
    }
    #[inline(always)]
    fn store(self, b: &mut Block, v: Self::V) {
        b.0 = v;
    }
    #[inline(always)]
    fn add(self, a: Self::V, b: Self::V) -> Self::V {
        Self::map2(a, b, |x, y| x + y)
    }
    #[inline(always)]
    fn sub(self, a: Self::V, b: Self::V) -> Self::V {
        Self::map2(a, b, |x, y| x - y)
    }
    #[inline(always)]
    fn mul(self, a: Self::V, b: Self::V) -> Self::V {
        Self::map2(a, b, |x, y| x * y)
    }
    #[inline(always)]
    fn div(self, a: Self::V, b: Self::V) -> Self::V {
        Self::map2(a, b, |x, y| x / y)
    }
    #[inline(always)]
    fn fma(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V {
        // Two roundings: a software fused multiply-add would be far slower.
        let mut r = c;
        for i in 0..LANES {
            r[i] += a[i] * b[i];
        }
        r
    }
    #[inline(always)]
    fn fnma(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V {
        let mut r = c;
        for i in 0..LANES {
            r[i] -= a[i] * b[i];
        }
        r
    }
    #[inline(always)]
    fn min(self, a: Self::V, b: Self::V) -> Self::V {
        // As SSE's minps: `a` only when it is smaller.
        Self::map2(a, b, |x, y| if x < y { x } else { y })
    }
    #[inline(always)]
    fn max(self, a: Self::V, b: Self::V) -> Self::V {
        Self::map2(a, b, |x, y| if x > y { x } else { y })
    }
    #[inline(always)]
    fn pow2_magic(self, k: Self::V) -> Self::V {
        let mut r = [0.0; LANES];
        for i in 0..LANES {
            r[i] = f32::from_bits(k[i].to_bits().wrapping_sub(POW2_BIAS) << 23);
        }
        r
    }
    type Acc = [f32; 8];
    #[inline(always)]
    fn acc_zero(self) -> [f32; 8] {
        [0.0; 8]
    }
    #[inline(always)]
    fn acc_fma(self, a: Self::V, b: Self::V, acc: [f32; 8]) -> [f32; 8] {
        let mut r = acc;
        for i in 0..8 {
            r[i] += a[i] * b[i];
            r[i] += a[i + 8] * b[i + 8];
        }
        r
    }
    #[inline(always)]
    fn acc_add(self, a: [f32; 8], b: [f32; 8]) -> [f32; 8] {
        let mut r = a;
        for i in 0..8 {
            r[i] += b[i];
        }
        r
    }
    #[inline(always)]
    fn reduce8(self, acc: [[f32; 8]; 8]) -> Self::V {
        let mut r = [0.0; LANES];
        for (j, h) in acc.iter().enumerate() {
            r[j] = ((h[0] + h[4]) + (h[2] + h[6])) + ((h[1] + h[5]) + (h[3] + h[7]));
        }
        r
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use avx2::Avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) use avx512::Avx512;

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Block, Simd, POW2_BIAS};
    use core::arch::x86_64::*;

    /// The AVX2+FMA build. A value exists only on a CPU with both ([`Avx2::new_unchecked`]),
    /// which is what makes its methods' intrinsics sound.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Avx2(());

    impl Avx2 {
        /// The token.
        ///
        /// # Safety
        /// The CPU must have AVX2 and FMA.
        #[inline(always)]
        pub(crate) unsafe fn new_unchecked() -> Avx2 {
            Avx2(())
        }
    }

    /// `$f` on both halves of blocks (a macro, not a function taking a closure: closures
    /// are compiled without the entry point's target features, see `kernels`).
    macro_rules! halves {
        ($f:ident($($v:ident),+)) => {
            [$f($($v[0]),+), $f($($v[1]),+)]
        };
    }

    // SAFETY (every `unsafe` block in this impl): `self` is an `Avx2` token, made only by
    // `Avx2::new_unchecked` after detecting AVX2 and FMA, so the intrinsics' instructions
    // exist; loads and stores go through references to 64-byte aligned `Block`s, whose
    // halves are 32-byte aligned.
    impl Simd for Avx2 {
        type V = [__m256; 2];
        // Four blocks are eight of the sixteen registers: eight multiply-add chains in
        // flight (see `kernels::pre_activation`), beside a head's five accumulators.
        // Against two blocks with second partial sums: 17% fewer instructions.
        const GROUP: usize = 4;

        #[inline(always)]
        fn splat(self, x: f32) -> [__m256; 2] {
            let v = unsafe { _mm256_set1_ps(x) };
            [v, v]
        }
        #[inline(always)]
        fn load(self, b: &Block) -> [__m256; 2] {
            unsafe {
                [
                    _mm256_load_ps(b.0.as_ptr()),
                    _mm256_load_ps(b.0[8..].as_ptr()),
                ]
            }
        }
        #[inline(always)]
        fn store(self, b: &mut Block, v: [__m256; 2]) {
            unsafe {
                _mm256_store_ps(b.0.as_mut_ptr(), v[0]);
                _mm256_store_ps(b.0[8..].as_mut_ptr(), v[1]);
            }
        }
        #[inline(always)]
        fn add(self, a: [__m256; 2], b: [__m256; 2]) -> [__m256; 2] {
            unsafe { halves!(_mm256_add_ps(a, b)) }
        }
        #[inline(always)]
        fn sub(self, a: [__m256; 2], b: [__m256; 2]) -> [__m256; 2] {
            unsafe { halves!(_mm256_sub_ps(a, b)) }
        }
        #[inline(always)]
        fn mul(self, a: [__m256; 2], b: [__m256; 2]) -> [__m256; 2] {
            unsafe { halves!(_mm256_mul_ps(a, b)) }
        }
        #[inline(always)]
        fn div(self, a: [__m256; 2], b: [__m256; 2]) -> [__m256; 2] {
            unsafe { halves!(_mm256_div_ps(a, b)) }
        }
        #[inline(always)]
        fn fma(self, a: [__m256; 2], b: [__m256; 2], c: [__m256; 2]) -> [__m256; 2] {
            unsafe { halves!(_mm256_fmadd_ps(a, b, c)) }
        }
        #[inline(always)]
        fn fnma(self, a: [__m256; 2], b: [__m256; 2], c: [__m256; 2]) -> [__m256; 2] {
            unsafe { halves!(_mm256_fnmadd_ps(a, b, c)) }
        }
        #[inline(always)]
        fn min(self, a: [__m256; 2], b: [__m256; 2]) -> [__m256; 2] {
            unsafe { halves!(_mm256_min_ps(a, b)) }
        }
        #[inline(always)]
        fn max(self, a: [__m256; 2], b: [__m256; 2]) -> [__m256; 2] {
            unsafe { halves!(_mm256_max_ps(a, b)) }
        }
        #[inline(always)]
        fn pow2_magic(self, k: [__m256; 2]) -> [__m256; 2] {
            unsafe {
                let bias = _mm256_set1_epi32(POW2_BIAS as i32);
                let bits = [
                    _mm256_sub_epi32(_mm256_castps_si256(k[0]), bias),
                    _mm256_sub_epi32(_mm256_castps_si256(k[1]), bias),
                ];
                [
                    _mm256_castsi256_ps(_mm256_slli_epi32::<23>(bits[0])),
                    _mm256_castsi256_ps(_mm256_slli_epi32::<23>(bits[1])),
                ]
            }
        }
        type Acc = __m256;
        #[inline(always)]
        fn acc_zero(self) -> __m256 {
            unsafe { _mm256_setzero_ps() }
        }
        #[inline(always)]
        fn acc_fma(self, a: [__m256; 2], b: [__m256; 2], acc: __m256) -> __m256 {
            unsafe { _mm256_fmadd_ps(a[1], b[1], _mm256_fmadd_ps(a[0], b[0], acc)) }
        }
        #[inline(always)]
        fn acc_add(self, a: __m256, b: __m256) -> __m256 {
            unsafe { _mm256_add_ps(a, b) }
        }
        #[inline(always)]
        fn reduce8(self, a: [__m256; 8]) -> [__m256; 2] {
            unsafe { [reduce8_256(a), _mm256_setzero_ps()] }
        }
    }

    /// Lane `j` of the result is the sum of the lanes of `a[j]`.
    ///
    /// # Safety
    /// The CPU must have AVX.
    #[inline(always)]
    pub(super) unsafe fn reduce8_256(a: [__m256; 8]) -> __m256 {
        // SAFETY: the caller guarantees AVX; these touch registers only.
        unsafe {
            // Pairwise sums within 128-bit halves, then the halves added.
            let t0 = _mm256_hadd_ps(a[0], a[1]);
            let t1 = _mm256_hadd_ps(a[2], a[3]);
            let t2 = _mm256_hadd_ps(a[4], a[5]);
            let t3 = _mm256_hadd_ps(a[6], a[7]);
            let u0 = _mm256_hadd_ps(t0, t1);
            let u1 = _mm256_hadd_ps(t2, t3);
            let lo = _mm256_permute2f128_ps::<0x20>(u0, u1);
            let hi = _mm256_permute2f128_ps::<0x31>(u0, u1);
            _mm256_add_ps(lo, hi)
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::avx2::reduce8_256;
    use super::{Block, Simd, POW2_BIAS};
    use core::arch::x86_64::*;

    /// The AVX-512 build (AVX-512F, with AVX2 and FMA for the 256-bit steps). A value
    /// exists only on a CPU with them ([`Avx512::new_unchecked`]), which is what makes its
    /// methods' intrinsics sound.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Avx512(());

    impl Avx512 {
        /// The token.
        ///
        /// # Safety
        /// The CPU must have AVX-512F, AVX2 and FMA.
        #[inline(always)]
        pub(crate) unsafe fn new_unchecked() -> Avx512 {
            Avx512(())
        }
    }

    // SAFETY (every `unsafe` block in this impl): `self` is an `Avx512` token, made only by
    // `Avx512::new_unchecked` after detecting AVX-512F, AVX2 and FMA, so the intrinsics'
    // instructions exist; loads and stores go through references to 64-byte aligned
    // `Block`s.
    impl Simd for Avx512 {
        type V = __m512;
        // Thirty-two registers: a wildbg contact layer's ten blocks stay in registers from
        // the first delta to the head, beside the activation's constants.
        const GROUP: usize = 12;

        #[inline(always)]
        fn splat(self, x: f32) -> __m512 {
            unsafe { _mm512_set1_ps(x) }
        }
        #[inline(always)]
        fn load(self, b: &Block) -> __m512 {
            unsafe { _mm512_load_ps(b.0.as_ptr()) }
        }
        #[inline(always)]
        fn store(self, b: &mut Block, v: __m512) {
            unsafe { _mm512_store_ps(b.0.as_mut_ptr(), v) }
        }
        #[inline(always)]
        fn add(self, a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_add_ps(a, b) }
        }
        #[inline(always)]
        fn sub(self, a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_sub_ps(a, b) }
        }
        #[inline(always)]
        fn mul(self, a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_mul_ps(a, b) }
        }
        #[inline(always)]
        fn div(self, a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_div_ps(a, b) }
        }
        #[inline(always)]
        fn fma(self, a: __m512, b: __m512, c: __m512) -> __m512 {
            unsafe { _mm512_fmadd_ps(a, b, c) }
        }
        #[inline(always)]
        fn fnma(self, a: __m512, b: __m512, c: __m512) -> __m512 {
            unsafe { _mm512_fnmadd_ps(a, b, c) }
        }
        #[inline(always)]
        fn min(self, a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_min_ps(a, b) }
        }
        #[inline(always)]
        fn max(self, a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_max_ps(a, b) }
        }
        #[inline(always)]
        fn pow2_magic(self, k: __m512) -> __m512 {
            unsafe {
                let bits =
                    _mm512_sub_epi32(_mm512_castps_si512(k), _mm512_set1_epi32(POW2_BIAS as i32));
                _mm512_castsi512_ps(_mm512_slli_epi32::<23>(bits))
            }
        }
        type Acc = __m512;
        #[inline(always)]
        fn acc_zero(self) -> __m512 {
            unsafe { _mm512_setzero_ps() }
        }
        #[inline(always)]
        fn acc_fma(self, a: __m512, b: __m512, acc: __m512) -> __m512 {
            unsafe { _mm512_fmadd_ps(a, b, acc) }
        }
        #[inline(always)]
        fn acc_add(self, a: __m512, b: __m512) -> __m512 {
            unsafe { _mm512_add_ps(a, b) }
        }
        #[inline(always)]
        fn reduce8(self, a: [__m512; 8]) -> __m512 {
            unsafe {
                // The 256-bit halves added, then as AVX2 does.
                let mut h = [_mm256_setzero_ps(); 8];
                for j in 0..8 {
                    let hi = _mm512_extractf64x4_pd::<1>(_mm512_castps_pd(a[j]));
                    h[j] = _mm256_add_ps(_mm512_castps512_ps256(a[j]), _mm256_castpd_ps(hi));
                }
                _mm512_zextps256_ps512(reduce8_256(h))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lanes of `v`.
    fn lanes<S: Simd>(s: S, v: S::V) -> [f32; LANES] {
        let mut b = Block::default();
        s.store(&mut b, v);
        b.0
    }

    fn max_tanh_error<S: Simd>(s: S) -> f64 {
        let mut worst = 0.0f64;
        let mut x = -12.0f32;
        while x < 12.0 {
            let xs: [f32; LANES] = core::array::from_fn(|i| x + i as f32 * 1e-4);
            let got = lanes(s, tanh(s, s.load(&Block(xs))));
            for (g, l) in got.iter().zip(xs) {
                worst = worst.max((*g as f64 - (l as f64).tanh()).abs());
            }
            x += 7.77e-4;
        }
        worst
    }

    fn check_exp_and_sigmoid<S: Simd>(s: S) {
        for i in -870..=870 {
            let y = i as f32 / 10.0;
            let e = lanes(s, exp(s, s.splat(y)))[LANES - 1] as f64;
            let want = (y as f64).exp();
            assert!((e - want).abs() <= 3e-7 * want, "{y}: {e} {want}");
            let g = lanes(s, sigmoid(s, s.splat(y)))[0] as f64;
            let want = 1.0 / (1.0 + (-(y as f64)).exp());
            assert!((g - want).abs() <= 3e-7 * want, "{y}: {g} {want}");
        }
    }

    fn check_dot_products<S: Simd>(s: S) {
        let a: [[f32; LANES]; 8] =
            core::array::from_fn(|j| core::array::from_fn(|i| (j * LANES + i) as f32));
        let b: [f32; LANES] = core::array::from_fn(|i| (i % 3) as f32 - 0.5);
        let mut want = [0.0; LANES];
        for j in 0..8 {
            want[j] = 2.0 * (0..LANES).map(|i| a[j][i] * b[i]).sum::<f32>();
        }
        let b = s.load(&Block(b));
        let acc = a.map(|a| {
            let once = s.acc_fma(s.load(&Block(a)), b, s.acc_zero());
            s.acc_add(once, once)
        });
        assert_eq!(lanes(s, s.reduce8(acc)), want);
    }

    /// Every check on one build.
    fn check<S: Simd>(s: S) {
        let worst = max_tanh_error(s);
        assert!(worst < 4e-7, "{worst}");
        check_exp_and_sigmoid(s);
        check_dot_products(s);
    }

    #[test]
    fn portable_functions_are_close() {
        check(Portable);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_functions_are_close() {
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            // SAFETY: both features were just detected.
            check(unsafe { Avx2::new_unchecked() });
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_functions_are_close() {
        if super::super::avx512_detected() {
            // SAFETY: the features were just detected.
            check(unsafe { Avx512::new_unchecked() });
        }
    }
}
