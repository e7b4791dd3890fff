/**
 * One signal for a model call: aborted by a stop (a cancel) or by the step's deadline, whichever
 * comes first; undefined when neither is given.
 */
export function stopOrDeadline(
  signal: AbortSignal | undefined,
  deadline: AbortSignal | undefined,
): AbortSignal | undefined {
  if (!signal || !deadline) return signal ?? deadline;
  return AbortSignal.any([signal, deadline]);
}
