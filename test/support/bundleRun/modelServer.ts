import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readBody } from "./awsCalls.ts";

/** One scripted model response: a final text, or tool calls (ids chosen by the server, as OpenAI does). */
export type ScriptedReply =
  | { text: string }
  | { toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[] };

/** A request the model server received: its messages, as the CallModel bundle sent them. */
export interface ModelRequestSeen {
  model: string;
  messages: { role: string; content?: string | null; tool_call_id?: string; tool_calls?: { id: string }[] }[];
  tools?: { function: { name: string } }[];
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: "chatcmpl-local",
  object: "chat.completion.chunk",
  created: Math.floor(Date.now() / 1000),
  model: "local",
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/** The chunks of a streamed Chat Completion for a reply: role, content or calls, finish, usage. */
function chunksOf(reply: ScriptedReply): unknown[] {
  if ("text" in reply) {
    return [chunk({ role: "assistant", content: "" }), chunk({ content: reply.text }), chunk({}, "stop")];
  }
  return [
    chunk({ role: "assistant", content: null }),
    ...reply.toolCalls.map((call, index) =>
      chunk({
        tool_calls: [
          {
            index,
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          },
        ],
      }),
    ),
    chunk({}, "tool_calls"),
  ];
}

/**
 * An OpenAI-compatible Chat Completions server (streamed) answering each request with the
 * next reply of its script, for the one API key it accepts. A request past the end of the
 * script, or with another key, gets an error the test sees in the run.
 */
export async function startModelServer(apiKey: string, script: readonly ScriptedReply[]) {
  const requests: ModelRequestSeen[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = JSON.parse((await readBody(request)).toString("utf8")) as ModelRequestSeen;
      if (request.url !== "/v1/chat/completions" || request.method !== "POST") {
        response.writeHead(404, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: `no route ${request.method} ${request.url}` } }));
        return;
      }
      if (request.headers.authorization !== `Bearer ${apiKey}`) {
        response.writeHead(401, { "content-type": "application/json" });
        response.end(
          JSON.stringify({ error: { message: "Incorrect API key provided", type: "invalid_request_error" } }),
        );
        return;
      }
      const reply = script[requests.length];
      requests.push(body);
      if (!reply) {
        response.writeHead(400, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: `the script has no reply ${requests.length}` } }));
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const part of [
        ...chunksOf(reply),
        { ...chunk({}), choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
      ]) {
        response.write(`data: ${JSON.stringify(part)}\n\n`);
      }
      response.end("data: [DONE]\n\n");
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    server,
  };
}
