import { describe, expect, it } from "vitest";
import { checkMcpServers } from "../../lib/agents/mcpServers.ts";
import { InvalidInputError } from "../../lib/core/errors.ts";

const refused = (mcp: unknown) => {
  try {
    checkMcpServers('agent "a"', mcp);
  } catch (error) {
    return error;
  }
  return undefined;
};

describe("checkMcpServers", () => {
  it.each([
    [
      "headers on a stdio server",
      { name: "shop", command: "node", headers: { authorization: "x" } },
      "mcp[0].headers",
      "is for a url (HTTP) server",
    ],
    [
      "env on a url server",
      { name: "shop", url: "http://localhost:1/mcp", env: { A: "b" } },
      "mcp[0].env",
      "is for a command (stdio) server",
    ],
    [
      "args on a url server",
      { name: "shop", url: "http://localhost:1/mcp", args: ["x"] },
      "mcp[0].args",
      "is for a command (stdio) server",
    ],
    [
      "an unknown key",
      { name: "shop", command: "node", enviroment: { A: "b" } },
      "mcp[0].enviroment",
      "is not a key of an MCP server",
    ],
  ])("refuses %s, naming the field", (_, server, field, words) => {
    const error = refused([server]);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field, message: expect.stringContaining(words) });
  });

  it("takes each kind with its own keys", () => {
    expect(
      refused([
        { name: "files", command: "npx", args: ["-y", "s"], env: { TOKEN: "x" } },
        { name: "crm", url: "https://mcp.example.com/mcp", headers: { authorization: "Bearer x" } },
      ]),
    ).toBeUndefined();
  });
});
