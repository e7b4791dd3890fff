import { describe, expect, it } from "vitest";
import { errorFromResponse } from "../../lib/client/errors.ts";
import {
  ConflictError,
  CorruptEventError,
  ForbiddenError,
  IdempotencyKeyReusedError,
  IdTakenError,
  InvalidInputError,
  LeaseHeldError,
  MissingIndexError,
  ModelRejectedError,
  ModelUnavailableError,
  NotFoundError,
  RetryableError,
  RunCancelledError,
  type RunlogError,
  StaleError,
  TooManyRunsError,
  UnauthorizedError,
} from "../../lib/core/errors.ts";
import { errorAnswer } from "../../lib/http/errors.ts";
import { ERROR_CODES } from "../../lib/http/routeSpecs.ts";

/**
 * Every runlog error class a route can throw keeps its kind across HTTP: the server answers a code
 * of its own (described in the OpenAPI document), and runlog/client throws the same class back,
 * with its facts, so a caller (and the CLI's exit code over --url) decides as on a local store.
 */
const CASES: [RunlogError, number, string][] = [
  [new InvalidInputError("bad", { field: "agent" }), 400, "invalid_input"],
  [new UnauthorizedError("who are you"), 401, "unauthorized"],
  [new ForbiddenError("admins only"), 403, "forbidden"],
  [new NotFoundError("no run r1", { runId: "r1" }), 404, "not_found"],
  [new LeaseHeldError("held", { runId: "r1" }), 409, "run_in_progress"],
  [
    new IdTakenError("f3", ['input "a", not "b"'], "fork id f3 is taken by a different run", { runId: "f3" }),
    409,
    "id_taken",
  ],
  [new IdempotencyKeyReusedError("k1", ["other input"], { runId: "r1" }), 409, "idempotency_key_reused"],
  [new RunCancelledError("run r1 was cancelled by ops", { runId: "r1", seq: 4 }), 409, "run_cancelled"],
  [
    new StaleError("run r1 was resumed to generation 3 by another", { runId: "r1", generation: 2 }),
    409,
    "stale",
  ],
  [new ConflictError("run r1 already ended", { runId: "r1" }), 409, "conflict"],
  [new TooManyRunsError("owner:ana", 3), 429, "too_many_runs"],
  [new ModelRejectedError("the model refused the key"), 422, "model_rejected"],
  [new ModelUnavailableError("slow down"), 503, "model_unavailable"],
  [new RetryableError("throttled"), 503, "unavailable"],
  [new MissingIndexError("runs", "byParent", "no index byParent"), 501, "index_missing"],
  [new CorruptEventError("r1", 7, "invalid JSON"), 500, "corrupt_event"],
];

describe("error codes over HTTP", () => {
  it.each(CASES)("%s -> %i %s, and the client throws the same class back", (error, status, code) => {
    const answer = errorAnswer(error);
    expect(answer.status).toBe(status);
    expect(answer.body.error.code).toBe(code);
    expect(ERROR_CODES).toContain(code);
    const thrown = errorFromResponse(status, JSON.stringify(answer.body), undefined, "k1");
    expect(thrown.constructor).toBe(error.constructor);
    expect(thrown).toMatchObject({ code: error.code, message: error.message });
    for (const fact of ["runId", "seq", "generation", "field"] as const) {
      expect((thrown as unknown as Record<string, unknown>)[fact]).toEqual(
        (error as unknown as Record<string, unknown>)[fact],
      );
    }
  });

  it("an id taken carries the id and what differs, and comes back as an IdTakenError with them", () => {
    const error = new IdTakenError("f3", ["its event at seq 2 differs"], "fork id f3 is taken", {});
    const answer = errorAnswer(error);
    expect(answer.body.error).toMatchObject({
      code: "id_taken",
      id: "f3",
      differences: ["its event at seq 2 differs"],
    });
    const thrown = errorFromResponse(409, JSON.stringify(answer.body), undefined);
    expect(thrown).toBeInstanceOf(IdTakenError);
    expect(thrown).toMatchObject({ id: "f3", differences: ["its event at seq 2 differs"] });
  });
});
