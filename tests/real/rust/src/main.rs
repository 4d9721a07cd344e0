// rustwork - a Rust program with known hot spots for tests/integration/rust.sh.
//
//   rustwork ROUNDS
//
// Each round runs three #[inline(never)] functions whose cost is fixed:
//  - mix: an arithmetic loop (its hot line is marked HOT-LINE below), twice
//    the work of
//  - <rustwork::Half as rustwork::Mixer>::run: the same loop over half the
//    iterations (a trait method: its name has '<', ' as ' and '>');
//  - hash_work: a std HashMap (SipHash-1-3, through
//    <core::hash::sip::Hasher<S> as core::hash::Hasher>::write) filled and
//    looked up, and a slice sorted (core::slice::sort).
// It prints a checksum so that no work can be optimised away.
use std::collections::HashMap;

/// x, as the optimiser cannot see through (std::hint::black_box is newer
/// than Debian 12's rustc 1.63).
fn opaque<T: Copy>(x: T) -> T {
    unsafe { std::ptr::read_volatile(&x) }
}

#[inline(never)]
fn mix(n: u64, seed: u64) -> u64 {
    let mut x = seed;
    for i in 0..n {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(i) ^ (x >> 29); // HOT-LINE
    }
    x
}

trait Mixer {
    fn run(&self, n: u64, seed: u64) -> u64;
}

struct Half;

impl Mixer for Half {
    #[inline(never)]
    fn run(&self, n: u64, seed: u64) -> u64 {
        let mut x = seed;
        for i in 0..n / 2 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i) ^ (x >> 29);
        }
        x
    }
}

#[inline(never)]
fn hash_work(n: u64, seed: u64) -> u64 {
    let mut m: HashMap<Vec<u8>, u64> = HashMap::new();
    let mut keys: Vec<u64> = Vec::with_capacity(n as usize);
    let mut x = seed | 1;
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        keys.push(x);
        *m.entry(x.to_le_bytes().repeat(4)).or_insert(0) += i;
    }
    let mut sum = 0u64;
    for k in &keys {
        sum = sum.wrapping_add(*m.get(&k.to_le_bytes().repeat(4)).unwrap_or(&0));
    }
    keys.sort_unstable();
    sum ^ keys[keys.len() / 2]
}

fn main() {
    let rounds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let mut sum = 0u64;
    for r in 0..rounds {
        sum ^= mix(opaque(4_000_000), r);
        sum ^= opaque(&Half).run(opaque(4_000_000), r);
        sum ^= hash_work(opaque(20_000), r);
    }
    println!("{}", sum);
}
