import type { ClientAuth } from "../client/auth.ts";
import { createClient } from "../client/client.ts";
import type { RunlogConfig } from "../runtime/readConfig.ts";
import type { CommandContext } from "./commands.ts";
import { progressLine } from "./format.ts";
import type { Io } from "./io.ts";
import { remoteRuns } from "./remoteRuns.ts";
import { UsageError } from "./usage.ts";

/**
 * A command's context when `--url` (or its variable, NAMES.url) names runlog's HTTP API: the runs are read and
 * steered through runlog/client, no store is opened. A bearer token when one is given (`--token`,
 * NAMES.token), else SigV4 with the default credential chain for an https URL, else none.
 */
export async function remoteContext(options: {
  url: string;
  values: Record<string, unknown>;
  config: RunlogConfig;
  io: Io;
  json: boolean;
  progress: (line: string) => void;
}): Promise<CommandContext> {
  const { url, values, config, io, json, progress } = options;
  for (const flag of ["dir", "agents"] as const) {
    if (values[flag] !== undefined)
      throw new UsageError(
        `--${flag} names where this process keeps or runs agents; with --url the runs are the API's (${url}): drop one of them`,
      );
  }
  const token = (values.token as string | undefined) ?? config.token;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url: expected an http:// or https:// URL, got ${JSON.stringify(url)}`);
  }
  const auth: ClientAuth =
    token !== undefined
      ? { type: "bearer", token }
      : parsed.protocol === "https:"
        ? { type: "sigv4", ...(config.awsRegion === undefined ? {} : { region: config.awsRegion }) }
        : { type: "none" };
  const client = createClient({ url: parsed, auth });
  const runs = remoteRuns(client, (runId, event) => progress(progressLine(runId, event)), parsed.href);
  return { runs, io, json, where: parsed.href };
}
