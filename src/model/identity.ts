// Identity vectors: a fixed pseudo-random ±1/sqrt(d) vector per token string, generated from a
// hash of the token, so every word (also one the training text never had) keeps a direction of
// its own without a table row. Two texts sharing rare words then point the same way, as exact
// matching does; the trained table adds what the words mean. The generator is part of the model
// file's contract (identity_seed): FNV-1a over the UTF-16 code units seeds a xorshift32 stream.

/** FNV-1a 32-bit over the string's UTF-16 code units, mixed with the model's seed. */
export function tokenHash(token: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < token.length; i++) {
    h ^= token.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * Adds `scale` times the identity vector of the token whose tokenHash is `hash` (dimension `d`, a
 * multiple of 32) into `out[offset .. offset + d)`: one xorshift32 word gives the signs of 32
 * components.
 */
export function addIdentity(out: Float32Array, offset: number, d: number, hash: number, scale: number): void {
  let x = hash || 0x9e3779b9;
  const unit = scale / Math.sqrt(d);
  for (let base = 0; base < d; base += 32) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    for (let b = 0; b < 32; b++) out[offset + base + b] += (x >>> b) & 1 ? unit : -unit;
  }
}

/** The dot product of `v[offset .. offset + d)` with the identity vector of `hash` (unscaled). */
export function dotIdentity(v: Float32Array, offset: number, d: number, hash: number): number {
  let x = hash || 0x9e3779b9;
  let s = 0;
  for (let base = 0; base < d; base += 32) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    for (let b = 0; b < 32; b++) s += (x >>> b) & 1 ? v[offset + base + b]! : -v[offset + base + b]!;
  }
  return s / Math.sqrt(d);
}
