/**
 * The parse context for a schema parsed a few times in a process: a tool's arguments (once a
 * call), a final answer's structured output (once a run), limits, model settings and metadata
 * (once a start), a Lambda step's input and an HTTP request's body (once an invocation or a
 * request). On a schema's first parse zod compiles a fast path for it (`new Function`), which is
 * on the critical path of a cold start and of a process's first run: for a six-field tool schema
 * the first parse takes about 1 ms less without it, and each later one under 1 µs more, under a
 * thousandth of a turn (`npm run bench:zod-jit`; BENCHMARKS.md). Every check and every message is
 * the same either way.
 */
export const WITHOUT_JIT = { jitless: true } as const;
