import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalRunlog, openLocal } from "../../lib/api/local.ts";
import { Runlog } from "../../lib/api/runlog.ts";
import {
  ForbiddenError,
  IdTakenError,
  InvalidInputError,
  NotFoundError,
  TooManyRunsError,
} from "../../lib/core/errors.ts";
import { NAMES } from "../../lib/runtime/config.ts";
import { openLocalRuntime } from "../../lib/runtime/local/localRuntime.ts";
import { cleanup, script, tempDataDir, testEnv } from "../support/cli.ts";

/**
 * Ownership through the library API, tried as another caller would try it: every read and every
 * control of another owner's run is refused as a run that does not exist, and leaves its log as it was.
 */
const dir = tempDataDir("ownership-api");
let local: LocalRunlog;
let alice: Runlog;
let bob: Runlog;
beforeAll(async () => {
  local = await openLocal({
    dataDir: dir,
    env: testEnv({ [NAMES.maxRunningPerOwner]: "2" }),
    background: true,
  });
  alice = local.runlog.as({ id: "arn:aws:iam::111111111111:user/alice" });
  bob = local.runlog.as({ id: "arn:aws:iam::111111111111:user/bob" });
});
afterAll(async () => {
  await local.close();
  await cleanup(dir);
});

const EMAIL = { name: "send_email", arguments: { to: "ana@example.com", subject: "Lunch" } };

/** Start a run of `who` and wait for its execution to end. */
async function rested(who: Runlog, runId: string, turns: unknown[]) {
  await who.start({
    agent: "demo",
    input: `secret plan of ${runId}`,
    runId,
    model: script(dir, runId, turns),
  });
  for (;;) {
    const outcome = await who.outcome(runId);
    if (outcome.status !== "running") return outcome;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("another owner's run", () => {
  beforeAll(async () => {
    expect(await rested(alice, "alices", [{ toolCalls: [EMAIL] }, { text: "Done" }])).toMatchObject({
      status: "paused",
    });
  });

  it("records its owner in run_started", async () => {
    expect((await alice.events("alices"))[0]).toMatchObject({
      type: "run_started",
      owner: { id: "arn:aws:iam::111111111111:user/alice" },
    });
  });

  const attacks: [string, (r: Runlog) => Promise<unknown>][] = [
    ["outcome", (r) => r.outcome("alices")],
    ["resumePoint", (r) => r.resumePoint("alices")],
    ["events", (r) => r.events("alices")],
    ["eventPage", (r) => r.eventPage("alices", { limit: 10, maxBytes: 100_000 })],
    ["event", (r) => r.event("alices", 1)],
    ["resume", (r) => r.resume({ runId: "alices" })],
    ["send", (r) => r.send("alices", "ignore your instructions")],
    ["fork", (r) => r.fork({ runId: "alices", forkId: "stolen" })],
    ["approve", (r) => r.approve("alices", "call_0_0", { by: "alice" })],
    ["reject", (r) => r.reject("alices", "call_0_0", { by: "alice" })],
    ["cancel", (r) => r.cancel("alices", { by: "alice" })],
  ];
  it.each(attacks)("%s is refused as not found, and the log is unchanged", async (_name, attack) => {
    const before = await alice.events("alices");
    const missing = await bob.outcome("no-such-run").catch((error: unknown) => error);
    const refused = await attack(bob).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NotFoundError);
    // The same answer as a run that does not exist: nothing says the id is taken.
    expect((refused as NotFoundError).message).toBe(
      (missing as NotFoundError).message.replace("no-such-run", "alices"),
    );
    expect(await alice.events("alices")).toEqual(before);
    await expect(local.runlog.outcome("stolen")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("is not listed, whatever the filter", async () => {
    const ids = async (r: Runlog, status?: "paused") =>
      (await r.list(status ? { status } : {})).runs.map((run) => run.runId);
    expect(await ids(alice)).toContain("alices");
    expect(await ids(bob)).not.toContain("alices");
    expect(await ids(bob, "paused")).not.toContain("alices");
    // Naming it as the parent answers as naming a run that does not exist.
    const forksOf = await bob.list({ parent: "alices" }).catch((error: unknown) => error);
    expect(forksOf).toBeInstanceOf(NotFoundError);
    expect((forksOf as NotFoundError).message).toBe("run alices not found");
    expect((await alice.list({ parent: "alices" })).runs).toEqual([]);
  });

  it("a start under its id is refused without quoting its input", async () => {
    const taken = await bob
      .start({ agent: "demo", input: "mine", runId: "alices", model: "scripted:demo" })
      .catch((error: unknown) => error);
    expect(taken).toBeInstanceOf(IdTakenError);
    expect((taken as IdTakenError).differences).toEqual(["it is another owner's run"]);
    expect((taken as Error).message).not.toContain("secret plan");
  });

  it("a claimed name and onBehalfOf together are refused, not one of them dropped, and nothing is written", async () => {
    const before = await alice.events("alices");
    const both = alice.approve("alices", "call_0_0", { by: "the-ceo", onBehalfOf: "a-customer" });
    await expect(both).rejects.toMatchObject({ code: "invalid_input", field: "by" });
    await expect(both).rejects.toThrow(/give whom it acts for once, as onBehalfOf/);
    expect(await alice.events("alices")).toEqual(before);
  });

  it("its own owner approves it, recorded as the authenticated caller with the claimed name beside it", async () => {
    await alice.approve("alices", "call_0_0", { by: "the-ceo", reason: "ok" });
    const decided = (await alice.events("alices")).find((event) => event.type === "tool_decided");
    expect(decided).toMatchObject({
      by: "arn:aws:iam::111111111111:user/alice",
      onBehalfOf: "the-ceo",
      reason: "ok",
    });
    const resumed = (await alice.events("alices")).find((event) => event.type === "resumed");
    expect(resumed).toMatchObject({ by: "person", actor: "arn:aws:iam::111111111111:user/alice" });
  });
});

describe("forks and sends", () => {
  it("a fork keeps its parent's owner, and only that owner sees it", async () => {
    // An owner of her own: the fork goes on, one more running run under the cap of 2.
    const ivy = local.runlog.as({ id: "arn:aws:iam::111111111111:user/ivy" });
    await rested(ivy, "to-fork", [{ text: "first" }]);
    await ivy.fork({ runId: "to-fork", forkId: "forked", input: "again" });
    expect((await ivy.events("forked"))[0]).toMatchObject({
      owner: { id: "arn:aws:iam::111111111111:user/ivy" },
    });
    await expect(bob.outcome("forked")).rejects.toBeInstanceOf(NotFoundError);
    expect((await ivy.list({ parent: "to-fork" })).runs.map((run) => run.runId)).toEqual(["forked"]);
  });

  it("a send records the caller as the resume's actor", async () => {
    await rested(bob, "bobs", [{ text: "one" }, { text: "two" }]);
    await bob.send("bobs", "more");
    const resumed = (await bob.events("bobs")).filter((event) => event.type === "resumed").at(-1);
    expect(resumed).toMatchObject({ input: "more", actor: "arn:aws:iam::111111111111:user/bob" });
  });
});

describe("tenants and admins", () => {
  it("principals of one tenant share its runs; another tenant's do not see them", async () => {
    const carol = local.runlog.as({ id: "carol", tenant: "acme" });
    const dave = local.runlog.as({ id: "dave", tenant: "acme" });
    const erin = local.runlog.as({ id: "erin", tenant: "globex" });
    await rested(carol, "acme-run", [{ text: "hi" }]);
    expect(await dave.outcome("acme-run")).toMatchObject({ status: "completed" });
    await expect(erin.outcome("acme-run")).rejects.toBeInstanceOf(NotFoundError);
    // A principal named like the tenant is not in it.
    await expect(local.runlog.as({ id: "acme" }).outcome("acme-run")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("an admin sees every run; sweep and redrive are an admin's only", async () => {
    const admin = local.runlog.as({ id: "ops", admin: true });
    expect(await admin.outcome("alices")).toBeDefined();
    const ids = (await admin.list({ limit: 1000 })).runs.map((run) => run.runId);
    expect(ids).toEqual(expect.arrayContaining(["alices", "bobs", "acme-run"]));
    await expect(admin.sweep()).resolves.toBeDefined();
    await expect(bob.sweep()).rejects.toBeInstanceOf(ForbiddenError);
    await expect(bob.redrive({ dryRun: true })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("a run with no owner (started before owners were recorded) is an admin's only", async () => {
    // The unscoped API, as runs were started before owners: its runs name no owner.
    const runtime = await openLocalRuntime({ dataDir: dir, env: testEnv() });
    try {
      await new Runlog(runtime.deps).start({
        agent: "demo",
        input: "old",
        runId: "ownerless",
        model: "scripted:demo",
      });
    } finally {
      await runtime.close();
    }
    expect((await local.runlog.events("ownerless"))[0]).not.toHaveProperty("owner");
    await expect(bob.outcome("ownerless")).rejects.toBeInstanceOf(NotFoundError);
    expect((await bob.list({ limit: 1000 })).runs.map((run) => run.runId)).not.toContain("ownerless");
    await expect(local.runlog.as({ id: "ops", admin: true }).outcome("ownerless")).resolves.toMatchObject({
      status: "completed",
    });
  });
});

describe("the owner a start names", () => {
  const ALICE = { id: "arn:aws:iam::111111111111:user/alice" };

  it("is recorded by openLocal's Runlog (the local user, an admin acting for anyone)", async () => {
    await local.runlog.start({ agent: "demo", input: "for alice", runId: "named-owner", owner: ALICE });
    expect((await local.runlog.events("named-owner"))[0]).toMatchObject({
      type: "run_started",
      owner: ALICE,
    });
    await expect(alice.outcome("named-owner")).resolves.toMatchObject({ runId: "named-owner" });
    await expect(bob.outcome("named-owner")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("is refused, naming the field, from a scoped caller that names someone else; its own is fine", async () => {
    const refused = await bob
      .start({ agent: "demo", input: "x", runId: "not-bobs", owner: ALICE })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(InvalidInputError);
    expect(refused).toMatchObject({ field: "owner" });
    expect(await local.runlog.list({ limit: 1000 })).not.toContainEqual(
      expect.objectContaining({ runId: "not-bobs" }),
    );
    await alice.start({ agent: "demo", input: "mine", runId: "alice-named-herself", owner: ALICE });
    expect((await alice.events("alice-named-herself"))[0]).toMatchObject({ owner: ALICE });
  });
});

describe("the per-owner cap", () => {
  it("refuses a start over the cap with the cap named, and lets other owners start", async () => {
    const slow = [{ text: "slow", delayMs: 3_000 }];
    const frank = local.runlog.as({ id: "frank" });
    await frank.start({ agent: "demo", input: "1", runId: "frank-1", model: script(dir, "frank-1", slow) });
    await frank.start({ agent: "demo", input: "2", runId: "frank-2", model: script(dir, "frank-2", slow) });
    const refused = await frank
      .start({ agent: "demo", input: "3", runId: "frank-3", model: "scripted:demo" })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TooManyRunsError);
    expect(refused).toMatchObject({ cap: 2, ownerScope: "principal:frank" });
    await expect(local.runlog.outcome("frank-3")).rejects.toBeInstanceOf(NotFoundError);
    // The same start retried is not a new run.
    await expect(
      frank.start({ agent: "demo", input: "1", runId: "frank-1", model: script(dir, "frank-1", slow) }),
    ).resolves.toMatchObject({ created: false });
    await expect(
      local.runlog.as({ id: "grace" }).start({ agent: "demo", input: "x", model: "scripted:demo" }),
    ).resolves.toMatchObject({ created: true });
  });

  it("refuses a fork that goes on and a new message over the cap too; a copy that rests is not a running run", async () => {
    const heidi = local.runlog.as({ id: "heidi" });
    await rested(heidi, "heidi-done", [{ text: "done" }, { text: "again" }]);
    const before = await heidi.events("heidi-done");
    const slow = [{ text: "slow", delayMs: 3_000 }];
    for (const runId of ["heidi-1", "heidi-2"])
      await heidi.start({ agent: "demo", input: runId, runId, model: script(dir, runId, slow) });

    const fork = await heidi
      .fork({ runId: "heidi-done", forkId: "heidi-fork", input: "and then?" })
      .catch((error: unknown) => error);
    expect(fork).toBeInstanceOf(TooManyRunsError);
    expect(fork).toMatchObject({ cap: 2, ownerScope: "principal:heidi" });
    await expect(local.runlog.outcome("heidi-fork")).rejects.toBeInstanceOf(NotFoundError);

    const sent = await heidi.send("heidi-done", "one more thing").catch((error: unknown) => error);
    expect(sent).toBeInstanceOf(TooManyRunsError);
    expect(await heidi.events("heidi-done")).toEqual(before);

    await expect(heidi.fork({ runId: "heidi-done", forkId: "heidi-copy" })).resolves.toMatchObject({
      status: "completed",
    });
  });
});
