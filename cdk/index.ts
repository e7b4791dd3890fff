/**
 * `runlog/cdk`: runlog in your own CDK app. `Runlog` is the construct to put in
 * your stack; `RunlogStack` is the same as a stack of its own.
 */
import "../lib/requireNode.ts";

export type { RunlogBedrockProps } from "./bedrock.ts";
export type { RunlogAuth, RunlogEdgeProps, RunlogJwtAuth, RunlogThrottle } from "./edgeProps.ts";
export type { KeyKind, RunlogEncryptionKey, RunlogEncryptionKeys } from "./encryption.ts";
export type { RunlogFunctionSizing, RunlogFunctionsSizing } from "./functionProps.ts";
export { type FunctionNetwork, RunlogNetwork, type RunlogNetworkProps } from "./network.ts";
export type { RunlogOutputsOptions } from "./outputs.ts";
export {
  type RunlogAlarmsProps,
  type RunlogConcurrency,
  type RunlogProps,
  RunlogPropsError,
} from "./props.ts";
export { Runlog } from "./runlog.ts";
export { RunlogStack, type RunlogStackProps } from "./runlogStack.ts";
export type { StateMachineLogs } from "./runStateMachine.ts";
export type { RunlogToolGroup, RunlogToolGroups, ToolGroup } from "./toolGroups.ts";
