import type { LifecycleEvent } from "../core/lifecycleSchemas.ts";

/**
 * Where a deployment publishes lifecycle events (its own EventBridge bus). `put` publishes them
 * in order and returns how many, from the first, were accepted: all of them, or fewer when one
 * was refused (the rest are not tried, so what is published of a run stays in seq order).
 */
export interface LifecycleBus {
  put(events: readonly LifecycleEvent[]): Promise<{ published: number; error?: string }>;
}
