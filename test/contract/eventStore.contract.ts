import { afterAll, beforeAll, describe } from "vitest";
import { type ContractStore, runIdMaker } from "./fixtures.ts";
import { headContract } from "./headContract.ts";
import { logContract } from "./logContract.ts";

export type { ContractStore } from "./fixtures.ts";

/**
 * What every DynamoDB-backed EventStore must do (embedded dynalite today,
 * DynamoDB Local or a real table later). `makeStore` is called once per
 * suite; tests use their own run ids, so the table may hold other data.
 */
export function describeEventStoreContract(name: string, makeStore: () => Promise<ContractStore>): void {
  describe(`EventStore contract: ${name}`, () => {
    let current: ContractStore | undefined;
    const get = () => {
      if (!current) throw new Error("the store under test did not start");
      return current;
    };
    beforeAll(async () => {
      current = await makeStore();
    });
    afterAll(async () => {
      await current?.close();
    });
    const id = runIdMaker();
    logContract(get, id);
    headContract(get, id);
  });
}
