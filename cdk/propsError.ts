import { InvalidInputError } from "../lib/core/errors.ts";

/** A Runlog prop that cannot work, named with what was expected. */
export class RunlogPropsError extends InvalidInputError {
  constructor(
    readonly prop: string,
    problem: string,
    options: { cause?: unknown } = {},
  ) {
    super(`runlog: ${prop} ${problem}`, { field: prop, ...options });
  }
}
