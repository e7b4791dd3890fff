import { describe, expect, it } from "vitest";
import { compileDefinition } from "../../../../lib/runtime/local/asl/compile.ts";
import { AslDefinitionError } from "../../../../lib/runtime/local/asl/errors.ts";
import { renderDefinition, TASKS } from "../../../../lib/workflow/definition.ts";
import { groupTaskName } from "../../../../lib/workflow/toolGroups.ts";

const GROUPS = { web: { tools: ["search"] } };
const arn = (name: string) => `arn:local:${name}`;
const NAMES = [...Object.keys(TASKS), groupTaskName("web")];
const RESOURCES = Object.fromEntries(NAMES.map((name) => [arn(name), name]));

type States = Record<string, Record<string, unknown>>;

/** The real rendered definition (with a tool group), changed by `edit` before it is compiled. */
function edited(edit: (states: States, map: States) => void): Record<string, unknown> {
  const definition = renderDefinition(
    Object.fromEntries(Object.keys(TASKS).map((t) => [t, arn(t)])) as Record<keyof typeof TASKS, string>,
    { toolGroups: GROUPS },
    { web: arn(groupTaskName("web")) },
  );
  const states = definition.States as States;
  edit(states, (states.RunTools!.ItemProcessor as { States: States }).States);
  return definition;
}

function refusal(definition: unknown): AslDefinitionError {
  try {
    compileDefinition(definition, { resources: RESOURCES });
  } catch (error) {
    if (error instanceof AslDefinitionError) return error;
    throw error;
  }
  throw new Error("the definition was accepted");
}

describe("compileDefinition", () => {
  it("accepts the rendered definition, with and without tool groups", () => {
    expect(() =>
      compileDefinition(
        edited(() => {}),
        { resources: RESOURCES },
      ),
    ).not.toThrow();
    const plain = renderDefinition(
      Object.fromEntries(Object.keys(TASKS).map((t) => [t, arn(t)])) as Record<keyof typeof TASKS, string>,
    );
    expect(compileDefinition(plain, { resources: RESOURCES }).handlers).toEqual(new Set(Object.keys(TASKS)));
  });

  it.each([
    {
      what: "an unknown state type",
      edit: (s: States) => (s.Wait = { Type: "Wait", Seconds: 1, Next: "Finish" }),
      state: "Wait",
      field: "Type",
      says: /unsupported state type "Wait"/,
    },
    {
      what: "a Parallel state",
      edit: (s: States) => (s.Route = { Type: "Parallel", Branches: [], End: true }),
      state: "Route",
      field: "Type",
      says: /Parallel/,
    },
    {
      what: "an unknown field of a Task",
      edit: (s: States) => (s.Finish!.OutputPath = "$.outcome"),
      state: "Finish",
      field: "OutputPath",
      says: /unsupported in a Task state/,
    },
    {
      what: "an unsupported comparison operator",
      edit: (s: States) =>
        ((s.Route!.Choices as unknown[])[0] = {
          Variable: "$.next.action",
          StringMatches: "mod*",
          Next: "CallModel",
        }),
      state: "Route",
      field: "Choices[0].StringMatches",
      says: /unsupported in a choice rule/,
    },
    {
      what: "an unsupported operator inside And, in the Map's processor",
      edit: (_s: States, m: States) =>
        ((m.RouteTool!.Choices as unknown[])[0] = {
          And: [{ Variable: "$.tool", NumericEquals: 1 }],
          Next: "RunTool",
        }),
      state: "RunTools > RouteTool",
      field: "Choices[0].And[0].NumericEquals",
      says: /unsupported in a choice rule/,
    },
    {
      what: "an unsupported intrinsic",
      edit: (s: States) =>
        ((s.RunTools!.ItemSelector as Record<string, unknown>)["tool.$"] = "States.Format('{}', $.tool)"),
      state: "RunTools",
      field: "ItemSelector.tool.$",
      says: /unsupported intrinsic function States\.Format/,
    },
    {
      what: "a JSONPath beyond plain field names",
      edit: (s: States) => ((s.CallModel!.Parameters as Record<string, unknown>)["runId.$"] = "$.runs[0].id"),
      state: "CallModel",
      field: "Parameters.runId.$",
      says: /not a plain field name/,
    },
    {
      what: "a Resource with no local handler",
      edit: (s: States) => (s.Finish!.Resource = "arn:local:Elsewhere"),
      state: "Finish",
      field: "Resource",
      says: /no local handler for "arn:local:Elsewhere"/,
    },
    {
      what: "a Next naming no state",
      edit: (s: States) => (s.CallModel!.Next = "Nowhere"),
      state: "CallModel",
      field: "Next",
      says: /names no state of this machine: "Nowhere"/,
    },
    {
      what: "an unknown JitterStrategy",
      edit: (s: States) =>
        ((s.Finish!.Retry as Record<string, unknown>[])[0]!.JitterStrategy = "DECORRELATED"),
      state: "Finish",
      field: "Retry[0].JitterStrategy",
      says: /FULL or NONE/,
    },
    {
      what: "an error name of Step Functions this interpreter never raises",
      edit: (s: States) =>
        ((s.Finish!.Catch as Record<string, unknown>[])[0]!.ErrorEquals = ["States.TaskFailed"]),
      state: "Finish",
      field: "Catch[0].ErrorEquals",
      says: /unsupported error name States\.TaskFailed/,
    },
    {
      what: "a distributed Map",
      edit: (s: States) =>
        ((s.RunTools!.ItemProcessor as Record<string, unknown>).ProcessorConfig = { Mode: "DISTRIBUTED" }),
      state: "RunTools",
      field: "RunTools.ItemProcessor.ProcessorConfig",
      says: /INLINE/,
    },
  ])("refuses $what, naming the state and the field", ({ edit, state, field, says }) => {
    const error = refusal(edited(edit));
    expect({ state: error.state, field: error.field }).toEqual({ state, field });
    expect(error.message).toMatch(says);
    expect(error.message).toContain(`field ${field}`);
  });

  it("refuses an unknown top-level field", () => {
    const error = refusal({ ...edited(() => {}), QueryLanguage: "JSONata" });
    expect({ state: error.state, field: error.field }).toEqual({ state: undefined, field: "QueryLanguage" });
  });
});
