//! Fixed-width integers of any width in two's complement ([`ApInt`], after MLIR's `APInt`):
//! the values of integer attributes wider than 128 bits, and what the `arith` folders compute
//! on at every width.
//!
//! # Why integers have two representations
//!
//! An integer attribute of up to 128 bits (and every `index` one) is
//! [`AttrData::Integer`](crate::AttrData::Integer), an `i128`: one machine value, cheap to
//! intern, compare and read, and what nearly all code (verifiers, passes, the ONNX importer)
//! handles through [`Uniquer::attr_int`](crate::Uniquer::attr_int).
//! Wider types (`i256`, up to upstream's limit of 16,777,215 bits) are rare and an `i128`
//! cannot hold them, so they are
//! [`AttrData::WideInteger`](crate::AttrData::WideInteger), an [`ApInt`] of the type's width.
//! Each width has exactly one representation (chosen by
//! [`Uniquer::apint_attr`](crate::Uniquer::apint_attr)), so interning stays canonical, and the
//! common case stays a plain number instead of a heap-allocated one.
//! Dense elements need neither: they keep every width as packed little-endian bytes.
//!
//! Arithmetic that is quadratic in the width (multiplication, division, decimal conversion) is
//! plain schoolbook; callers that fold bound the width they fold at.

use std::cmp::Ordering;

/// An integer of `width` bits (at least 1), two's complement; signedness is a property of the
/// operations, as in MLIR's `APInt`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ApInt {
    width: u32,
    /// Little-endian 64-bit words; the bits at and above `width` are zero.
    words: Vec<u64>,
}

fn num_words(width: u32) -> usize {
    (width as usize).div_ceil(64).max(1)
}

impl ApInt {
    /// Zero of `width` bits.
    pub fn zero(width: u32) -> ApInt {
        ApInt {
            width,
            words: vec![0; num_words(width)],
        }
    }

    /// `value` truncated to `width` bits.
    pub fn from_i128(width: u32, value: i128) -> ApInt {
        let fill = if value < 0 { u64::MAX } else { 0 };
        let mut words = vec![fill; num_words(width)];
        words[0] = value as u64;
        if words.len() > 1 {
            words[1] = (value >> 64) as u64;
        }
        ApInt::from_words(width, words)
    }

    /// `value` truncated to `width` bits.
    pub fn from_u128(width: u32, value: u128) -> ApInt {
        let mut words = vec![0; num_words(width)];
        words[0] = value as u64;
        if words.len() > 1 {
            words[1] = (value >> 64) as u64;
        }
        ApInt::from_words(width, words)
    }

    /// The integer whose little-endian words are `words`, truncated or zero-extended to `width`
    /// bits.
    pub fn from_words(width: u32, mut words: Vec<u64>) -> ApInt {
        words.resize(num_words(width), 0);
        let mut v = ApInt { width, words };
        v.clear_unused();
        v
    }

    /// The integer whose little-endian bytes are `bytes` (the layout of dense elements),
    /// truncated or zero-extended to `width` bits.
    pub fn from_le_bytes(width: u32, bytes: &[u8]) -> ApInt {
        let mut words = vec![0u64; num_words(width)];
        for (i, &b) in bytes.iter().enumerate().take(words.len() * 8) {
            words[i / 8] |= u64::from(b) << (8 * (i % 8));
        }
        ApInt::from_words(width, words)
    }

    /// The low `n` bytes, little-endian.
    pub fn to_le_bytes(&self, n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| {
                self.words
                    .get(i / 8)
                    .map_or(0, |w| (w >> (8 * (i % 8))) as u8)
            })
            .collect()
    }

    fn clear_unused(&mut self) {
        let r = self.width % 64;
        if r != 0 {
            if let Some(last) = self.words.last_mut() {
                *last &= (1u64 << r) - 1;
            }
        }
        if self.width == 0 {
            self.words.iter_mut().for_each(|w| *w = 0);
        }
    }

    /// The width in bits.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// The little-endian words.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Bit `i` (0 is the least significant).
    pub fn bit(&self, i: u32) -> bool {
        self.words
            .get(i as usize / 64)
            .is_some_and(|w| (w >> (i % 64)) & 1 == 1)
    }

    fn set_bit(&mut self, i: u32) {
        self.words[i as usize / 64] |= 1 << (i % 64);
    }

    /// Whether the sign bit is set.
    pub fn is_negative(&self) -> bool {
        self.width > 0 && self.bit(self.width - 1)
    }

    /// Whether every bit is zero.
    pub fn is_zero(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The low 128 bits, sign-extended from the width when it is below 128: the exact signed
    /// value for widths up to 128.
    pub fn to_i128(&self) -> i128 {
        let lo = u128::from(self.words[0]) | u128::from(*self.words.get(1).unwrap_or(&0)) << 64;
        crate::util::normalize_int(lo as i128, self.width, crate::Signedness::Signless)
    }

    /// The unsigned value, if it fits 128 bits.
    pub fn to_u128(&self) -> Option<u128> {
        if self.words.iter().skip(2).any(|&w| w != 0) {
            return None;
        }
        Some(u128::from(self.words[0]) | u128::from(*self.words.get(1).unwrap_or(&0)) << 64)
    }

    /// Zero-extends or truncates to `width` bits.
    pub fn zext(&self, width: u32) -> ApInt {
        ApInt::from_words(width, self.words.clone())
    }

    /// Sign-extends or truncates to `width` bits.
    pub fn sext(&self, width: u32) -> ApInt {
        let mut v = self.zext(width);
        if width > self.width && self.is_negative() {
            for i in self.width..width {
                v.set_bit(i);
            }
        }
        v
    }

    fn map2(&self, rhs: &ApInt, f: impl Fn(u64, u64) -> u64) -> ApInt {
        let words = self
            .words
            .iter()
            .zip(&rhs.words)
            .map(|(&a, &b)| f(a, b))
            .collect();
        ApInt::from_words(self.width, words)
    }

    /// `self & rhs` (same width).
    pub fn and(&self, rhs: &ApInt) -> ApInt {
        self.map2(rhs, |a, b| a & b)
    }

    /// `self | rhs` (same width).
    pub fn or(&self, rhs: &ApInt) -> ApInt {
        self.map2(rhs, |a, b| a | b)
    }

    /// `self ^ rhs` (same width).
    pub fn xor(&self, rhs: &ApInt) -> ApInt {
        self.map2(rhs, |a, b| a ^ b)
    }

    /// `!self`.
    pub fn not(&self) -> ApInt {
        let words = self.words.iter().map(|w| !w).collect();
        ApInt::from_words(self.width, words)
    }

    /// `self + rhs`, wrapping, with the carry out of the width.
    pub fn overflowing_add(&self, rhs: &ApInt) -> (ApInt, bool) {
        let mut words = Vec::with_capacity(self.words.len());
        let mut carry = false;
        for (&a, &b) in self.words.iter().zip(&rhs.words) {
            let (s1, c1) = a.overflowing_add(b);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            words.push(s2);
            carry = c1 || c2;
        }
        let r = self.width % 64;
        let carry = if r == 0 {
            carry
        } else {
            words.last().is_some_and(|w| w >> r != 0)
        };
        (ApInt::from_words(self.width, words), carry)
    }

    /// `self + rhs`, wrapping.
    pub fn add(&self, rhs: &ApInt) -> ApInt {
        self.overflowing_add(rhs).0
    }

    /// `-self`, wrapping.
    pub fn neg(&self) -> ApInt {
        self.not().add(&ApInt::from_u128(self.width, 1))
    }

    /// `self - rhs`, wrapping.
    pub fn sub(&self, rhs: &ApInt) -> ApInt {
        self.add(&rhs.neg())
    }

    /// `self * rhs`, wrapping (schoolbook: quadratic in the width).
    pub fn mul(&self, rhs: &ApInt) -> ApInt {
        let n = self.words.len();
        let mut out = vec![0u64; n];
        for (i, &a) in self.words.iter().enumerate() {
            if a == 0 {
                continue;
            }
            let mut carry = 0u128;
            for (j, &b) in rhs.words.iter().enumerate().take(n - i) {
                let t = u128::from(a) * u128::from(b) + u128::from(out[i + j]) + carry;
                out[i + j] = t as u64;
                carry = t >> 64;
            }
        }
        ApInt::from_words(self.width, out)
    }

    /// Unsigned comparison.
    pub fn ucmp(&self, rhs: &ApInt) -> Ordering {
        self.words.iter().rev().cmp(rhs.words.iter().rev())
    }

    /// Signed comparison.
    pub fn scmp(&self, rhs: &ApInt) -> Ordering {
        match (self.is_negative(), rhs.is_negative()) {
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => self.ucmp(rhs),
        }
    }

    /// `self << n`; `None` when `n` is not below the width.
    pub fn shl(&self, n: u64) -> Option<ApInt> {
        (n < u64::from(self.width)).then(|| self.shift_left(n as u32))
    }

    fn shift_left(&self, n: u32) -> ApInt {
        let (ws, bs) = ((n / 64) as usize, n % 64);
        let len = self.words.len();
        let mut out = vec![0u64; len];
        for (i, o) in out.iter_mut().enumerate().skip(ws) {
            let src = i - ws;
            let mut w = self.words[src] << bs;
            if bs != 0 && src > 0 {
                w |= self.words[src - 1] >> (64 - bs);
            }
            *o = w;
        }
        ApInt::from_words(self.width, out)
    }

    /// `self >> n` filling with zeros; `None` when `n` is not below the width.
    pub fn lshr(&self, n: u64) -> Option<ApInt> {
        (n < u64::from(self.width)).then(|| self.shift_right(n as u32, false))
    }

    /// `self >> n` filling with the sign bit; `None` when `n` is not below the width.
    pub fn ashr(&self, n: u64) -> Option<ApInt> {
        (n < u64::from(self.width)).then(|| self.shift_right(n as u32, true))
    }

    fn shift_right(&self, n: u32, arithmetic: bool) -> ApInt {
        let neg = arithmetic && self.is_negative();
        // Work on the value sign-extended to whole words, so vacated bits fill correctly.
        let full = (self.words.len() * 64) as u32;
        let src = if neg { self.sext(full) } else { self.clone() };
        let fill = if neg { u64::MAX } else { 0 };
        let (ws, bs) = ((n / 64) as usize, n % 64);
        let len = src.words.len();
        let word = |i: usize| src.words.get(i).copied().unwrap_or(fill);
        let out = (0..len)
            .map(|i| {
                let lo = word(i + ws) >> bs;
                if bs == 0 {
                    lo
                } else {
                    lo | word(i + ws + 1) << (64 - bs)
                }
            })
            .collect();
        ApInt::from_words(self.width, out)
    }

    /// Unsigned quotient and remainder; `None` when dividing by zero. Bit by bit (quadratic in
    /// the width), with a fast path when both fit 128 bits.
    pub fn udivrem(&self, rhs: &ApInt) -> Option<(ApInt, ApInt)> {
        if rhs.is_zero() {
            return None;
        }
        if let (Some(a), Some(b)) = (self.to_u128(), rhs.to_u128()) {
            return Some((
                ApInt::from_u128(self.width, a / b),
                ApInt::from_u128(self.width, a % b),
            ));
        }
        let mut q = ApInt::zero(self.width);
        let mut r = ApInt::zero(self.width + 1);
        let d = rhs.zext(self.width + 1);
        for i in (0..self.width).rev() {
            r = r.shift_left(1);
            if self.bit(i) {
                r.set_bit(0);
            }
            if r.ucmp(&d) != Ordering::Less {
                r = r.sub(&d);
                q.set_bit(i);
            }
        }
        Some((q, r.zext(self.width)))
    }

    /// Signed quotient (rounded toward zero) and remainder (with the sign of `self`); `None`
    /// when dividing by zero. `MIN / -1` wraps to `MIN`.
    pub fn sdivrem(&self, rhs: &ApInt) -> Option<(ApInt, ApInt)> {
        let abs = |v: &ApInt| if v.is_negative() { v.neg() } else { v.clone() };
        let (q, r) = abs(self).udivrem(&abs(rhs))?;
        let q = if self.is_negative() != rhs.is_negative() {
            q.neg()
        } else {
            q
        };
        let r = if self.is_negative() { r.neg() } else { r };
        Some((q, r))
    }

    /// The signed minimum of the width, `-2^(width-1)`.
    pub fn signed_min(width: u32) -> ApInt {
        let mut v = ApInt::zero(width);
        if width > 0 {
            v.set_bit(width - 1);
        }
        v
    }

    /// The magnitude as a float (`f64`, or `f32` when `single`), rounded to nearest even.
    fn magnitude_to_float(&self, single: bool) -> f64 {
        let top = self
            .words
            .iter()
            .rposition(|&w| w != 0)
            .map_or(0, |i| i as u32 * 64 + 64 - self.words[i].leading_zeros());
        let (t, shift) = if top <= 128 {
            (self.to_u128().unwrap_or(0), 0)
        } else {
            // The top 128 bits and a sticky bit for the rest, which rounds exactly.
            let shift = top - 128;
            let hi = self.shift_right(shift, false);
            let sticky = (0..shift).any(|i| self.bit(i));
            (hi.to_u128().unwrap_or(0) | u128::from(sticky), shift)
        };
        let scale = |f: f64| f * 2f64.powi(shift.min(2048) as i32);
        if single {
            scale(f64::from(t as f32)) as f32 as f64
        } else {
            scale(t as f64)
        }
    }

    /// The value as a float (`f32` when `single`, else `f64`), read as signed or unsigned,
    /// rounded to nearest even.
    pub fn to_float(&self, signed: bool, single: bool) -> f64 {
        if signed && self.is_negative() {
            -self.neg().magnitude_to_float(single)
        } else {
            self.magnitude_to_float(single)
        }
    }

    /// Parses the digits of a non-negative literal (decimal, or hexadecimal after `0x`) into
    /// the least number of words that hold it; `None` for a malformed literal.
    pub fn parse_magnitude(text: &str) -> Option<Vec<u64>> {
        let (digits, radix) = match text.strip_prefix("0x") {
            Some(h) => (h, 16u32),
            None => (text, 10),
        };
        if digits.is_empty() {
            return None;
        }
        if radix == 16 {
            let mut words = Vec::with_capacity(digits.len().div_ceil(16));
            let b = digits.as_bytes();
            let mut end = b.len();
            while end > 0 {
                let start = end.saturating_sub(16);
                let chunk = std::str::from_utf8(&b[start..end]).ok()?;
                words.push(u64::from_str_radix(chunk, 16).ok()?);
                end = start;
            }
            return Some(words);
        }
        // Decimal: 19 digits at a time, multiplying the words so far by 10^19.
        let mut words: Vec<u64> = vec![0];
        let b = digits.as_bytes();
        for chunk in b.chunks(19) {
            let chunk = std::str::from_utf8(chunk).ok()?;
            let v: u64 = chunk.parse().ok()?;
            let m = 10u128.pow(chunk.len() as u32);
            let mut carry = u128::from(v);
            for w in words.iter_mut() {
                let t = u128::from(*w) * m + carry;
                *w = t as u64;
                carry = t >> 64;
            }
            if carry != 0 {
                words.push(carry as u64);
            }
        }
        Some(words)
    }

    /// The value in decimal, read as signed or unsigned.
    pub fn to_decimal(&self, signed: bool) -> String {
        let neg = signed && self.is_negative();
        let mut mag: Vec<u64> = if neg {
            self.neg().words
        } else {
            self.words.clone()
        };
        while mag.len() > 1 && mag.last() == Some(&0) {
            mag.pop();
        }
        // Repeated division by 10^19, collecting 19-digit groups from the least significant.
        const TEN19: u128 = 10_000_000_000_000_000_000;
        let mut groups = Vec::new();
        loop {
            let mut rem = 0u128;
            for w in mag.iter_mut().rev() {
                let cur = (rem << 64) | u128::from(*w);
                *w = (cur / TEN19) as u64;
                rem = cur % TEN19;
            }
            groups.push(rem as u64);
            while mag.len() > 1 && mag.last() == Some(&0) {
                mag.pop();
            }
            if mag.iter().all(|&w| w == 0) {
                break;
            }
        }
        let mut s = String::new();
        if neg {
            s.push('-');
        }
        let mut it = groups.iter().rev();
        if let Some(first) = it.next() {
            s.push_str(&first.to_string());
        }
        for g in it {
            s.push_str(&format!("{g:019}"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(v: &ApInt) -> String {
        v.to_decimal(true)
    }

    #[test]
    fn decimal_round_trips() {
        let max256 =
            "115792089237316195423570985008687907853269984665640564039457584007913129639935";
        let w = ApInt::from_words(256, ApInt::parse_magnitude(max256).unwrap_or_default());
        assert_eq!(w.to_decimal(false), max256);
        assert_eq!(dec(&w), "-1");
        let min128 = ApInt::signed_min(128);
        assert_eq!(dec(&min128), "-170141183460469231731687303715884105728");
        assert_eq!(min128.to_i128(), i128::MIN);
        assert_eq!(ApInt::zero(7).to_decimal(true), "0");
        let h = ApInt::parse_magnitude("0x1FFFFFFFFFFFFFFFF").unwrap_or_default();
        assert_eq!(h, vec![u64::MAX, 1]);
    }

    #[test]
    fn arithmetic_matches_i128_at_narrow_widths() {
        let vals = [0i128, 1, -1, 7, -128, 127, 255, 3, -3, 1 << 40];
        for &a in &vals {
            for &b in &vals {
                for w in [8u32, 64, 100] {
                    let (x, y) = (ApInt::from_i128(w, a), ApInt::from_i128(w, b));
                    let n = |v: i128| crate::util::normalize_int(v, w, crate::Signedness::Signless);
                    assert_eq!(x.add(&y).to_i128(), n(a.wrapping_add(b)));
                    assert_eq!(x.sub(&y).to_i128(), n(a.wrapping_sub(b)));
                    assert_eq!(x.mul(&y).to_i128(), n(n(a).wrapping_mul(n(b))));
                    if n(b) != 0 {
                        let (q, r) = x.sdivrem(&y).unwrap_or_else(|| unreachable!());
                        if !(n(a) == n(i128::MIN >> (128 - w)) && n(b) == -1) {
                            assert_eq!(q.to_i128(), n(n(a) / n(b)), "{a} / {b} at {w}");
                            assert_eq!(r.to_i128(), n(n(a) % n(b)));
                        }
                    }
                    assert_eq!(x.scmp(&y), n(a).cmp(&n(b)));
                }
            }
        }
    }

    #[test]
    fn unsigned_operations_at_128_and_256_bits() {
        let m1 = ApInt::from_i128(128, -1);
        let one = ApInt::from_i128(128, 1);
        assert_eq!(m1.ucmp(&one), Ordering::Greater);
        assert_eq!(m1.lshr(127).map(|v| v.to_i128()), Some(1));
        assert_eq!(m1.ashr(127).map(|v| v.to_i128()), Some(-1));
        let (q, r) = m1
            .udivrem(&ApInt::from_i128(128, 3))
            .unwrap_or_else(|| unreachable!());
        assert_eq!(q.to_u128(), Some(u128::MAX / 3));
        assert_eq!(r.to_u128(), Some(0));
        let w = ApInt::from_i128(256, -1);
        let (q, _) = w
            .udivrem(&ApInt::from_i128(256, 2))
            .unwrap_or_else(|| unreachable!());
        assert_eq!(
            q.to_decimal(false),
            w.lshr(1).map(|v| v.to_decimal(false)).unwrap_or_default()
        );
        assert_eq!(w.sext(300).to_decimal(true), "-1");
        assert!(!w.zext(300).is_negative());
        assert_eq!(
            ApInt::from_i128(256, 1).shl(200).map(|v| v.bit(200)),
            Some(true)
        );
        assert_eq!(m1.to_float(false, false), 2f64.powi(128));
        assert_eq!(w.to_float(false, false), 2f64.powi(256));
        assert_eq!(w.to_float(true, false), -1.0);
        let (_, carry) = m1.overflowing_add(&one);
        assert!(carry);
    }
}
