import * as z from "zod";
import { InvalidInputError, ModelRejectedError } from "./errors.ts";
import { WITHOUT_JIT } from "./withoutJit.ts";

/**
 * A run's budget: how many model turns, tokens (input and output) and US dollars it may spend
 * before it stops as `budget_exhausted`. Counted from the run's committed events (lib/core/log.ts),
 * so every process that reads the log agrees on what was used.
 */
export const LimitsSchema = z.object({
  /** Model responses the run may have. */
  maxTurns: z.number().int().min(1).optional(),
  /** Input plus output tokens, as the model reported them (`usage` on model_response). */
  maxTokens: z.number().int().min(1).optional(),
  /** US dollars, from the tokens used and the price table. */
  maxCostUsd: z.number().positive().optional(),
});
export type Limits = z.infer<typeof LimitsSchema>;

/**
 * Only the limits runlog knows, made once: `.strict()` builds a new schema each time it is called,
 * and a check that called it took 60–90 µs, against 1.5 µs with one made once
 * (`npm run bench:zod-jit`).
 */
export const KnownLimitsSchema = LimitsSchema.strict();

/** The limit names, in the order they are checked and reported. */
export const LIMIT_NAMES = ["maxTurns", "maxTokens", "maxCostUsd"] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/**
 * The turns an agent allows when it says nothing. A runaway loop (a model calling the same tool
 * again and again) takes 2–10 s a turn on a hosted model, so it stops after 3–15 minutes; a task
 * that needs more turns than this is rare and says so in its agent's `limits`.
 */
export const DEFAULT_MAX_TURNS = 100;

/** A model's price: US dollars per million input and output tokens. */
export interface ModelPrice {
  inputUsdPerMillion: number;
  outputUsdPerMillion: number;
}

/** Prices by model spec (`openai:gpt-4.1-mini`, `bedrock:…`, `scripted:…`). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** What a run has used: counted from its committed events. */
export interface BudgetUsed {
  turns: number;
  inputTokens: number;
  outputTokens: number;
  /** Tokens by the model spec that used them (a run may change model on resume). */
  byModel: ReadonlyMap<string, { inputTokens: number; outputTokens: number }>;
}

/** The figures a `budget_exhausted` event records: what was used, in the limits' terms. */
export interface BudgetFigures {
  turns: number;
  tokens: number;
  /** Absent when no price table prices the run's models. */
  costUsd?: number;
}

/** The limit a run reached, and the figures at that point. */
export interface Exhaustion {
  limit: LimitName;
  used: BudgetFigures;
  limits: Limits;
}

const price = (value: unknown, field: string) => {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new InvalidInputError(`${field} must be a number of US dollars, 0 or more`, { field });
  }
};

/** Check a price table given by a caller, naming the entry that is wrong. */
export function checkPrices(prices: unknown, field = "prices"): PriceTable {
  if (typeof prices !== "object" || prices === null || Array.isArray(prices)) {
    throw new InvalidInputError(
      `${field} must be an object of prices by model spec: { "openai:gpt-4.1-mini": { inputUsdPerMillion, outputUsdPerMillion } }`,
      { field },
    );
  }
  for (const [spec, entry] of Object.entries(prices)) {
    const where = `${field}[${JSON.stringify(spec)}]`;
    if (typeof entry !== "object" || entry === null) {
      throw new InvalidInputError(`${where} must be { inputUsdPerMillion, outputUsdPerMillion }`, {
        field: where,
      });
    }
    price((entry as Partial<ModelPrice>).inputUsdPerMillion, `${where}.inputUsdPerMillion`);
    price((entry as Partial<ModelPrice>).outputUsdPerMillion, `${where}.outputUsdPerMillion`);
  }
  return prices as PriceTable;
}

/** Check limits given by a caller (`field` names where: `limits`, an agent's …), naming the one that is wrong. */
export function checkLimits(limits: unknown, field = "limits"): Limits {
  if (typeof limits !== "object" || limits === null || Array.isArray(limits)) {
    throw new InvalidInputError(`${field} must be an object: { maxTurns?, maxTokens?, maxCostUsd? }`, {
      field,
    });
  }
  const parsed = KnownLimitsSchema.safeParse(limits, WITHOUT_JIT);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = issue?.path[0] ?? (issue?.code === "unrecognized_keys" ? issue.keys[0] : undefined);
  const name = key === undefined ? field : `${field}.${String(key)}`;
  const expected =
    key === "maxCostUsd"
      ? "a number of US dollars above 0"
      : LIMIT_NAMES.includes(key as LimitName)
        ? "a whole number, 1 or more"
        : `not a limit (the limits are ${LIMIT_NAMES.join(", ")})`;
  throw new InvalidInputError(`${name} must be ${expected}`, { field: name });
}

/**
 * The limits a run starts with: the agent's, lowered by what the start asked for. Asking for more
 * than the agent allows is refused, naming the field; a limit the agent does not set may be set freely.
 */
export function startLimits(agent: Limits, asked: Limits | undefined, field = "limits"): Limits {
  if (asked === undefined) return agent;
  for (const name of LIMIT_NAMES) {
    const wanted = asked[name];
    const allowed = agent[name];
    if (wanted !== undefined && allowed !== undefined && wanted > allowed) {
      throw new InvalidInputError(`${field}.${name} is ${wanted}, above the ${allowed} the agent allows`, {
        field: `${field}.${name}`,
      });
    }
  }
  return { ...agent, ...asked };
}

/** A spec's price, or a refusal naming the spec when a cost limit needs one. */
export function priceOf(prices: PriceTable | undefined, spec: string): ModelPrice | undefined {
  return prices !== undefined && Object.hasOwn(prices, spec) ? prices[spec] : undefined;
}

/** Refuse a cost limit on a model the price table does not price: its cost could not be counted. */
export function assertPriced(
  limits: Limits,
  prices: PriceTable | undefined,
  spec: string,
  field = "model",
): void {
  if (limits.maxCostUsd === undefined || priceOf(prices, spec)) return;
  throw new InvalidInputError(
    `${field}: ${spec} has no price, so maxCostUsd cannot be counted; give its price (inputUsdPerMillion, outputUsdPerMillion) in the price table`,
    { field },
  );
}

/**
 * The limits a response that reported no token usage leaves uncounted: `maxTokens`, and
 * `maxCostUsd` (a cost is tokens priced). Empty when neither is in force. A response a failure cut
 * off (`interrupted`) is not asked: the provider never got to report its usage.
 */
function uncountedLimits(limits: Limits): LimitName[] {
  return LIMIT_NAMES.filter((name) => name !== "maxTurns" && limits[name] !== undefined);
}

/**
 * Refuse a response without usage under a token or cost budget: counting nothing for it would make
 * the budget unlimited. ModelRejectedError (permanent) naming the model and the limits.
 */
export function assertCounted(limits: Limits, spec: string, reply: { usage?: unknown; stop: string }): void {
  if (reply.usage !== undefined || reply.stop === "interrupted") return;
  const names = uncountedLimits(limits);
  if (names.length === 0) return;
  const which = names.map((name) => `${name} ${limits[name]}`).join(" and ");
  throw new ModelRejectedError(
    `${spec} reported no token usage, so the run's ${which} limit cannot be counted: use a model (or a server) that reports usage (an OpenAI-compatible server must send the include_usage chunk), or run without that limit`,
  );
}

/** The US dollars `used` cost by `prices`; a model without a price counts nothing. */
export function costOf(used: BudgetUsed, prices: PriceTable | undefined): number {
  let cost = 0;
  for (const [spec, tokens] of used.byModel) {
    const p = priceOf(prices, spec);
    if (!p) continue;
    cost += (tokens.inputTokens * p.inputUsdPerMillion + tokens.outputTokens * p.outputUsdPerMillion) / 1e6;
  }
  return cost;
}

/** What was used, as a `budget_exhausted` event records it. */
export function figuresOf(used: BudgetUsed, prices: PriceTable | undefined): BudgetFigures {
  const anyPrice = [...used.byModel.keys()].some((spec) => priceOf(prices, spec) !== undefined);
  return {
    turns: used.turns,
    tokens: used.inputTokens + used.outputTokens,
    ...(anyPrice ? { costUsd: costOf(used, prices) } : {}),
  };
}

/**
 * The first limit `used` has reached, if any: a run may take another model turn only while every
 * limit is above what it used. Turns count whole responses, so a limit of N allows N responses;
 * tokens and cost are known only after a turn, so the turn that crosses them is the last.
 */
export function exhausted(
  limits: Limits,
  used: BudgetUsed,
  prices: PriceTable | undefined,
): Exhaustion | undefined {
  const figures = figuresOf(used, prices);
  const reached = (name: LimitName): boolean => {
    switch (name) {
      case "maxTurns":
        return limits.maxTurns !== undefined && figures.turns >= limits.maxTurns;
      case "maxTokens":
        return limits.maxTokens !== undefined && figures.tokens >= limits.maxTokens;
      case "maxCostUsd":
        return limits.maxCostUsd !== undefined && costOf(used, prices) >= limits.maxCostUsd;
    }
  };
  const limit = LIMIT_NAMES.find(reached);
  return limit === undefined ? undefined : { limit, used: figures, limits };
}

/**
 * The limits a run goes by: those its log records (its start's, raised on resume) over its agent's;
 * a limit the log does not record (a run started before budgets were recorded) is the agent's, and
 * an agent that sets no turn limit has DEFAULT_MAX_TURNS.
 */
export function limitsInForce(recorded: Limits | undefined, agent: Limits | undefined): Limits {
  return { ...agentLimits(agent), ...recorded };
}

/** An agent's limits, with the default turn limit where it sets none. */
export const agentLimits = (agent: Limits | undefined): Limits => ({
  maxTurns: DEFAULT_MAX_TURNS,
  ...agent,
});
