export { toRunlogError as toSfnError } from "./errors.ts";
export {
  executionArn,
  executionName,
  executionNameOf,
  MAX_EXECUTION_NAME,
  ownerOf,
} from "./executionName.ts";
export {
  type ExecutionInfo,
  type RunGeneration,
  SfnOrchestrator,
  type SfnOrchestratorOptions,
} from "./sfnOrchestrator.ts";
