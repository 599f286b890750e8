// Adam for sparse parameters ("lazy" Adam, as embedding tables are trained): only the rows a batch
// touched are updated, with the bias correction of the global step. Dense scalars use the same
// rule through a row of length 1.

export interface AdamSettings {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
}

export const ADAM_DEFAULTS: AdamSettings = { lr: 0.01, beta1: 0.9, beta2: 0.999, eps: 1e-8 };

export class SparseAdam {
  private readonly m: Float32Array;
  private readonly v: Float32Array;

  constructor(
    private readonly params: Float32Array,
    private readonly width: number,
    private readonly s: AdamSettings,
  ) {
    this.m = new Float32Array(params.length);
    this.v = new Float32Array(params.length);
  }

  /** Applies `grad` (same layout as the parameters) to the listed rows, then zeroes those gradient rows. */
  step(grad: Float32Array, rows: Iterable<number>, t: number, lr = this.s.lr): void {
    const { beta1, beta2, eps } = this.s;
    const c1 = 1 - beta1 ** t;
    const c2 = 1 - beta2 ** t;
    const w = this.width;
    for (const r of rows) {
      const base = r * w;
      for (let j = base; j < base + w; j++) {
        const g = grad[j]!;
        const m = (this.m[j] = beta1 * this.m[j]! + (1 - beta1) * g);
        const v = (this.v[j] = beta2 * this.v[j]! + (1 - beta2) * g * g);
        this.params[j] -= (lr * (m / c1)) / (Math.sqrt(v / c2) + eps);
        grad[j] = 0;
      }
    }
  }
}
