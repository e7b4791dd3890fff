export { DEMO_SCRIPT } from "./demo.ts";
export { createScriptedModel, SCRIPTED_SPEC_PREFIX, ScriptedModel, scriptedCallId } from "./model.ts";
export {
  loadScript,
  parseScript,
  SCRIPTED_ERRORS,
  type Script,
  ScriptSchema,
  type ScriptTurn,
} from "./script.ts";
