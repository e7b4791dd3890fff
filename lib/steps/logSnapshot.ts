import type { RunEvent } from "../core/events.ts";

/** Where a snapshot keeps the array it shows a prefix of (only LogCache asks). */
const BACKING = Symbol("backing");

const indexOf = (key: string | symbol): number | undefined => {
  if (typeof key !== "string") return undefined;
  const index = Number(key);
  return Number.isInteger(index) && index >= 0 && String(index) === key ? index : undefined;
};

const refuse = (): boolean => {
  throw new TypeError("a log snapshot is read-only: it never changes once handed out");
};

/**
 * The first `length` events of `backing`, as a read-only array that never changes: `backing` may
 * grow at its end afterwards (a cache's log only grows), and a snapshot still shows what it
 * showed. Making one is O(1), whatever the log's length: a per-step read costs what is new, not
 * a copy of the run. It is a real array to its readers (Array.isArray, every array method,
 * iteration, JSON), and any write to it throws.
 */
export function logSnapshot(backing: RunEvent[], length: number): readonly RunEvent[] {
  return new Proxy(backing, {
    get(target, key, receiver) {
      if (key === "length") return length;
      if (key === BACKING) return target;
      const index = indexOf(key);
      if (index !== undefined) return index < length ? target[index] : undefined;
      return Reflect.get(target, key, receiver);
    },
    has(target, key) {
      const index = indexOf(key);
      return index === undefined ? key === BACKING || Reflect.has(target, key) : index < length;
    },
    ownKeys() {
      return [...Array.from({ length }, (_, i) => String(i)), "length"];
    },
    getOwnPropertyDescriptor(target, key) {
      // `length` of an array cannot be configured: reported as the target has it, with our value.
      if (key === "length") return { value: length, writable: true, enumerable: false, configurable: false };
      const index = indexOf(key);
      if (index === undefined) return Reflect.getOwnPropertyDescriptor(target, key);
      if (index >= length) return undefined;
      return { value: target[index], writable: false, enumerable: true, configurable: true };
    },
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
    setPrototypeOf: refuse,
  });
}

/** The array a snapshot shows a prefix of; undefined for any other array. */
export const backingOf = (events: readonly RunEvent[]): RunEvent[] | undefined =>
  (events as { [BACKING]?: RunEvent[] })[BACKING];
