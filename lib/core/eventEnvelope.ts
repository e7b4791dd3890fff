/*
 * The envelope every event of a run's log carries, whatever its type: the schema version, its
 * position, its time and the generation it leaves the run in. Its schema (eventBase) is with the
 * other fields' in eventFields.ts: reading a stored log checks the envelope by hand
 * (storedEvents.ts) and loads no zod.
 */

/**
 * The persisted event log of a run. Every event carries the schema version `v`,
 * its position `seq` (1, 2, 3 … with no gaps) and the time it was written.
 * Changing a shape means a new version and a decoder for the old one: stored
 * logs are never rewritten.
 */
export const SCHEMA_VERSION = 1;
