import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { InvalidInputError, PermanentError } from "../../lib/core/errors.ts";
import { redact } from "../../lib/core/redact.ts";
import { type ConfigField, NAMES } from "../../lib/runtime/config.ts";
import { ConfigError } from "../../lib/runtime/configError.ts";
import { CONFIG } from "../../lib/runtime/configSchema.ts";
import { readConfig } from "../../lib/runtime/readConfig.ts";
import { dynamoTarget } from "../../lib/runtime/store.ts";

const PAGE = join(import.meta.dirname, "..", "..", "docs", "reference", "configuration.md");
const FIELDS = Object.keys(CONFIG) as ConfigField[];

/** The rows of the page's variable table, by variable: its cells, backticks dropped. */
function pageRows(): Map<string, { readBy: string; default: string; allowed: string; meaning: string }> {
  const rows = new Map<string, { readBy: string; default: string; allowed: string; meaning: string }>();
  for (const line of readFileSync(PAGE, "utf8").split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim().replaceAll("`", ""));
    // | name | read by | default | allowed | meaning |: six separators, the header and its rule left out.
    if (cells.length !== 7 || cells[1] === "Variable" || cells[1]?.startsWith("---")) continue;
    const [, name, readBy, fallback, allowed, meaning] = cells as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    rows.set(name, { readBy, default: fallback, allowed, meaning });
  }
  return rows;
}

/** What the schema says of a variable, as the page should. */
function schemaRow(field: ConfigField) {
  const { doc } = CONFIG[field];
  return {
    readBy: doc.readBy,
    default: doc.default.replaceAll("`", ""),
    allowed: doc.allowed.replaceAll("`", ""),
  };
}

/** A ConfigError's problems; fails when `read` does not throw one. */
function problemsOf(read: () => unknown) {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("no ConfigError thrown");
}

describe("docs/reference/configuration.md", () => {
  it("lists every variable of the schema, and no other", () => {
    const listed = [...pageRows().keys()].sort();
    expect(listed).toEqual(FIELDS.map((field) => NAMES[field]).sort());
  });

  it.each(FIELDS)(
    "says what the schema says of %s: who reads it, its default, what is allowed, what it means",
    (field) => {
      const row = pageRows().get(NAMES[field]);
      expect(row).toBeDefined();
      expect({ readBy: row?.readBy, default: row?.default, allowed: row?.allowed }).toEqual(schemaRow(field));
      expect(row?.meaning.length).toBeGreaterThan(10);
    },
  );

  it("names a variable for every field of the schema, each once", () => {
    expect(Object.keys(NAMES).sort()).toEqual([...FIELDS].sort());
    expect(new Set(Object.values(NAMES)).size).toBe(FIELDS.length);
  });
});

describe("readConfig", () => {
  it("gives the defaults for an empty environment", () => {
    const config = readConfig({});
    expect(config).toMatchObject({
      dataDir: ".runlog",
      durability: "full",
      demoModel: "gpt-4.1-mini",
      cancelPollMs: 2_000,
    });
    expect(config.crashAt).toBeUndefined();
    expect(config.retentionDays).toBeUndefined();
    expect(config.stepsPerExecution).toBeUndefined();
    expect(config.openaiApiKey).toBeUndefined();
  });

  it("treats an empty value as unset, for every variable", () => {
    const empty = Object.fromEntries(Object.values(NAMES).map((name) => [name, ""]));
    expect(readConfig(empty)).toEqual(readConfig({}));
    // A required one set to "" is reported as not set.
    const problems = problemsOf(() =>
      readConfig({ [NAMES.tableName]: "", [NAMES.leaseMs]: "" }, { for: "handlers" }),
    );
    expect(problems.map((p) => [p.variable, p.value])).toEqual([
      ["TABLE_NAME", undefined],
      ["RUNLOG_LEASE_MS", undefined],
    ]);
  });

  it("reads nothing it does not know: other variables are left alone", () => {
    expect(readConfig({ HOME: "/home/x", RUNLOG_E2E_DYNAMODB_ENDPOINT: "not a url" })).toEqual(
      readConfig({}),
    );
  });

  const valid: [ConfigField, string, unknown][] = [
    ["dataDir", "/srv/runs", "/srv/runs"],
    ["agents", "./agents.ts", "./agents.ts"],
    ["stepsPerExecution", "3", 3],
    ["retentionDays", "30", 30],
    ["retentionDays", "0.5", 0.5],
    ["retentionDays", "36500", 36_500],
    ["durability", "normal", "normal"],
    ["dynamodbEndpoint", "http://127.0.0.1:8000", "http://127.0.0.1:8000"],
    ["table", "prod-runs", "prod-runs"],
    ["retryIntervalMs", "0", 0],
    ["retryIntervalMs", "5", 5],
    ["crashAt", "tool:after-run", { point: "tool:after-run", nth: 1 }],
    ["crashAt", "control:after-claim@2", { point: "control:after-claim", nth: 2 }],
    ["demoModel", "gpt-4.1", "gpt-4.1"],
    ["openaiApiKey", "sk-abc", "sk-abc"],
    ["awsRegion", "eu-west-1", "eu-west-1"],
    ["awsDefaultRegion", "eu-west-1", "eu-west-1"],
    ["awsRegion", "us-gov-west-1", "us-gov-west-1"],
    ["awsRegion", "cn-north-1", "cn-north-1"],
    ["awsRegion", "local", "local"],
    ["awsAccessKeyId", "AKIAEXAMPLE", "AKIAEXAMPLE"],
    ["awsSecretAccessKey", "secret/key+1", "secret/key+1"],
    ["awsSessionToken", "token", "token"],
    ["tableName", "Runlog-RunsTable-1AB", "Runlog-RunsTable-1AB"],
    [
      "stateMachineArn",
      "arn:aws:states:us-east-1:1:stateMachine:m",
      "arn:aws:states:us-east-1:1:stateMachine:m",
    ],
    [
      "modelKeySecretArn",
      "arn:aws:secretsmanager:us-east-1:1:secret:k",
      "arn:aws:secretsmanager:us-east-1:1:secret:k",
    ],
    ["leaseMs", "87000000", 87_000_000],
    ["cancelPollMs", "20", 20],
  ];
  it.each(valid)("%s: %j is read as %j", (field, value, expected) => {
    expect(readConfig({ [NAMES[field]]: value })[field as keyof ReturnType<typeof readConfig>]).toEqual(
      expected,
    );
  });

  const invalid: [ConfigField, string][] = [
    ["stepsPerExecution", "0"],
    ["stepsPerExecution", "many"],
    ["stepsPerExecution", "2.5"],
    ["retentionDays", "0"],
    ["retentionDays", "-1"],
    ["retentionDays", "soon"],
    ["retentionDays", " "],
    ["retentionDays", "Infinity"],
    ["retentionDays", "100000000"],
    ["durability", "fast"],
    ["dynamodbEndpoint", "localhost:8000"],
    ["dynamodbEndpoint", "ftp://host"],
    ["table", "x"],
    ["table", "runs table"],
    ["retryIntervalMs", "-1"],
    ["retryIntervalMs", "fast"],
    ["crashAt", "tool:sometime"],
    ["crashAt", "tool:after-run@0"],
    ["crashAt", "everywhere"],
    ["openaiApiKey", "sk-abc\n"],
    ["awsSecretAccessKey", "two words"],
    ["tableName", "t"],
    ["stateMachineArn", "RunMachine"],
    ["leaseMs", "0"],
    ["leaseMs", "1h"],
    ["cancelPollMs", "0"],
    ["awsRegion", "us east 1"],
    ["awsRegion", "US-EAST-1"],
    ["awsRegion", "us_east_1"],
    ["awsDefaultRegion", "eu-west-1 "],
    ["awsDefaultRegion", "-eu-west-1"],
  ];
  it.each(invalid)(
    "%s: %j is refused, naming the variable, the value and what is allowed",
    (field, value) => {
      const problems = problemsOf(() => readConfig({ [NAMES[field]]: value }));
      const secret = CONFIG[field].doc.secret === true;
      expect(problems).toEqual([
        {
          variable: NAMES[field],
          value: secret ? `<redacted, ${value.length} characters>` : JSON.stringify(value),
          allowed: CONFIG[field].doc.allowed,
        },
      ]);
    },
  );

  it.each(FIELDS.filter((field) => CONFIG[field].doc.secret === true))(
    "%s: the message about a bad secret reads the same once redacted, as the CLI shows it",
    (field) => {
      const problems = problemsOf(() => readConfig({ [NAMES[field]]: "a b" }));
      const message = new ConfigError(problems).message;
      expect(message).toContain(`${NAMES[field]}=<redacted, 3 characters> is not allowed`);
      expect(redact(message)).toBe(message);
    },
  );

  it("says every problem in one message, a secret's value never", () => {
    const read = () =>
      readConfig({
        RUNLOG_DURABILITY: "fast",
        OPENAI_API_KEY: "sk-live-secret value",
        RUNLOG_STEPS_PER_EXECUTION: "0",
      });
    expect(read).toThrow(InvalidInputError);
    expect(read).toThrow(PermanentError);
    let message = "";
    try {
      read();
    } catch (error) {
      message = (error as Error).message;
      expect((error as ConfigError).code).toBe("config");
    }
    expect(message).toBe(
      'RUNLOG_STEPS_PER_EXECUTION="0" is not allowed; expected a whole number of steps, 1 or more; ' +
        'RUNLOG_DURABILITY="fast" is not allowed; expected full or normal; ' +
        "OPENAI_API_KEY=<redacted, 20 characters> is not allowed; expected an API key, without spaces or line breaks",
    );
    expect(message).not.toContain("sk-live");
  });

  describe("for the Lambda handlers", () => {
    it("requires the table and the lease time, naming both", () => {
      expect(() => readConfig({}, { for: "handlers" })).toThrow(
        "TABLE_NAME is not set; expected a DynamoDB table name (3 to 255 of A-Z a-z 0-9 _ . -); " +
          "RUNLOG_LEASE_MS is not set; expected a whole number of milliseconds, 1 or more",
      );
    });

    it("keeps the data dir in /tmp, Lambda's only writable place", () => {
      const config = readConfig({ TABLE_NAME: "runs-table", RUNLOG_LEASE_MS: "1000" }, { for: "handlers" });
      expect(config).toMatchObject({
        tableName: "runs-table",
        leaseMs: 1_000,
        dataDir: "/tmp/runlog",
        cancelPollMs: 2_000,
      });
    });
  });

  describe("the data dir's old name", () => {
    it("is read, with a warning told once", () => {
      const warn = vi.fn();
      expect(readConfig({ RUNLOG_DATA_DIR: "/old" }, { warn }).dataDir).toBe("/old");
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn).toHaveBeenCalledWith("RUNLOG_DATA_DIR is deprecated: set RUNLOG_DIR instead");
    });

    it("loses to RUNLOG_DIR when both are set, and the warning says so", () => {
      const warn = vi.fn();
      expect(readConfig({ RUNLOG_DATA_DIR: "/old", RUNLOG_DIR: "/new" }, { warn }).dataDir).toBe("/new");
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]?.[0]).toMatch(
        /RUNLOG_DATA_DIR is deprecated.*both are set: RUNLOG_DIR is used/,
      );
    });

    it("warns of nothing when only RUNLOG_DIR is set, or the old one is empty", () => {
      const warn = vi.fn();
      readConfig({ RUNLOG_DIR: "/new" }, { warn });
      readConfig({ RUNLOG_DATA_DIR: "" }, { warn });
      expect(warn).not.toHaveBeenCalled();
    });

    it("is the handlers' data dir too", () => {
      const base = { TABLE_NAME: "runs-table", RUNLOG_LEASE_MS: "1000" };
      expect(readConfig({ ...base, RUNLOG_DATA_DIR: "/tmp/old" }, { for: "handlers" }).dataDir).toBe(
        "/tmp/old",
      );
    });
  });

  it("is pure over the environment it is given", () => {
    vi.stubEnv(NAMES.durability, "fast");
    try {
      expect(readConfig({}).durability).toBe("full");
      expect(() => readConfig()).toThrow(ConfigError);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe("where the configuration stores events", () => {
  it("is the SQLite file unless a DynamoDB endpoint or table is named", () => {
    expect(dynamoTarget(readConfig({ RUNLOG_DURABILITY: "normal" }))).toBeUndefined();
  });

  it("is a DynamoDB-compatible server at the endpoint: table runlog, local keys unless the AWS ones are set", () => {
    expect(dynamoTarget(readConfig({ RUNLOG_DYNAMODB_ENDPOINT: "http://127.0.0.1:8000" }))).toEqual({
      endpoint: "http://127.0.0.1:8000",
      tableName: "runlog",
    });
    const env = {
      RUNLOG_DYNAMODB_ENDPOINT: "http://127.0.0.1:8000",
      RUNLOG_TABLE: "mine",
      AWS_REGION: "eu-west-1",
      AWS_ACCESS_KEY_ID: "id",
      AWS_SECRET_ACCESS_KEY: "secret",
      AWS_SESSION_TOKEN: "token",
    };
    expect(dynamoTarget(readConfig(env))).toEqual({
      endpoint: "http://127.0.0.1:8000",
      tableName: "mine",
      region: "eu-west-1",
      credentials: { accessKeyId: "id", secretAccessKey: "secret", sessionToken: "token" },
    });
  });

  it("is a table on AWS with only the table named, in AWS_REGION else AWS_DEFAULT_REGION", () => {
    expect(dynamoTarget(readConfig({ RUNLOG_TABLE: "prod-runs", AWS_DEFAULT_REGION: "us-west-2" }))).toEqual({
      tableName: "prod-runs",
      region: "us-west-2",
    });
    expect(
      dynamoTarget(
        readConfig({ RUNLOG_TABLE: "prod-runs", AWS_REGION: "eu-west-1", AWS_DEFAULT_REGION: "us-west-2" }),
      ),
    ).toEqual({ tableName: "prod-runs", region: "eu-west-1" });
  });
});
