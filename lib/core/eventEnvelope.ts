import * as z from "zod";

/*
 * The envelope every event of a run's log carries, whatever its type: the schema version, its
 * position, its time and the generation it leaves the run in.
 */

/**
 * The persisted event log of a run. Every event carries the schema version `v`,
 * its position `seq` (1, 2, 3 … with no gaps) and the time it was written.
 * Changing a shape means a new version and a decoder for the old one: stored
 * logs are never rewritten.
 */
export const SCHEMA_VERSION = 1;

/** The fields every event has, whatever its type: what the store checks of a record it reads back. */
export const eventBase = {
  v: z.literal(SCHEMA_VERSION),
  seq: z.number().int().min(1),
  at: z.string().min(1),
  /**
   * The generation that owns the run once this event is written (a `resumed` event's own). Lets a
   * reader of the log's tail know the generation without reading back to the last `resumed`.
   * Absent on events written before it existed.
   */
  gen: z.number().int().min(1).optional(),
};
