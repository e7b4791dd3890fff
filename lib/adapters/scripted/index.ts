export { DEMO_SCRIPT } from "./demo.ts";
export { createScriptedModel, SCRIPTED_SPEC_PREFIX, ScriptedModel, scriptedCallId } from "./model.ts";
export {
  loadScript,
  parseScript,
  SCRIPTED_ERRORS,
  type Script,
  type ScriptedError,
  ScriptSchema,
  type ScriptToolCall,
  type ScriptTurn,
} from "./script.ts";
