import { ModelRejectedError } from "./errors.ts";

/**
 * The calls of a model's reply, when each has its own id; else a ModelRejectedError naming the
 * shared id and both calls. A result answers a call by id, so a log with two calls of one id
 * cannot be read back (logReader refuses it): every model's reply is held to this before it is
 * written, at the provider's edge (addedModels.ts, and the built-in adapters where they assemble
 * a reply), as a reply that is not a ModelReply is.
 */
export function ownCallIds<Call extends { id: string }>(
  spec: string,
  calls: readonly Call[],
): readonly Call[] {
  const seen = new Map<string, number>();
  for (const [index, { id }] of calls.entries()) {
    const first = seen.get(id);
    if (first !== undefined) {
      throw new ModelRejectedError(
        `${spec} returned a reply runlog cannot record: reply.toolCalls[${index}].id ${JSON.stringify(id)} is the id of toolCalls[${first}] too; each tool call needs its own id`,
      );
    }
    seen.set(id, index);
  }
  return calls;
}
