/** mulberry32: a tiny seeded PRNG, so a failing schedule or fault sequence can be replayed from its seed. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Lets concurrent writers touch the store one call at a time, in an order a
 * seeded PRNG picks: a writer waits at each store call until every live writer
 * is waiting too, then one of them, chosen by the PRNG, goes. The same seed
 * replays the same interleaving.
 */
export class TurnScheduler {
  /** The interleaving that happened: `writer:method` per store call. */
  readonly trace: string[] = [];
  private readonly waiting: { writer: number; what: string; go: () => void }[] = [];
  private live: number;

  constructor(
    private readonly random: () => number,
    writers: number,
  ) {
    this.live = writers;
  }

  /** Wait for this writer's turn to make its next store call. */
  turn(writer: number, what: string): Promise<void> {
    return new Promise((go) => {
      this.waiting.push({ writer, what, go });
      this.next();
    });
  }

  /** Run one writer's whole task under the scheduler; it leaves the schedule when the task ends. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } finally {
      this.live--;
      this.next();
    }
  }

  private next(): void {
    if (this.waiting.length === 0 || this.waiting.length < this.live) return;
    const [chosen] = this.waiting.splice(Math.floor(this.random() * this.waiting.length), 1);
    this.trace.push(`${chosen!.writer}:${chosen!.what}`);
    chosen!.go();
  }
}
