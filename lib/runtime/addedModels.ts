import * as z from "zod";
import { ownCallIds } from "../core/callIdCheck.ts";
import { errorMessage, ModelRejectedError, RunlogError } from "../core/errors.ts";
import { ToolCallSchema, UsageSchema } from "../core/eventFields.ts";
import { MODEL_SETTING_NAMES, type ModelSettingName } from "../core/modelSettingNames.ts";
import type { Model, ModelFactory, ModelReply } from "../ports/model.ts";

/** What a provider's reply must be for runlog to record it (ModelReply). */
const ReplySchema = z.object({
  text: z.string(),
  toolCalls: z.array(ToolCallSchema),
  stop: z.string().min(1),
  usage: UsageSchema.optional(),
});

/**
 * The model a caller's provider makes for `spec`, held to the Model contract at its edge: what the
 * factory throws is a ModelRejectedError naming the spec (unless it is runlog's own error already),
 * a factory that returns no model is one too, and a reply that is not a ModelReply is refused
 * (ModelRejectedError naming the field: two tool calls with one id too) instead of being written to
 * the log. The model answers to the spec asked for, whatever `spec` it carries itself.
 */
export function addedModel(spec: string, prefix: string, factory: ModelFactory): Model {
  const name = spec.slice(prefix.length + 1);
  let made: unknown;
  try {
    made = factory(name);
  } catch (error) {
    if (error instanceof RunlogError) throw error;
    throw new ModelRejectedError(
      `${spec}: provider ${prefix} could not make the model: ${errorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
  const model = made as Partial<Model> | null | undefined;
  if (typeof model !== "object" || model === null || typeof model.call !== "function") {
    throw new ModelRejectedError(
      `${spec}: provider ${prefix} returned no model: it must return { spec, call(request) } (runlog's Model)`,
    );
  }
  const call = model.call.bind(model);
  return {
    spec,
    supportedSettings: checkSupported(spec, prefix, model.supportedSettings),
    call: async (request) => checkReply(spec, await call(request)),
  };
}

/** What a caller's model says it honours: setting names runlog knows, or none when it says nothing. */
function checkSupported(spec: string, prefix: string, declared: unknown): readonly ModelSettingName[] {
  if (declared === undefined) return [];
  const known = (name: unknown) => MODEL_SETTING_NAMES.includes(name as ModelSettingName);
  if (!Array.isArray(declared) || !declared.every(known)) {
    throw new ModelRejectedError(
      `${spec}: provider ${prefix} returned a model whose supportedSettings is not a list of ${MODEL_SETTING_NAMES.join(", ")}`,
    );
  }
  return declared as ModelSettingName[];
}

function checkReply(spec: string, reply: unknown): ModelReply {
  const parsed = ReplySchema.safeParse(reply);
  if (parsed.success) {
    ownCallIds(spec, parsed.data.toolCalls);
    return parsed.data as ModelReply;
  }
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `reply.${issue.path.join(".")}` : "the reply";
  throw new ModelRejectedError(
    `${spec} returned a reply runlog cannot record: ${where}: ${issue?.message ?? "invalid"} (a ModelReply is { text, toolCalls, stop, usage? })`,
  );
}
