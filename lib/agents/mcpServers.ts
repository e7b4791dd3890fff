import { InvalidInputError } from "../core/errors.ts";
import { MCP_NAME_SEPARATOR } from "../core/mcpTools.ts";
import type { McpServer } from "../ports/mcp.ts";

/** A server's name: its tools are `<name>__<tool>`, so it leaves room for the tool's name within 64. */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

const bad = (where: string, field: string, what: string) =>
  new InvalidInputError(`${where}: ${field} ${what}`, { field });

function strings(where: string, field: string, value: unknown, kind: "list" | "record"): void {
  if (value === undefined) return;
  if (kind === "list") {
    if (!Array.isArray(value) || value.some((item) => typeof item !== "string"))
      throw bad(where, field, "must be an array of strings");
    return;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw bad(where, field, "must be an object of strings");
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== "string") throw bad(where, `${field}.${key}`, "must be a string");
  }
}

/** The keys each kind of server takes; the other kind's are refused, never quietly dropped. */
const KEYS = {
  stdio: ["name", "command", "args", "env"],
  url: ["name", "url", "headers"],
} as const;

/** Refuse a key the server's kind does not take (`headers` on a stdio server, a typo …), naming it. */
function onlyKeys(where: string, at: string, name: string, given: object, kind: keyof typeof KEYS): void {
  const allowed: readonly string[] = KEYS[kind];
  const extra = Object.keys(given).find((key) => !allowed.includes(key));
  if (extra === undefined) return;
  const other = kind === "stdio" ? "url" : "stdio";
  const why = (KEYS[other] as readonly string[]).includes(extra)
    ? `is for ${other === "url" ? "a url (HTTP)" : "a command (stdio)"} server, and ${name} is ${kind === "url" ? "a url (HTTP)" : "a command (stdio)"} server`
    : "is not a key of an MCP server";
  throw bad(where, `${at}.${extra}`, `(${name}) ${why}: it takes ${allowed.join(", ")}`);
}

/**
 * An agent's `mcp` list, checked where it is written: each server has a name fit for tool names
 * (unique in the list) and either a `command` (stdio) or an http(s) `url` (Streamable HTTP), and
 * only the keys its kind takes. Returns copies, so a later change to the caller's objects changes
 * nothing.
 */
export function checkMcpServers(where: string, servers: unknown): McpServer[] {
  if (!Array.isArray(servers))
    throw bad(where, "mcp", "must be an array of { name, command } or { name, url }");
  const seen = new Set<string>();
  return servers.map((server: unknown, index): McpServer => {
    const at = `mcp[${index}]`;
    if (typeof server !== "object" || server === null)
      throw bad(where, at, "must be { name, command, args?, env? } or { name, url, headers? }");
    const given = server as Record<string, unknown>;
    const { name, command, url } = given;
    if (typeof name !== "string" || !SERVER_NAME.test(name) || name.includes(MCP_NAME_SEPARATOR)) {
      throw bad(
        where,
        `${at}.name`,
        `must be 1-32 letters, digits, "_" or "-" without "${MCP_NAME_SEPARATOR}" (its tools are named <name>${MCP_NAME_SEPARATOR}<tool>), got ${JSON.stringify(name)}`,
      );
    }
    if (seen.has(name))
      throw bad(where, `${at}.name`, `repeats ${JSON.stringify(name)}: two servers have that name`);
    seen.add(name);
    if (command !== undefined && url !== undefined)
      throw bad(where, at, `(${name}) has both command and url: give command for stdio or url for HTTP`);
    if (typeof command === "string" && command.trim() !== "") {
      onlyKeys(where, at, name, given, "stdio");
      strings(where, `${at}.args`, given.args, "list");
      strings(where, `${at}.env`, given.env, "record");
      return {
        name,
        command,
        ...(given.args === undefined ? {} : { args: [...(given.args as string[])] }),
        ...(given.env === undefined ? {} : { env: { ...(given.env as Record<string, string>) } }),
      };
    }
    if (typeof url === "string") {
      let parsed: URL | undefined;
      try {
        parsed = new URL(url);
      } catch {
        parsed = undefined;
      }
      if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:"))
        throw bad(where, `${at}.url`, `(${name}) must be an http(s) URL, got ${JSON.stringify(url)}`);
      onlyKeys(where, at, name, given, "url");
      strings(where, `${at}.headers`, given.headers, "record");
      return {
        name,
        url,
        ...(given.headers === undefined ? {} : { headers: { ...(given.headers as Record<string, string>) } }),
      };
    }
    throw bad(
      where,
      at,
      `(${name}) has no command and no url: give command (a program that speaks MCP on stdio) or url (a Streamable HTTP endpoint)`,
    );
  });
}
