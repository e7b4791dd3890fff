import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../lib/cli/commandTable.ts";
import { ROOT, readDoc } from "../support/docs.ts";

/**
 * The reference pages list what the code has: every CLI command, HTTP route, event type and
 * construct prop. Names are read from the source (simple patterns, not a parser), so adding one
 * without documenting it fails here.
 */
const source = (path: string) => readFileSync(join(ROOT, path), "utf8");

describe("docs/reference/cli.md", () => {
  const page = readDoc("docs/reference/cli.md");
  // The table's commands, and those main.ts answers before it (help aside).
  const early = [...source("lib/cli/main.ts").matchAll(/name === "(\w[\w-]*)"/g)]
    .map((m) => m[1]!)
    .filter((name) => name !== "help");
  const commands = [...new Set([...Object.keys(COMMANDS), ...early])];

  it("finds the commands", () => {
    expect(commands).toEqual(expect.arrayContaining(["run", "resume", "demo", "serve", "version"]));
  });

  it.each(commands)("lists runlog %s", (name) => {
    expect(page).toMatch(new RegExp(`^runlog ${name}( |$)`, "m"));
    expect(page).toMatch(new RegExp(`^\\| [^|]*\`${name}\``, "m"));
  });
});

describe("docs/reference/http-api.md", () => {
  const page = readDoc("docs/reference/http-api.md");
  const routes = readdirSync(join(ROOT, "lib/http"))
    .filter((name) => name.endsWith("Routes.ts"))
    .flatMap((name) => {
      const text = source(`lib/http/${name}`);
      const keys = [...text.matchAll(/^\s*"(\/[^"]*)": \{/gm)];
      return keys.flatMap((key, i) => {
        const body = text.slice(key.index, keys[i + 1]?.index);
        const path = key[1]!.replace(/:(\w+)/g, "{$1}");
        return [...new Set([...body.matchAll(/^\s*(GET|POST): /gm)].map((m) => m[1]!))].map(
          (method) => `${method} ${path}`,
        );
      });
    });

  it("finds the routes", () => {
    expect(routes).toEqual(expect.arrayContaining(["POST /runs", "GET /runs/{id}/events"]));
  });

  it.each(routes)("lists %s", (route) => {
    expect(page).toMatch(new RegExp(`\\| \`${route.replace(/[{}?]/g, "\\$&")}[?\`]`));
  });
});

describe("docs/reference/events.md", () => {
  const page = readDoc("docs/reference/events.md");
  // The union is in events.ts; a tool call's events and the control events are in files of their own.
  const types = ["lib/core/events.ts", "lib/core/toolEvents.ts", "lib/core/controlEvents.ts"].flatMap(
    (file) => [...source(file).matchAll(/type: z\.literal\("(\w+)"\)/g)].map((m) => m[1]!),
  );

  it("finds the event types", () => {
    expect(types).toEqual(expect.arrayContaining(["run_started", "tool_result", "resumed"]));
  });

  it.each(types)("lists %s", (type) => {
    expect(page).toContain(`| \`${type}\` |`);
  });
});

describe("docs/reference/construct-props.md", () => {
  const page = readDoc("docs/reference/construct-props.md");
  const bodyOf = (name: string, file: string) =>
    new RegExp(`export interface ${name} (?:extends [\\w, ]+ )?\\{([\\s\\S]*?)\\n\\}`).exec(
      source(file),
    )?.[1] ?? "";
  // RunlogProps and the edge and network props it extends (cdk/edgeProps.ts, cdk/network.ts).
  const body =
    bodyOf("RunlogProps", "cdk/props.ts") +
    bodyOf("RunlogEdgeProps", "cdk/edgeProps.ts") +
    bodyOf("RunlogNetworkProps", "cdk/network.ts");
  const props = [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]!);

  it("finds the props", () => {
    expect(props).toEqual(
      expect.arrayContaining([
        "agentsModule",
        "modelKeySecret",
        "logRetention",
        "auth",
        "apiReservedConcurrency",
        "vpc",
        "vpcEndpoints",
      ]),
    );
  });

  it.each(props)("lists %s", (prop) => {
    expect(page).toContain(`| \`${prop}\` |`);
  });
});
