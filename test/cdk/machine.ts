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
  /** The logical id of the function each placeholder names (through its version), keyed as a Resource says it (`${Placeholder}`). */
  functionOf: ReadonlyMap<string, string>;
  /** The logical id of the published version (AWS::Lambda::Version) each placeholder names. */
  versionOf: ReadonlyMap<string, string>;
  /** The definition with each placeholder filled with `arnOf` the logical id of its function. */
  filled(arnOf: (logicalId: string) => string): Machine;
}

export function synthesizedMachine(s: Synthesized): SynthesizedMachine {
  const found = Object.values(s.template.findResources("AWS::StepFunctions::StateMachine"));
  if (found.length !== 1) throw new Error(`expected one state machine, found ${found.length}`);
  const props = found[0]!.Properties as {
    DefinitionString: string;
    DefinitionSubstitutions: Record<string, { Ref: string }>;
  };
  const text = props.DefinitionString;
  const versions = s.template.findResources("AWS::Lambda::Version");
  const versionOf = new Map(
    Object.entries(props.DefinitionSubstitutions).map(([name, value]) => [`\${${name}}`, value.Ref]),
  );
  const functionOf = new Map(
    [...versionOf].map(([placeholder, versionId]) => {
      const fn = (versions[versionId]?.Properties.FunctionName as { Ref?: string } | undefined)?.Ref;
      if (!fn) throw new Error(`${placeholder} names ${versionId}, which is not a version of a function`);
      return [placeholder, fn];
    }),
  );
  return {
    text,
    definition: JSON.parse(text) as Machine,
    functionOf,
    versionOf,
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
