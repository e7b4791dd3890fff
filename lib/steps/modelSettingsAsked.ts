import type { LogFacts } from "../core/log.ts";
import { settingNames } from "../core/modelSettingNames.ts";
import {
  assertSupported,
  checkModelSettings,
  type ModelSettings,
  settingsForRun,
} from "../core/modelSettings.ts";
import type { Model } from "../ports/model.ts";
import type { Agent } from "../ports/tool.ts";
import type { ControlDeps } from "./deps.ts";

/**
 * The model settings a run starts with: its agent's, with those the start asked for put over them
 * (never more output tokens than the agent allows), refused before anything is written when the
 * model cannot honour one. Undefined when there are none, so `run_started` records nothing.
 */
export function startSettings(agent: Agent, model: Model, asked: unknown): ModelSettings | undefined {
  const wanted = asked === undefined ? undefined : checkModelSettings(asked);
  const settings = settingsForRun(agent.modelSettings, agent.modelSettings, wanted);
  assertSupported(settings, model.spec, model.supportedSettings);
  return settingNames(settings).length === 0 ? undefined : settings;
}

/**
 * The settings a resume or fork asks to change, checked against what the run goes on with: the
 * settings its log records with these over them, on the model it goes on with (`model`, else the
 * run's). Refused before anything is written, naming the setting; undefined when none were asked.
 */
export function settingsAsked(
  deps: Pick<ControlDeps, "agents" | "models">,
  facts: LogFacts,
  asked: unknown,
  model: string | undefined,
): ModelSettings | undefined {
  const wanted = asked === undefined ? undefined : checkModelSettings(asked);
  if (facts.agent === undefined) return wanted;
  const agent = deps.agents(facts.agent);
  const inForce = settingsForRun(agent.modelSettings, facts.modelSettings, wanted);
  const spec = model ?? facts.model;
  if (spec !== undefined) {
    const resolved = deps.models(spec);
    assertSupported(inForce, resolved.spec, resolved.supportedSettings);
  }
  return wanted === undefined || settingNames(wanted).length === 0 ? undefined : wanted;
}
