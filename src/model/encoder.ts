// Serving side of the static model: text -> tokens -> bag -> pooled unit vector, in process.
// Queries and passages go through the same function (one vector space).
import { addIdentity, tokenHash } from "./identity.js";
import { pool, type PoolParams, type Shape, type TokenBag } from "./pooling.js";
import { modelTokens } from "./tokenizer.js";

export interface EncoderParts {
  vocabulary: string[];
  params: PoolParams;
  shape: Shape;
  identitySeed: number;
}

export class StaticEncoder {
  readonly dimension: number;
  private readonly rowOf: Map<string, number>;

  constructor(readonly parts: EncoderParts) {
    this.dimension = parts.shape.dim + parts.shape.identityDim;
    this.rowOf = new Map(parts.vocabulary.map((t, i) => [t, i]));
  }

  /** the token's row in the table, -1 when it is not in the vocabulary */
  rowOfToken(token: string): number {
    return this.rowOf.get(token) ?? -1;
  }

  /** The text's tokens as the model pools them (distinct, with counts). */
  bag(text: string): TokenBag {
    const counts = new Map<string, number>();
    for (const t of modelTokens(text)) counts.set(t, (counts.get(t) ?? 0) + 1);
    const n = counts.size;
    const bag: TokenBag = { rows: new Int32Array(n), hashes: new Uint32Array(n), counts: new Uint16Array(n), length: n };
    let i = 0;
    for (const [t, c] of counts) {
      bag.rows[i] = this.rowOf.get(t) ?? -1;
      bag.hashes[i] = tokenHash(t, this.parts.identitySeed);
      bag.counts[i++] = Math.min(c, 65535);
    }
    return bag;
  }

  /**
   * The text's unit vector. A text without tokens (punctuation only) gets the identity vector of
   * the empty token: a unit vector like any other, which cosine indexes need, near nothing real.
   */
  embed(text: string): Float32Array {
    const out = new Float32Array(this.dimension);
    if (pool(this.parts.shape, this.parts.params, this.bag(text), out) === 0) {
      const { dim, identityDim } = this.parts.shape;
      if (identityDim > 0) addIdentity(out, dim, identityDim, tokenHash("", this.parts.identitySeed), 1);
      else out[0] = 1;
    }
    return out;
  }
}
