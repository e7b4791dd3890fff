/*
 * The small pieces the typed calls build their requests from: an encoded path segment, an optional
 * query or body field, and the Idempotency-Key a call without one is sent with.
 */
import { text } from "./checks.ts";

export const segment = (value: unknown, field: string) => encodeURIComponent(text(value, field));

/** Spread `{key: value}` only when the value is present. */
export const present = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

/** A fresh Idempotency-Key for a call that has none: one per call, the same on each of its attempts. */
export const newKey = () => globalThis.crypto.randomUUID();
