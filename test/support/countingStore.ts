import type { EventStore } from "../../lib/ports/eventStore.ts";

export interface StoreCount {
  /** Calls by method name. */
  calls: Record<string, number>;
  /** Events returned by read and readBack. */
  eventsRead: number;
}

/** The store, counting every call and every event read through it. */
export function counted(inner: EventStore): { store: EventStore; count: StoreCount; reset(): void } {
  const count: StoreCount = { calls: {}, eventsRead: 0 };
  const proxy = new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        count.calls[String(property)] = (count.calls[String(property)] ?? 0) + 1;
        const result: unknown = await value.apply(target, args);
        if (property === "read" || property === "readBack") count.eventsRead += (result as unknown[]).length;
        return result;
      };
    },
  });
  const reset = () => {
    count.calls = {};
    count.eventsRead = 0;
  };
  return { store: proxy, count, reset };
}
