/**
 * The commands that read runs without changing them: `show`, `ls`, `script` and `resume-point`.
 */
import { RUN_STATUSES, type RunStatus } from "../core/status.ts";
import { one, optional, type ReadCommand, str } from "./command.ts";
import { listCommand, printRuns, resumePointCommand, scriptCommand, showCommand } from "./commands.ts";
import { UsageError } from "./usage.ts";

/** `ls --status`: one of the run statuses, or a usage error naming them. */
function listedStatus(value: string | undefined): RunStatus | undefined {
  if (value === undefined || (RUN_STATUSES as readonly string[]).includes(value)) return value as RunStatus;
  throw new UsageError(
    `ls --status: expected one of ${RUN_STATUSES.join(", ")}, got ${JSON.stringify(value)}`,
  );
}

/** `script`, `resume-point`, `show` and `ls`. */
export const READ_COMMANDS = {
  script: {
    options: { out: { type: "string" } },
    positionals: one("<runId>"),
    readsOnly: true,
    run: (context, values, [runId]) => scriptCommand(context, runId!, str(values, "out")),
  },
  "resume-point": {
    options: {},
    positionals: one("<runId>"),
    readsOnly: true,
    run: (context, _, [runId]) => resumePointCommand(context, runId!),
  },
  show: {
    options: {},
    positionals: one("<runId>"),
    readsOnly: true,
    run: (context, _, [runId]) => showCommand(context, runId!),
  },
  ls: {
    options: {
      status: { type: "string" },
      "forks-of": { type: "string" },
      "children-of": { type: "string" },
    },
    positionals: { min: 0, max: 0, names: "no arguments" },
    readsOnly: true,
    withoutRuns: (context) => printRuns(context, []),
    run: (context, values) => {
      // The library refuses the two together by its field names; here they are two flags.
      if (str(values, "forks-of") !== undefined && str(values, "children-of") !== undefined)
        throw new UsageError(
          "ls: --forks-of and --children-of are alternatives (a run's forks, or its sub-agent runs): give one of them",
        );
      return listCommand(context, {
        ...optional("status", listedStatus(str(values, "status"))),
        ...optional("parent", str(values, "forks-of")),
        ...optional("childrenOf", str(values, "children-of")),
      });
    },
  },
} satisfies Record<string, ReadCommand>;
