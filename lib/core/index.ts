export * from "./classify.ts";
export * from "./errors.ts";
export * from "./events.ts";
export * from "./log.ts";
export * from "./messageBuilder.ts";
export * from "./messages.ts";
export * from "./status.ts";
export * from "./tail.ts";
