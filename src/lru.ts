// A least-recently-used cache on Map's insertion order: get() re-inserts, set() evicts the oldest.
// Optionally bounded by weight too (bytes, say): an entry's weight is given when it is known
// (weigh(), for a value that is a promise until loaded), and the least recently used go until the
// total fits, never the entry just weighed.

export class LruCache<K, V> {
  private readonly map = new Map<K, V>();
  private readonly weights = new Map<K, number>();
  private weight = 0;

  constructor(
    readonly capacity: number,
    readonly maxWeight = Infinity,
  ) {}

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: K, value: V): void {
    this.remove(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.remove(oldest.value);
    }
  }

  /** The entry's weight, once known (nothing when it was evicted meanwhile); evicts the least recently used others until the total fits. */
  weigh(key: K, weight: number): void {
    if (!this.map.has(key)) return;
    this.weight += weight - (this.weights.get(key) ?? 0);
    this.weights.set(key, weight);
    // deleting the entry the iterator is on is safe for a Map
    for (const k of this.map.keys()) {
      if (this.weight <= this.maxWeight) return;
      if (k !== key) this.remove(k);
    }
  }

  /** the weights given to the entries held */
  get totalWeight(): number {
    return this.weight;
  }

  private remove(key: K): void {
    this.map.delete(key);
    this.weight -= this.weights.get(key) ?? 0;
    this.weights.delete(key);
  }

  get size(): number {
    return this.map.size;
  }
}
