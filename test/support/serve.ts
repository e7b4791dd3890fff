import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT, testEnv } from "./cli.ts";

/** A `runlog serve` child process, listening. */
export interface Served {
  child: ChildProcess;
  /** The server's origin, `http://127.0.0.1:PORT`. */
  url: string;
  /** The per-start token the server printed. */
  token: string;
  /** The URL it printed, `url/?token=TOKEN`: what a user opens, and a browser test too. */
  opened: string;
  /** `fetch` with the token as a bearer header: an API client of this server. */
  fetch: (path: string, init?: RequestInit) => Promise<Response>;
  output: () => string;
  exit: Promise<number | null>;
}

/** Start `runlog serve --port 0 ARGS` as a user runs it, and wait for the line that says where it listens. */
export function serve(args: string[], env: NodeJS.ProcessEnv = testEnv()): Promise<Served> {
  const child = spawn(process.execPath, [join(ROOT, "bin", "runlog.js"), "serve", "--port", "0", ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
      const match = /runlog serve: listening on ((http:\/\/127\.0\.0\.1:\d+)\/\?token=([\w-]+))/.exec(stdout);
      if (match) {
        const [, opened, url, token] = match as unknown as [string, string, string, string];
        resolve({ child, url, token, opened, fetch: authedFetch(url, token), output: () => stdout, exit });
      }
    });
    exit.then((code) =>
      reject(new Error(`runlog serve exited ${code} before listening:\n${stdout}\n${stderr}`)),
    );
  });
}

/** Stop a served child: SIGKILL if it has not exited. */
export function stopServed(served: Served | undefined): void {
  const child = served?.child;
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

/** `fetch(url + path)` with `Authorization: Bearer TOKEN` added to the request's headers. */
export function authedFetch(url: string, token: string): Served["fetch"] {
  return (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${token}`);
    return fetch(`${url}${path}`, { ...init, headers });
  };
}

/** A page at `path` opened as a user does: through the printed URL, whose 303 sets the cookie. */
export function viewerUrl(served: Served, path: string): string {
  const at = new URL(path, served.url);
  at.searchParams.set("token", served.token);
  return at.href;
}
