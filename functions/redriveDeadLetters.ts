import * as z from "zod";
import { powertools } from "../lib/runtime/aws/powertools.ts";
import { observedHandler } from "./handler.ts";

/** What an operator asks for: how many messages at most (SQS hands them out ten at a time). */
const Schema = z.preprocess(
  // `aws lambda invoke` without --payload sends `{}`; a console test event may send nothing.
  (event) => event ?? {},
  z.object({ maxMessages: z.number().int().min(1).max(1_000).optional() }).strict(),
);

/**
 * Sends the dead-letter queue's messages back to the function that could not take them, with
 * the payload it was to get, and deletes each once that invoke is accepted; a message it cannot
 * read, or for a function that is not this deployment's own, stays and is reported. Invoked by a
 * person (docs/runbooks/dead-letters.md), never by the queue: a poison message would loop.
 */
export const handler = observedHandler({
  step: "redriveDeadLetters",
  schema: Schema,
  deps: (aws) => Object.assign({}, aws.steps, { redrive: aws.redriveDeadLetters }),
  run: async (deps, input) => {
    const report = await deps.redrive(
      input.maxMessages === undefined ? {} : { maxMessages: input.maxMessages },
    );
    powertools().logger.info("runlog dead-letter redrive", { step: "redriveDeadLetters", ...report });
    return report;
  },
});
