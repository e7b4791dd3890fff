import type { Synthesized } from "./synth.ts";

/** A state of a synthesized definition: the fields the tests read. */
export interface State {
  Type: string;
  Resource?: string;
  TimeoutSeconds?: number;
  Next?: string;
  End?: boolean;
  Choices?: { StringEquals?: string; Next: string }[];
  Retry?: {
    ErrorEquals: string[];
    IntervalSeconds?: number;
    MaxAttempts?: number;
    BackoffRate?: number;
    MaxDelaySeconds?: number;
    JitterStrategy?: string;
  }[];
  Catch?: { ErrorEquals: string[] }[];
  MaxConcurrency?: number;
  ItemProcessor?: Machine;
}

export interface Machine {
  StartAt: string;
  TimeoutSeconds?: number;
  States: Record<string, State>;
}

/** The template's one state machine, read back. */
export interface SynthesizedMachine {
  /** DefinitionString, as synthesized: each task's Resource a `${Placeholder}`. */
  text: string;
  definition: Machine;
  /** The logical id of the function each placeholder names, keyed as a Resource says it (`${Placeholder}`). */
  functionOf: ReadonlyMap<string, string>;
  /** The definition as deployed, each placeholder filled with `arnOf` the logical id of its function. */
  filled(arnOf: (logicalId: string) => string): Machine;
}

export function synthesizedMachine(s: Synthesized): SynthesizedMachine {
  const found = Object.values(s.template.findResources("AWS::StepFunctions::StateMachine"));
  if (found.length !== 1) throw new Error(`expected one state machine, found ${found.length}`);
  const props = found[0]!.Properties as {
    DefinitionString: string;
    DefinitionSubstitutions: Record<string, { "Fn::GetAtt": [string, string] }>;
  };
  const text = props.DefinitionString;
  const functionOf = new Map(
    Object.entries(props.DefinitionSubstitutions).map(([name, value]) => [
      `\${${name}}`,
      value["Fn::GetAtt"][0],
    ]),
  );
  return {
    text,
    definition: JSON.parse(text) as Machine,
    functionOf,
    filled(arnOf) {
      let deployed = text;
      for (const [placeholder, logicalId] of functionOf)
        deployed = deployed.replaceAll(placeholder, arnOf(logicalId));
      return JSON.parse(deployed) as Machine;
    },
  };
}

/** Every state with its name, the states of each Map's iterations included. */
export const allStates = (states: Record<string, State>): [string, State][] =>
  Object.entries(states).flatMap(([name, state]) => [
    [name, state] as [string, State],
    ...(state.ItemProcessor ? allStates(state.ItemProcessor.States) : []),
  ]);
