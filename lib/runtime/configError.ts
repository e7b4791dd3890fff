import { InvalidInputError } from "../core/errors.ts";

/** One variable that could not be used. */
export interface ConfigProblem {
  variable: string;
  /** The value given (undefined when unset), as shown: a secret's is never shown. */
  value: string | undefined;
  allowed: string;
}

/** The environment configures runlog wrongly: every problem found, each naming its variable, value and what is allowed. */
export class ConfigError extends InvalidInputError {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(problems.map(describe).join("; "));
  }
}

const describe = ({ variable, value, allowed }: ConfigProblem) =>
  value === undefined
    ? `${variable} is not set; expected ${allowed}`
    : `${variable}=${value} is not allowed; expected ${allowed}`;
