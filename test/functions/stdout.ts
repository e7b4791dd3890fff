import { vi } from "vitest";

/** A JSON line a function wrote to stdout: a Powertools log line or an EMF metrics line. */
export type Line = Record<string, unknown>;

/**
 * What `run` writes to stdout and stderr (Powertools writes warnings and errors there), as the
 * JSON lines it is made of; nothing reaches the terminal.
 */
export async function outputOf<T>(run: () => Promise<T>): Promise<{ value: T; lines: Line[] }> {
  const written: string[] = [];
  const capture = (chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  };
  const spies = [
    vi.spyOn(process.stdout, "write").mockImplementation(capture),
    vi.spyOn(process.stderr, "write").mockImplementation(capture),
  ];
  let value: T;
  try {
    value = await run();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  const lines = written
    .join("")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Line);
  return { value, lines };
}

type Emf = { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] };

/** The EMF lines (CloudWatch's Embedded Metric Format) among the lines. */
export const emfLines = (lines: Line[]) =>
  lines.filter((line) => "_aws" in line) as (Line & { _aws: { CloudWatchMetrics: Emf[] } })[];

/** The EMF lines that carry metric `name`. */
export const metricLines = (lines: Line[], name: string) =>
  emfLines(lines).filter((line) =>
    line._aws.CloudWatchMetrics.some((m) => m.Metrics.some((metric) => metric.Name === name)),
  );

/** The log lines (Powertools Logger's, with a `level`). */
export const logLines = (lines: Line[]) => lines.filter((line) => "level" in line && "message" in line);
