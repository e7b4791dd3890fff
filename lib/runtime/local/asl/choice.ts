import { AslDefinitionError } from "./errors.ts";
import { type Context, isObject, lookup, MISSING, parsePath, valueAt, type Where } from "./paths.ts";

/** A Choice rule compiled to a test of the state's input. */
export type Rule = (input: unknown, context: Context) => boolean;

/** The comparison operators supported, each with the type its operand must have. */
const COMPARISONS = { StringEquals: "string", BooleanEquals: "boolean", IsPresent: "boolean" } as const;

/**
 * Compile one Choice rule (`top`: a rule of Choices, which has a Next; nested ones in And/Or/Not do not).
 * Supported: Variable with StringEquals, BooleanEquals or IsPresent; And, Or, Not.
 */
export function compileRule(rule: unknown, where: Where, top: boolean): Rule {
  const refuse = (field: string, reason: string) =>
    new AslDefinitionError(where.state, `${where.field}${field}`, reason);
  if (!isObject(rule)) throw refuse("", "a choice rule must be an object");
  const allowed = new Set([
    "Variable",
    ...Object.keys(COMPARISONS),
    "And",
    "Or",
    "Not",
    ...(top ? ["Next"] : []),
  ]);
  for (const field of Object.keys(rule))
    if (!allowed.has(field)) throw refuse(`.${field}`, `unsupported in a choice rule`);
  const combinators = (["And", "Or", "Not"] as const).filter((op) => op in rule);
  const comparisons = (Object.keys(COMPARISONS) as (keyof typeof COMPARISONS)[]).filter((op) => op in rule);
  if (combinators.length + comparisons.length !== 1)
    throw refuse(
      "",
      "a choice rule needs exactly one of And, Or, Not or a comparison (StringEquals, BooleanEquals, IsPresent)",
    );
  const [combinator] = combinators;
  if (combinator !== undefined) {
    if ("Variable" in rule) throw refuse(".Variable", `not allowed beside ${combinator}`);
    if (combinator === "Not") {
      const inner = compileRule(rule.Not, { state: where.state, field: `${where.field}.Not` }, false);
      return (input, context) => !inner(input, context);
    }
    const list = rule[combinator];
    if (!Array.isArray(list) || list.length === 0)
      throw refuse(`.${combinator}`, "must be a non-empty array of rules");
    const inner = list.map((r, i) =>
      compileRule(r, { state: where.state, field: `${where.field}.${combinator}[${i}]` }, false),
    );
    return combinator === "And"
      ? (input, context) => inner.every((test) => test(input, context))
      : (input, context) => inner.some((test) => test(input, context));
  }
  const op = comparisons[0]!;
  const operand = rule[op];
  if (typeof operand !== COMPARISONS[op]) throw refuse(`.${op}`, `must be a ${COMPARISONS[op]}`);
  const path = parsePath(rule.Variable, { state: where.state, field: `${where.field}.Variable` });
  const state = where.state ?? "";
  switch (op) {
    case "IsPresent":
      return (input, context) => (lookup(path, input, context) !== MISSING) === operand;
    case "StringEquals":
    case "BooleanEquals":
      // A variable with no value is States.Runtime in Step Functions, not a mismatch.
      return (input, context) => valueAt(path, input, context, state) === operand;
  }
}
