/**
 * The CLI's command table, the one list of the commands main.ts looks up by name (demo, config,
 * replay and serve aside, which main.ts answers before it). Each command is defined with its
 * group: startCommands.ts, readCommands.ts, steerCommands.ts, upkeepCommands.ts.
 */
import type { Command, ReadCommand } from "./command.ts";
import { READ_COMMANDS } from "./readCommands.ts";
import { START_COMMANDS } from "./startCommands.ts";
import { STEER_COMMANDS } from "./steerCommands.ts";
import { UPKEEP_COMMANDS } from "./upkeepCommands.ts";

export const COMMANDS: Readonly<Record<string, Command | ReadCommand>> = {
  run: START_COMMANDS.run,
  resume: START_COMMANDS.resume,
  script: READ_COMMANDS.script,
  "resume-point": READ_COMMANDS["resume-point"],
  show: READ_COMMANDS.show,
  ls: READ_COMMANDS.ls,
  send: STEER_COMMANDS.send,
  fork: STEER_COMMANDS.fork,
  approve: STEER_COMMANDS.approve,
  reject: STEER_COMMANDS.reject,
  sweep: UPKEEP_COMMANDS.sweep,
  redrive: UPKEEP_COMMANDS.redrive,
  cancel: STEER_COMMANDS.cancel,
};
